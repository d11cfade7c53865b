/* residency: id ranges by the caller's limit, generations counting
 * occupancies, empty-slot refusals, replacement, and failed calls that
 * change nothing. */
#define _GNU_SOURCE /* dl_iterate_phdr */

#include "support.h"

#include "callable/residency.h"
#include "common/host_alloc.h"
#include "fixture_image.h"
#include "simpler/runtime_c_api.h"

static uint8_t *image;
static size_t image_size;

static int setup(void **state)
{
    (void)state;
    image = fixture_image(FIXTURE("callable_fixture_orch"), "fixture_orch", FIXTURE("callable_fixture_kernel1"), 4,
                          NULL, 0, &image_size);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(image);
    return 0;
}

static void residency_first_prepare_gives_generation_one(void **state)
{
    (void)state;
    residency_table t;
    callable_dlopen_counts counts = {0, 0};
    assert_int_equal(residency_init(&t, SIMPLER_MAX_CALLABLES_PROGRAM), 0);
    uint64_t gen = 0;
    assert_int_equal(residency_prepare(&t, 7, image, image_size, &counts, 0, &gen), 0);
    assert_int_equal(gen, 1);
    const loaded_callable *lc = NULL;
    uint64_t looked = 0;
    assert_int_equal(residency_lookup(&t, 7, &lc, &looked), 0);
    assert_non_null(lc);
    assert_int_equal(looked, 1);
    assert_int_equal(atomic_load(&counts.host), 1);
    assert_int_equal(atomic_load(&counts.aicpu), 1);
    residency_deinit(&t);
}

static void residency_unregister_then_register_gives_generation_two(void **state)
{
    (void)state;
    residency_table t;
    assert_int_equal(residency_init(&t, SIMPLER_MAX_CALLABLES_PROGRAM), 0);
    uint64_t gen = 0;
    assert_int_equal(residency_prepare(&t, 0, image, image_size, NULL, 0, &gen), 0);
    assert_int_equal(residency_remove(&t, 0), 0);
    assert_int_equal(residency_lookup(&t, 0, NULL, NULL), PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT);
    assert_int_equal(residency_prepare(&t, 0, image, image_size, NULL, 0, &gen), 0);
    assert_int_equal(gen, 2);
    /* Another slot counts its own occupancies. */
    assert_int_equal(residency_prepare(&t, 1, image, image_size, NULL, 0, &gen), 0);
    assert_int_equal(gen, 1);
    residency_deinit(&t);
}

static void residency_remove_of_empty_slot_is_not_resident(void **state)
{
    (void)state;
    residency_table t;
    assert_int_equal(residency_init(&t, SIMPLER_MAX_CALLABLES_PROGRAM), 0);
    assert_int_equal(residency_remove(&t, 3), PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT);
    uint64_t gen = 0;
    assert_int_equal(residency_prepare(&t, 3, image, image_size, NULL, 0, &gen), 0);
    assert_int_equal(residency_remove(&t, 3), 0);
    assert_int_equal(residency_remove(&t, 3), PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT);
    assert_int_equal(t.slots[3].generation, 1);
    residency_deinit(&t);
}

