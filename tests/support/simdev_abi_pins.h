/* The simdev ABI pins both ABI suites assert (unit/abi and unit/simdev):
 * every status value and the layout of every public struct, field by
 * field. An ABI change must edit this file. */
#ifndef SIMPLER_TEST_SIMDEV_ABI_PINS_H
#define SIMPLER_TEST_SIMDEV_ABI_PINS_H

#include <stddef.h>

#include "support.h"

#include "simpler/simdev.h"

#define SIMDEV_PIN(type, field, off) assert_int_equal(offsetof(type, field), (off))

static inline void simdev_abi_status_assert_pinned(void)
{
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

static inline void simdev_abi_config_assert_pinned(void)
{
    assert_int_equal(sizeof(simdev_config), 64);
    SIMDEV_PIN(simdev_config, struct_size, 0);
    SIMDEV_PIN(simdev_config, device_count, 4);
    SIMDEV_PIN(simdev_config, hbm_bytes, 8);
    SIMDEV_PIN(simdev_config, aic_cores, 16);
    SIMDEV_PIN(simdev_config, aiv_cores, 20);
    SIMDEV_PIN(simdev_config, aicpu_threads, 24);
    SIMDEV_PIN(simdev_config, debug_fill, 28);
    SIMDEV_PIN(simdev_config, engine_affinity, 32);
    SIMDEV_PIN(simdev_config, reserved0, 36);
    SIMDEV_PIN(simdev_config, reserved, 40);
}

static inline void simdev_abi_mem_info_assert_pinned(void)
{
    assert_int_equal(sizeof(simdev_mem_info), 32);
    SIMDEV_PIN(simdev_mem_info, hbm_bytes, 0);
    SIMDEV_PIN(simdev_mem_info, committed_bytes, 8);
    SIMDEV_PIN(simdev_mem_info, high_water_bytes, 16);
    SIMDEV_PIN(simdev_mem_info, live_allocations, 24);
}

static inline void simdev_abi_counters_assert_pinned(void)
{
    assert_int_equal(sizeof(simdev_counters), 20 * 8);
    SIMDEV_PIN(simdev_counters, malloc_calls, 0);
    SIMDEV_PIN(simdev_counters, free_calls, 8);
    SIMDEV_PIN(simdev_counters, memcpy_sync_calls, 16);
    SIMDEV_PIN(simdev_counters, memcpy_async_calls, 24);
    SIMDEV_PIN(simdev_counters, memset_calls, 32);
    SIMDEV_PIN(simdev_counters, synchronize_calls, 40);
    SIMDEV_PIN(simdev_counters, query_calls, 48);
    SIMDEV_PIN(simdev_counters, capture_query_calls, 56);
    SIMDEV_PIN(simdev_counters, stream_create_calls, 64);
    SIMDEV_PIN(simdev_counters, event_create_calls, 72);
    SIMDEV_PIN(simdev_counters, kernel_launches, 80);
    SIMDEV_PIN(simdev_counters, graph_launches, 88);
    SIMDEV_PIN(simdev_counters, event_record_calls, 96);
    SIMDEV_PIN(simdev_counters, event_wait_calls, 104);
    SIMDEV_PIN(simdev_counters, host_func_calls, 112);
    SIMDEV_PIN(simdev_counters, stream_destroy_calls, 120);
    SIMDEV_PIN(simdev_counters, event_destroy_calls, 128);
    SIMDEV_PIN(simdev_counters, capture_begin_calls, 136);
    SIMDEV_PIN(simdev_counters, capture_end_calls, 144);
    SIMDEV_PIN(simdev_counters, graph_destroy_calls, 152);
}

#endif
