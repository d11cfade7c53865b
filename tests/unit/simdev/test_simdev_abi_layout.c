/*
 * Pins the simdev ABI: status values, limits, enum values and the layout
 * of every public struct. An ABI change must edit this test or
 * simdev_abi_pins.h, which holds the pins unit/abi asserts too.
 */
#include <stddef.h>

#include "simdev_abi_pins.h"
#include "support.h"
#include "simpler/simdev.h"

static void abi_status_values_are_pinned(void **state)
{
    (void)state;
    simdev_abi_status_assert_pinned();
}

/* The ring sizes may be tuned; what callers rely on is pinned, and the
 * ring must hold the largest argument block at least once. */
static void abi_limits_hold_what_callers_rely_on(void **state)
{
    (void)state;
    assert_int_equal(SIMDEV_MAX_DEVICES, 8);
    assert_int_equal(SIMDEV_MAX_ENGINE_THREADS, 64);
    assert_int_equal(SIMDEV_ALLOC_ALIGN, 1024);
    assert_true(SIMDEV_KERNEL_ARGS_MAX >= (1u << 20));
    assert_true(SIMDEV_STREAM_RING_ARG_BYTES >= SIMDEV_KERNEL_ARGS_MAX);
    assert_true(SIMDEV_STREAM_RING_OPS >= 2);
}

static void abi_enum_values_are_pinned(void **state)
{
    (void)state;
    assert_int_equal(SIMDEV_CAPTURE_MODE_GLOBAL, 0);
    assert_int_equal(SIMDEV_CAPTURE_MODE_THREAD_LOCAL, 1);
    assert_int_equal(SIMDEV_CAPTURE_MODE_RELAXED, 2);
    assert_int_equal(SIMDEV_CAPTURE_STATUS_NONE, 0);
    assert_int_equal(SIMDEV_CAPTURE_STATUS_ACTIVE, 1);
    assert_int_equal(SIMDEV_CAPTURE_STATUS_INVALIDATED, 2);
    assert_int_equal(SIMDEV_ENGINE_AICPU, 0);
    assert_int_equal(SIMDEV_ENGINE_AICORE, 1);
    assert_int_equal(SIMDEV_CALL_ANY, 0);
    assert_int_equal(SIMDEV_CALL_MALLOC, 1);
    assert_int_equal(SIMDEV_CALL_KERNEL_LAUNCH, 11);
    assert_int_equal(SIMDEV_CALL_GRAPH_DESTROY, 20);
    assert_int_equal(SIMDEV_CALL_CLASS_COUNT, 21);
}

static void abi_config_layout_is_pinned(void **state)
{
    (void)state;
    simdev_abi_config_assert_pinned();
}

static void abi_mem_info_and_counters_layout_is_pinned(void **state)
{
    (void)state;
    simdev_abi_mem_info_assert_pinned();
    simdev_abi_counters_assert_pinned();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(abi_status_values_are_pinned),
        cmocka_unit_test(abi_limits_hold_what_callers_rely_on),
        cmocka_unit_test(abi_enum_values_are_pinned),
        cmocka_unit_test(abi_config_layout_is_pinned),
        cmocka_unit_test(abi_mem_info_and_counters_layout_is_pinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