static void residency_id_range_is_the_callers_limit(void **state)
{
    (void)state;
    residency_table program, kernel;
    assert_int_equal(residency_init(&program, SIMPLER_MAX_CALLABLES_PROGRAM), 0);
    assert_int_equal(residency_init(&kernel, SIMPLER_KERNEL_MAX_CALLABLES), 0);
    const int32_t bad[] = {-1, SIMPLER_MAX_CALLABLES_PROGRAM, INT32_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(residency_prepare(&program, bad[i], image, image_size, NULL, 0, NULL),
                         PTO_RUNTIME_ERR_INVALID_ARGUMENT);
        assert_int_equal(residency_remove(&program, bad[i]), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
        assert_int_equal(residency_lookup(&program, bad[i], NULL, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    }
    assert_int_equal(residency_prepare(&program, SIMPLER_MAX_CALLABLES_PROGRAM - 1, image, image_size, NULL, 0, NULL),
                     0);
    assert_int_equal(residency_prepare(&kernel, SIMPLER_MAX_CALLABLES_PROGRAM, image, image_size, NULL, 0, NULL), 0);
    assert_int_equal(residency_prepare(&kernel, SIMPLER_KERNEL_MAX_CALLABLES - 1, image, image_size, NULL, 0, NULL),
                     0);
    assert_int_equal(residency_prepare(&kernel, SIMPLER_KERNEL_MAX_CALLABLES, image, image_size, NULL, 0, NULL),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(residency_prepare(NULL, 0, image, image_size, NULL, 0, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    residency_deinit(&program);
    residency_deinit(&kernel);
}

static void residency_occupied_slot_refused_unless_replacing(void **state)
{
    (void)state;
    residency_table t;
    callable_dlopen_counts counts = {0, 0};
    assert_int_equal(residency_init(&t, SIMPLER_KERNEL_MAX_CALLABLES), 0);
    uint64_t gen = 0;
    assert_int_equal(residency_prepare(&t, 9, image, image_size, &counts, 0, &gen), 0);
    const loaded_callable *first = t.slots[9].callable;
    assert_int_equal(residency_prepare(&t, 9, image, image_size, &counts, 0, &gen), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_ptr_equal(t.slots[9].callable, first);
    assert_int_equal(t.slots[9].generation, 1);
    assert_int_equal(atomic_load(&counts.host), 1);
    int fds = fixture_open_fds();
    assert_int_equal(residency_prepare(&t, 9, image, image_size, &counts, 1, &gen), 0);
    assert_int_equal(gen, 2);
    assert_int_equal(atomic_load(&counts.host), 2);
    assert_int_equal(fixture_open_fds(), fds); /* the old callable's files closed */
    residency_deinit(&t);
}

static void residency_failed_prepare_changes_nothing(void **state)
{
    (void)state;
    residency_table t;
    callable_dlopen_counts counts = {0, 0};
    assert_int_equal(residency_init(&t, SIMPLER_MAX_CALLABLES_PROGRAM), 0);
    assert_int_equal(residency_prepare(&t, 2, image, image_size, &counts, 0, NULL), 0);
    const loaded_callable *before = t.slots[2].callable;
    uint64_t gen = 77;
    assert_int_equal(residency_prepare(&t, 2, image, image_size - 1, &counts, 1, &gen),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    for (uint64_t k = 1; k <= 2; k++) {
        host_alloc_fail_nth(k);
        assert_int_equal(residency_prepare(&t, 2, image, image_size, &counts, 1, &gen), PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        host_alloc_fail_nth(0);
    }
    assert_int_equal(gen, 77);
    assert_ptr_equal(t.slots[2].callable, before);
    assert_int_equal(t.slots[2].generation, 1);
    assert_int_equal(atomic_load(&counts.host), 1);
    assert_int_equal(atomic_load(&counts.aicpu), 1);
    residency_deinit(&t);
}

static void residency_init_refuses_bad_count_and_survives_oom(void **state)
{
    (void)state;
    residency_table t = {5, NULL};
    assert_int_equal(residency_init(NULL, 64), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(residency_init(&t, 0), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(residency_init(&t, SIMPLER_KERNEL_MAX_CALLABLES + 1), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    host_alloc_fail_nth(1);
    assert_int_equal(residency_init(&t, 64), PTO_RUNTIME_ERR_OUT_OF_MEMORY);
    host_alloc_fail_nth(0);
    assert_null(t.slots);
    residency_deinit(&t); /* safe after a failed init */
    assert_int_equal(residency_lookup(&t, 0, NULL, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
}

static void residency_deinit_unloads_every_slot(void **state)
{
    (void)state;
    int fds = fixture_open_fds();
    uint64_t allocs = host_alloc_count(), frees = host_free_count();
    residency_table t;
    assert_int_equal(residency_init(&t, 16), 0);
    for (int32_t id = 0; id < 16; id += 5)
        assert_int_equal(residency_prepare(&t, id, image, image_size, NULL, 0, NULL), 0);
    residency_deinit(&t);
    residency_deinit(&t);
    assert_int_equal(fixture_open_fds(), fds);
    assert_int_equal(host_alloc_count() - allocs, host_free_count() - frees);
}

static void residency_two_phase_install_publishes_only_on_install(void **state)
{
    (void)state;
    residency_table t;
    assert_int_equal(residency_init(&t, SIMPLER_MAX_CALLABLES_PROGRAM), 0);
    uint64_t next = 0, gen = 0;
    assert_int_equal(residency_next_generation(&t, 4, 0, &next), 0);
    assert_int_equal(next, 1);
    loaded_callable *lc = NULL;
    assert_int_equal(callable_load(image, image_size, NULL, &lc), 0);
    assert_int_equal(residency_lookup(&t, 4, NULL, NULL), PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT);
    assert_int_equal(residency_install(&t, 4, lc, 0, &gen), 0);
    assert_int_equal(gen, next);
    /* Occupied: refused without replace, nothing changes, caller keeps lc2. */
    loaded_callable *lc2 = NULL;
    assert_int_equal(callable_load(image, image_size, NULL, &lc2), 0);
    assert_int_equal(residency_next_generation(&t, 4, 0, &next), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(residency_install(&t, 4, lc2, 0, &gen), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_ptr_equal(t.slots[4].callable, lc);
    /* A step that fails between load and install: unload, no effect. */
    assert_int_equal(residency_next_generation(&t, 4, 1, &next), 0);
    assert_int_equal(next, 2);
    callable_unload(lc2);
    assert_ptr_equal(t.slots[4].callable, lc);
    assert_int_equal(t.slots[4].generation, 1);
    assert_int_equal(residency_install(&t, 4, NULL, 1, &gen), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(residency_next_generation(&t, 64, 1, &next), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(residency_next_generation(&t, 4, 1, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    residency_deinit(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(residency_first_prepare_gives_generation_one),
        cmocka_unit_test(residency_unregister_then_register_gives_generation_two),
        cmocka_unit_test(residency_remove_of_empty_slot_is_not_resident),
        cmocka_unit_test(residency_id_range_is_the_callers_limit),
        cmocka_unit_test(residency_occupied_slot_refused_unless_replacing),
        cmocka_unit_test(residency_failed_prepare_changes_nothing),
        cmocka_unit_test(residency_init_refuses_bad_count_and_survives_oom),
        cmocka_unit_test(residency_deinit_unloads_every_slot),
        cmocka_unit_test(residency_two_phase_install_publishes_only_on_install),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
