/*
 * Argument validation apart from handles: launch shapes and sizes, NULL
 * outputs, enum ranges. Each refusal has no effect.
 */
#include "fixture.h"

#include <stdlib.h>

static void launch_kernel_bad_shapes_refused_and_nothing_runs(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    atomic_int runs = 0;
    atomic_int *p = &runs;
    const uint32_t max_blocks = SIMDEV_MAX_ENGINE_THREADS * 16;
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, NULL, 1, &p, sizeof p),
                     SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, fix_count_kernel, 0, &p, sizeof p),
                     SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, fix_count_kernel, max_blocks + 1, &p,
                                          sizeof p),
                     SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, fix_count_kernel, 1, NULL, sizeof p),
                     SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_launch_kernel(stream, (simdev_engine)2, fix_count_kernel, 1, &p, sizeof p),
                     SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, fix_count_kernel, 1, &p,
                                          (size_t)SIMDEV_KERNEL_ARGS_MAX + 1),
                     SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_launch_host_func(stream, NULL, &runs), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&runs), 0);
    /* The largest block count is accepted and every block runs. */
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, fix_count_kernel, max_blocks, &p, sizeof p),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&runs), 1);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void noop_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    (void)args;
}

static void launch_kernel_without_args_accepted(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, noop_kernel, 1, NULL, 0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

struct big_args {
    atomic_int *bad;
    atomic_int *runs;
    uint8_t bytes[SIMDEV_KERNEL_ARGS_MAX - 64];
};

static void big_args_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    const struct big_args *a = args;
    if (block_idx != 0)
        return;
    for (size_t i = 0; i < sizeof a->bytes; i += 4093)
        if (a->bytes[i] != (uint8_t)(i % 251))
            atomic_fetch_add(a->bad, 1);
    if (a->bytes[sizeof a->bytes - 1] != 0x7E)
        atomic_fetch_add(a->bad, 1);
    atomic_fetch_add(a->runs, 1);
}

/* The largest argument block is copied by value, to its last byte. */
static void launch_kernel_largest_args_copied_by_value(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    struct big_args *a = malloc(sizeof *a);
    assert_non_null(a);
    atomic_int bad = 0, runs = 0;
    a->bad = &bad;
    a->runs = &runs;
    for (size_t i = 0; i < sizeof a->bytes; i++)
        a->bytes[i] = (uint8_t)(i % 251);
    a->bytes[sizeof a->bytes - 1] = 0x7E;
    struct fix_gate *gate = fix_gate_new();
    assert_int_equal(simdev_launch_host_func(stream, fix_gate_host_fn, gate), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, big_args_kernel, 2, a, sizeof *a),
                     SIMDEV_SUCCESS);
    memset(a->bytes, 0, sizeof a->bytes);
    fix_gate_open(gate);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&runs), 1);
    assert_int_equal(atomic_load(&bad), 0);
    free(a);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void null_outputs_refused_with_invalid_param(void **state)
{
    (void)state;
    simdev_counters counters;
    assert_int_equal(simdev_stream_create(NULL), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_event_create(NULL), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_get_counters(NULL), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_get_thread_counters(NULL), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_get_device_counters(0, NULL), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_get_device_counters(FIX_DEVICES, &counters), SIMDEV_ERROR_INVALID_DEVICE);
    assert_int_equal(simdev_get_config(NULL), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_config_default(NULL), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_get_counters(&counters), SIMDEV_SUCCESS);
    assert_int_equal(counters.stream_create_calls, 1);
    assert_int_equal(counters.event_create_calls, 1);
}

static void capture_null_outputs_refused_and_capture_stays_active(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    assert_int_equal(simdev_capture_begin(stream, (simdev_capture_mode)3), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(fix_status(stream), SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_end(stream, NULL), SIMDEV_ERROR_INVALID_PARAM);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_get_info(stream, NULL, &graph), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(fix_status(stream), SIMDEV_CAPTURE_STATUS_ACTIVE);
    assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_node_count(graph, NULL), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void kernel_report_fault_outside_kernel_refused(void **state)
{
    (void)state;
    assert_int_equal(simdev_kernel_report_fault(SIMDEV_ERROR_KERNEL_FAULT), SIMDEV_ERROR_INVALID_PARAM);
}

static void fault_inject_bad_arguments_refused(void **state)
{
    (void)state;
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_CLASS_COUNT, 1, SIMDEV_ERROR_KERNEL_FAULT),
                     SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_fault_inject((simdev_call_class)-1, 1, SIMDEV_ERROR_KERNEL_FAULT),
                     SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_MALLOC, 1, 0), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_MALLOC, 0, SIMDEV_ERROR_KERNEL_FAULT),
                     SIMDEV_ERROR_INVALID_PARAM);
    /* None of those armed anything. */
    void *ptr = fix_malloc(64);
    assert_int_equal(simdev_free(ptr), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(launch_kernel_bad_shapes_refused_and_nothing_runs),
        FIX_TEST(launch_kernel_without_args_accepted),
        FIX_TEST(launch_kernel_largest_args_copied_by_value),
        FIX_TEST(null_outputs_refused_with_invalid_param),
        FIX_TEST(capture_null_outputs_refused_and_capture_stays_active),
        FIX_TEST(kernel_report_fault_outside_kernel_refused),
        FIX_TEST(fault_inject_bad_arguments_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
