/* SimplerGraphSizer over the diamond image (fixtures.cmake): the same
 * numbers as simpler_graph_requirements, reuse without allocation, the
 * window it is made for, statuses with no effect, and allocation failure
 * sweeps of create and of a measure that grows the scratch. */
#include "diamond_image.h"
#include "reason_check.h"

#include "common/host_alloc.h"
#include "simpler/runtime_c_api.h"

static SimplerGraphSizer *sizer_new(uint32_t window)
{
    SimplerGraphSizer *sizer = NULL;
    assert_int_equal(simpler_graph_sizer_create(image, image_size, window, &sizer), 0);
    assert_non_null(sizer);
    return sizer;
}

static void graph_sizer_measures_what_graph_requirements_reports(void **state)
{
    (void)state;
    SimplerGraphSizer *sizer = sizer_new(0);
    const uint64_t modes[] = {0, 3};
    for (size_t i = 0; i < 2; i++) {
        ChipStorageTaskArgs *args = fixture_args(modes[i], SIMPLER_ADDRESS_SPACE_HOST);
        SimplerGraphRequirements want, got;
        memset(&got, 0xab, sizeof(got));
        assert_int_equal(simpler_graph_requirements(image, image_size, args, &want), 0);
        assert_int_equal(simpler_graph_sizer_measure(sizer, args, &got), 0);
        assert_memory_equal(&got, &want, sizeof(got));
        free(args);
    }
    simpler_graph_sizer_destroy(sizer);
}

static void graph_sizer_diamond_matches_hand_computed(void **state)
{
    (void)state;
    SimplerGraphSizer *sizer = sizer_new(0);
    ChipStorageTaskArgs *args = fixture_args(0, SIMPLER_ADDRESS_SPACE_HOST);
    SimplerGraphRequirements r;
    assert_int_equal(simpler_graph_sizer_measure(sizer, args, &r), 0);
    assert_diamond_requirements(&r);
    free(args);
    simpler_graph_sizer_destroy(sizer);
}

/* After the first measure of each size, a measure allocates nothing: the
 * callable stays loaded and a grown scratch is kept. */
static void graph_sizer_reuse_allocates_nothing(void **state)
{
    (void)state;
    SimplerGraphSizer *sizer = sizer_new(0);
    ChipStorageTaskArgs *small = fixture_args(0, SIMPLER_ADDRESS_SPACE_DEVICE);
    ChipStorageTaskArgs *big = fixture_args(3, SIMPLER_ADDRESS_SPACE_DEVICE);
    SimplerGraphRequirements r;

    uint64_t allocs = host_alloc_count();
    assert_int_equal(simpler_graph_sizer_measure(sizer, small, &r), 0);
    assert_int_equal(host_alloc_count(), allocs);
    assert_int_equal(simpler_graph_sizer_measure(sizer, big, &r), 0); /* grows */
    assert_int_equal(r.task_count, 1500);
    assert_true(host_alloc_count() > allocs);
    allocs = host_alloc_count();
    for (int i = 0; i < 3; i++) {
        assert_int_equal(simpler_graph_sizer_measure(sizer, big, &r), 0);
        assert_int_equal(r.task_count, 1500);
        assert_int_equal(simpler_graph_sizer_measure(sizer, small, &r), 0);
        assert_int_equal(r.task_count, 4);
    }
    assert_int_equal(host_alloc_count(), allocs);
    free(big);
    free(small);
    simpler_graph_sizer_destroy(sizer);
}

/* A sizer made for a window that holds the graph never grows. */
static void graph_sizer_window_given_at_create_is_used(void **state)
{
    (void)state;
    SimplerGraphSizer *sizer = sizer_new(2048);
    ChipStorageTaskArgs *big = fixture_args(3, SIMPLER_ADDRESS_SPACE_DEVICE);
    SimplerGraphRequirements r;
    uint64_t allocs = host_alloc_count();
    assert_int_equal(simpler_graph_sizer_measure(sizer, big, &r), 0);
    assert_int_equal(r.task_count, 1500);
    assert_int_equal(host_alloc_count(), allocs);
    free(big);
    simpler_graph_sizer_destroy(sizer);
}

