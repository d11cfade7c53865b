/*
 * Pins the simdev ABI: status values, limits, enum values and the layout
 * of every public struct. An ABI change must edit this test.
 */
#include <stddef.h>

#include "support.h"
#include "simpler/simdev.h"

static void abi_status_values_are_pinned(void **state)
{
    (void)state;
    assert_int_equal(SIMDEV_SUCCESS, 0);
    assert_int_equal(SIMDEV_ERROR_INVALID_PARAM, 107000);
    assert_int_equal(SIMDEV_ERROR_INVALID_DEVICE, 107001);
    assert_int_equal(SIMDEV_ERROR_INVALID_HANDLE, 107002);
    assert_int_equal(SIMDEV_ERROR_CAPTURE_DEPENDENCY, 107024);
    assert_int_equal(SIMDEV_ERROR_STREAM_UNJOINED, 107025);
    assert_int_equal(SIMDEV_ERROR_STREAM_CAPTURED, 107027);
    assert_int_equal(SIMDEV_ERROR_EVENT_CAPTURED, 107028);
    assert_int_equal(SIMDEV_ERROR_CAPTURE_MODE_NOT_SUPPORT, 107030);
    assert_int_equal(SIMDEV_ERROR_STREAM_CAPTURE_CONFLICT, 107032);
    assert_int_equal(SIMDEV_ERROR_STREAM_CAPTURE_UNMATCHED, 107036);
    assert_int_equal(SIMDEV_ERROR_STREAM_CAPTURE_WRONG_THREAD, 107038);
    assert_int_equal(SIMDEV_ERROR_REPEAT_INITIALIZE, 100002);
    assert_int_equal(SIMDEV_ERROR_NOT_READY, 207000);
    assert_int_equal(SIMDEV_ERROR_MEMORY_ALLOCATION, 207001);
    assert_int_equal(SIMDEV_ERROR_KERNEL_FAULT, 507000);
    assert_int_equal(SIMDEV_ERROR_STREAM_CAPTURE_INVALIDATED, 507903);
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
    assert_int_equal(sizeof(simdev_config), 64);
    assert_int_equal(offsetof(simdev_config, struct_size), 0);
    assert_int_equal(offsetof(simdev_config, device_count), 4);
    assert_int_equal(offsetof(simdev_config, hbm_bytes), 8);
    assert_int_equal(offsetof(simdev_config, aic_cores), 16);
    assert_int_equal(offsetof(simdev_config, aiv_cores), 20);
    assert_int_equal(offsetof(simdev_config, aicpu_threads), 24);
    assert_int_equal(offsetof(simdev_config, debug_fill), 28);
    assert_int_equal(offsetof(simdev_config, reserved), 32);
}

static void abi_mem_info_and_counters_layout_is_pinned(void **state)
{
    (void)state;
    assert_int_equal(sizeof(simdev_mem_info), 32);
    assert_int_equal(offsetof(simdev_mem_info, committed_bytes), 8);
    assert_int_equal(offsetof(simdev_mem_info, high_water_bytes), 16);
    assert_int_equal(offsetof(simdev_mem_info, live_allocations), 24);
    assert_int_equal(sizeof(simdev_counters), 20 * 8);
    assert_int_equal(offsetof(simdev_counters, malloc_calls), 0);
    assert_int_equal(offsetof(simdev_counters, kernel_launches), 10 * 8);
    assert_int_equal(offsetof(simdev_counters, graph_destroy_calls), 19 * 8);
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
