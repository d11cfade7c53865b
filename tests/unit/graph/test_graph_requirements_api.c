/* simpler_graph_requirements over a real image (fixtures.cmake): numbers,
 * statuses, "out only on success", and an allocation failure sweep. */
#include "diamond_image.h"
#include "reason_check.h"

#include "common/host_alloc.h"
#include "simpler/runtime_c_api.h"

static void graph_requirements_api_diamond_matches_hand_computed(void **state)
{
    (void)state;
    ChipStorageTaskArgs *args = fixture_args(0, SIMPLER_ADDRESS_SPACE_HOST);
    SimplerGraphRequirements r;
    assert_int_equal(simpler_graph_requirements(image, image_size, args, &r), 0);
    assert_diamond_requirements(&r);
    free(args);
}

static void graph_requirements_api_sizes_graphs_past_the_first_window(void **state)
{
    (void)state;
    ChipStorageTaskArgs *args = fixture_args(3, SIMPLER_ADDRESS_SPACE_DEVICE);
    SimplerGraphRequirements r;
    assert_int_equal(simpler_graph_requirements(image, image_size, args, &r), 0);
    assert_int_equal(r.task_count, 1500);
    assert_int_equal(r.scheduler_state_bytes, 2 * (64 + 4 * 2048));
    assert_int_equal(r.graph_definition_bytes, 96 + 56 + 1500 * 32 + 1500 * 32 + 1499 * 4);
    free(args);
}

static void graph_requirements_api_failure_changes_nothing(void **state)
{
    (void)state;
    SimplerGraphRequirements r, before;
    memset(&r, 0xab, sizeof(r));
    before = r;
    ChipStorageTaskArgs *args = fixture_args(1, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(simpler_graph_requirements(image, image_size, args, &r), -7);
    args->scalars[0] = 2; /* func_id the image lacks */
    assert_int_equal(simpler_graph_requirements(image, image_size, args, &r), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    args->scalars[0] = 0;
    assert_int_equal(simpler_graph_requirements(NULL, image_size, args, &r), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_graph_requirements(image, image_size, NULL, &r), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_graph_requirements(image, image_size, args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_graph_requirements(image, image_size - 64, args, &r), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    args->scalar_count = 0; /* disagrees with the image's signature */
    assert_int_equal(simpler_graph_requirements(image, image_size, args, &r), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    args->scalar_count = 1;
    args->tensors[0].ndims = 6;
    assert_int_equal(simpler_graph_requirements(image, image_size, args, &r), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_memory_equal(&r, &before, sizeof(r));
    free(args);
}

static void graph_requirements_api_allocation_failure_sweep_leaks_nothing(void **state)
{
    (void)state;
    ChipStorageTaskArgs *args = fixture_args(0, SIMPLER_ADDRESS_SPACE_DEVICE);
    SimplerGraphRequirements r, before;
    memset(&r, 0xab, sizeof(r));
    before = r;
    for (uint64_t k = 1;; k++) {
        uint64_t allocs = host_alloc_count(), frees = host_free_count();
        host_alloc_fail_nth(k);
        int rc = simpler_graph_requirements(image, image_size, args, &r);
        host_alloc_fail_nth(0);
        assert_reason_fits_status(rc);
        uint64_t made = host_alloc_count() - allocs;
        if (rc == 0) {
            assert_int_equal(host_free_count() - frees, made);
            assert_true(k > made);
            assert_int_equal(r.task_count, 4);
            break;
        }
        assert_int_equal(rc, PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        assert_int_equal(host_free_count() - frees, made - 1);
        assert_memory_equal(&r, &before, sizeof(r));
    }
    free(args);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(graph_requirements_api_diamond_matches_hand_computed),
        cmocka_unit_test(graph_requirements_api_sizes_graphs_past_the_first_window),
        cmocka_unit_test(graph_requirements_api_failure_changes_nothing),
        cmocka_unit_test(graph_requirements_api_allocation_failure_sweep_leaks_nothing),
    };
    return cmocka_run_group_tests(tests, load_image, free_image);
}