static void graph_sizer_create_refusals_change_nothing(void **state)
{
    (void)state;
    SimplerGraphSizer *sizer = (SimplerGraphSizer *)(uintptr_t)0x1;
    uint64_t allocs = host_alloc_count(), frees = host_free_count();
    assert_int_equal(simpler_graph_sizer_create(NULL, image_size, 0, &sizer), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_graph_sizer_create(image, image_size, 0, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_graph_sizer_create(image, image_size, (1u << 20) + 1, &sizer),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_graph_sizer_create(image, image_size - 64, 0, &sizer),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_ptr_equal(sizer, (SimplerGraphSizer *)(uintptr_t)0x1);
    assert_int_equal(host_alloc_count() - allocs, host_free_count() - frees);
    simpler_graph_sizer_destroy(NULL);
}

static void graph_sizer_measure_refusals_change_nothing(void **state)
{
    (void)state;
    SimplerGraphSizer *sizer = sizer_new(0);
    SimplerGraphRequirements r, before;
    memset(&r, 0xab, sizeof(r));
    before = r;
    ChipStorageTaskArgs *args = fixture_args(1, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(simpler_graph_sizer_measure(sizer, args, &r), -7);
    args->scalars[0] = 2; /* func_id the image lacks */
    assert_int_equal(simpler_graph_sizer_measure(sizer, args, &r), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    args->scalars[0] = 0;
    assert_int_equal(simpler_graph_sizer_measure(NULL, args, &r), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_graph_sizer_measure(sizer, NULL, &r), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_graph_sizer_measure(sizer, args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    args->scalar_count = 0; /* disagrees with the image's signature */
    assert_int_equal(simpler_graph_sizer_measure(sizer, args, &r), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    args->scalar_count = 1;
    args->tensors[0].ndims = 6;
    assert_int_equal(simpler_graph_sizer_measure(sizer, args, &r), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_memory_equal(&r, &before, sizeof(r));

    /* The handle still measures after every refusal. */
    args->tensors[0].ndims = 1;
    assert_int_equal(simpler_graph_sizer_measure(sizer, args, &r), 0);
    assert_int_equal(r.task_count, 4);
    free(args);
    simpler_graph_sizer_destroy(sizer);
}

static void graph_sizer_create_failure_sweep_leaks_nothing(void **state)
{
    (void)state;
    for (uint64_t k = 1;; k++) {
        SimplerGraphSizer *sizer = NULL;
        uint64_t allocs = host_alloc_count(), frees = host_free_count();
        host_alloc_fail_nth(k);
        int rc = simpler_graph_sizer_create(image, image_size, 0, &sizer);
        host_alloc_fail_nth(0);
        assert_reason_fits_status(rc);
        uint64_t made = host_alloc_count() - allocs;
        if (rc == 0) {
            assert_true(k > made);
            simpler_graph_sizer_destroy(sizer);
            assert_int_equal(host_free_count() - frees, made);
            break;
        }
        assert_int_equal(rc, PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        assert_null(sizer);
        assert_int_equal(host_free_count() - frees, made - 1);
    }
}

/* A measure that must grow the scratch fails at each of its allocations
 * in turn: -1007, *out untouched, nothing leaked, and the handle measures
 * afterwards as if the failed call had not happened. */
static void growth_failure_sweep(uint32_t window)
{
    ChipStorageTaskArgs *big = fixture_args(3, SIMPLER_ADDRESS_SPACE_DEVICE);
    ChipStorageTaskArgs *small = fixture_args(0, SIMPLER_ADDRESS_SPACE_DEVICE);
    SimplerGraphRequirements r, before;
    memset(&r, 0xab, sizeof(r));
    before = r;
    for (uint64_t k = 1;; k++) {
        SimplerGraphSizer *sizer = sizer_new(window);
        uint64_t allocs = host_alloc_count(), frees = host_free_count();
        host_alloc_fail_nth(k);
        int rc = simpler_graph_sizer_measure(sizer, big, &r);
        host_alloc_fail_nth(0);
        assert_reason_fits_status(rc);
        uint64_t made = host_alloc_count() - allocs;
        if (rc == 0) {
            assert_true(k > made);
            assert_int_equal(r.task_count, 1500);
            simpler_graph_sizer_destroy(sizer);
            break;
        }
        assert_int_equal(rc, PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        assert_int_equal(host_free_count() - frees, made - 1);
        assert_memory_equal(&r, &before, sizeof(r));
        /* The old scratch is still the handle's: a small graph measures
         * with no allocation. */
        allocs = host_alloc_count();
        SimplerGraphRequirements ok;
        assert_int_equal(simpler_graph_sizer_measure(sizer, small, &ok), 0);
        assert_int_equal(ok.task_count, 4);
        assert_int_equal(host_alloc_count(), allocs);
        simpler_graph_sizer_destroy(sizer);
    }
    free(small);
    free(big);
}

static void graph_sizer_growth_failure_sweep_changes_nothing(void **state)
{
    (void)state;
    growth_failure_sweep(0);
}

/* From a 512-task window the 1500-task chain grows twice (1024, then
 * 2048): a failure in the second growth also frees the first one's
 * scratch, which the one-growth sweep above never reaches. */
static void graph_sizer_two_growths_failure_sweep_changes_nothing(void **state)
{
    (void)state;
    growth_failure_sweep(512);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(graph_sizer_measures_what_graph_requirements_reports),
        cmocka_unit_test(graph_sizer_diamond_matches_hand_computed),
        cmocka_unit_test(graph_sizer_reuse_allocates_nothing),
        cmocka_unit_test(graph_sizer_window_given_at_create_is_used),
        cmocka_unit_test(graph_sizer_create_refusals_change_nothing),
        cmocka_unit_test(graph_sizer_measure_refusals_change_nothing),
        cmocka_unit_test(graph_sizer_create_failure_sweep_leaks_nothing),
        cmocka_unit_test(graph_sizer_growth_failure_sweep_changes_nothing),
        cmocka_unit_test(graph_sizer_two_growths_failure_sweep_changes_nothing),
    };
    return cmocka_run_group_tests(tests, load_image, free_image);
}
