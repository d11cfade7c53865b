/*
 * Kernel faults: a kernel that reports a fault makes its stream fail,
 * sticky; later work on it is skipped but event records complete.
 */
#include "fixture.h"

#define FAULT 777

static void kernel_fault_is_sticky_on_synchronize_and_query(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    fix_launch_fault(stream, FAULT);
    assert_int_equal(simdev_stream_synchronize(stream), FAULT);
    assert_int_equal(simdev_stream_query(stream), FAULT);
    assert_int_equal(simdev_stream_synchronize(stream), FAULT);
    fix_launch_fault(stream, FAULT + 1);
    assert_int_equal(simdev_stream_synchronize(stream), FAULT);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void kernel_fault_skips_later_work_but_completes_records(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream(), other = fix_stream();
    simdev_event_t event = fix_event();
    uint32_t *buf = fix_malloc(64);
    assert_int_equal(simdev_memset(buf, 0x11, 64), SIMDEV_SUCCESS);
    atomic_int runs = 0, other_runs = 0;
    uint32_t host[16];
    memset(host, 0x22, sizeof host);
    fix_launch_fault(stream, FAULT);
    fix_launch_count(stream, &runs);
    assert_int_equal(simdev_launch_host_func(stream, fix_count_host_fn, &runs), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset_async(buf, 0x33, 64, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy_async(buf, host, 64, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(event, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(other, event), SIMDEV_SUCCESS);
    fix_launch_count(other, &other_runs);
    assert_int_equal(simdev_stream_synchronize(stream), FAULT);
    assert_int_equal(simdev_event_synchronize(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_query(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(other), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&runs), 0);
    assert_int_equal(atomic_load(&other_runs), 1);
    fix_assert_words(buf, 16, 0x11111111u);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(other), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void device_synchronize_returns_kernel_fault(void **state)
{
    (void)state;
    simdev_stream_t healthy = fix_stream(), faulty = fix_stream();
    atomic_int runs = 0;
    fix_launch_count(healthy, &runs);
    fix_launch_fault(faulty, FAULT);
    assert_int_equal(simdev_device_synchronize(), FAULT);
    assert_int_equal(simdev_stream_synchronize(healthy), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&runs), 1);
    /* The other device is not affected. */
    assert_int_equal(simdev_set_device(1), SIMDEV_SUCCESS);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    assert_int_equal(simdev_set_device(0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(faulty), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(healthy), SIMDEV_SUCCESS);
}

static void device_reset_clears_kernel_faults(void **state)
{
    (void)state;
    simdev_stream_t faulty = fix_stream();
    fix_launch_fault(faulty, FAULT);
    assert_int_equal(simdev_device_synchronize(), FAULT);
    assert_int_equal(simdev_reset_device(0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    simdev_stream_t fresh = fix_stream();
    atomic_int runs = 0;
    fix_launch_count(fresh, &runs);
    assert_int_equal(simdev_stream_synchronize(fresh), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&runs), 1);
    assert_int_equal(simdev_stream_destroy(fresh), SIMDEV_SUCCESS);
}

static void graph_replay_kernel_fault_fails_launch_stream(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    fix_launch_fault(stream, FAULT);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_launch(graph, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), FAULT);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* Any block may report the fault (whether sibling blocks still run is
 * not specified). */
static void block_fault_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    atomic_fetch_add(*(atomic_int *const *)args, 1);
    if (block_idx == 5)
        simdev_kernel_report_fault(FAULT);
}

static void kernel_fault_from_any_block_fails_the_launch(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    atomic_int blocks = 0;
    atomic_int *p = &blocks;
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, block_fault_kernel, 8, &p, sizeof p),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), FAULT);
    assert_true(atomic_load(&blocks) >= 1);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* A fault on a side lane of a replay fails the stream the graph was
 * launched on. */
static void graph_replay_side_lane_fault_fails_launch_stream(void **state)
{
    (void)state;
    simdev_stream_t origin = fix_stream(), side = fix_stream(), launch = fix_stream();
    simdev_event_t fork = fix_event(), join = fix_event();
    atomic_int runs = 0;
    assert_int_equal(simdev_capture_begin(origin, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(fork, origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(side, fork), SIMDEV_SUCCESS);
    fix_launch_count(origin, &runs);
    fix_launch_fault(side, FAULT);
    assert_int_equal(simdev_event_record(join, side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(origin, join), SIMDEV_SUCCESS);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(origin, &graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_launch(graph, launch), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(launch), FAULT);
    assert_int_equal(simdev_stream_synchronize(origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(join), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(fork), SIMDEV_SUCCESS);
    simdev_stream_t all[] = {launch, side, origin};
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_stream_destroy(all[i]), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(kernel_fault_is_sticky_on_synchronize_and_query),
        FIX_TEST(kernel_fault_skips_later_work_but_completes_records),
        FIX_TEST(device_synchronize_returns_kernel_fault),
        FIX_TEST(device_reset_clears_kernel_faults),
        FIX_TEST(graph_replay_kernel_fault_fails_launch_stream),
        FIX_TEST(kernel_fault_from_any_block_fails_the_launch),
        FIX_TEST(graph_replay_side_lane_fault_fails_launch_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
