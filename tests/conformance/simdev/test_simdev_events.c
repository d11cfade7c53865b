/*
 * Events, CUDA-like: a record captures the stream's position, a wait
 * waits for the latest record at the time it is enqueued, and a
 * never-recorded event is complete.
 */
#include "fixture.h"

static void event_never_recorded_is_complete(void **state)
{
    (void)state;
    simdev_event_t event = fix_event();
    simdev_stream_t stream = fix_stream();
    struct fix_log log = {0};
    assert_int_equal(simdev_event_query(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_synchronize(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(stream, event), SIMDEV_SUCCESS);
    fix_launch_log(stream, &log, 1);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&log.count), 1);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(event), SIMDEV_SUCCESS);
}

static void event_record_completes_when_stream_reaches_it(void **state)
{
    (void)state;
    simdev_event_t event = fix_event();
    simdev_stream_t stream = fix_stream();
    struct fix_gate *gate = fix_gate_new();
    assert_int_equal(simdev_launch_host_func(stream, fix_gate_host_fn, gate), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(event, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_query(event), SIMDEV_ERROR_NOT_READY);
    fix_gate_open(gate);
    assert_int_equal(simdev_event_synchronize(event), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&gate->passed), 1);
    assert_int_equal(simdev_event_query(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&gate->timeouts), 0);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(event), SIMDEV_SUCCESS);
}

static void event_wait_orders_other_stream_after_record(void **state)
{
    (void)state;
    simdev_event_t event = fix_event();
    simdev_stream_t a = fix_stream(), b = fix_stream();
    struct fix_log log = {0};
    struct fix_gate *gate = fix_gate_new();
    assert_int_equal(simdev_launch_host_func(a, fix_gate_host_fn, gate), SIMDEV_SUCCESS);
    fix_launch_log(a, &log, 1);
    assert_int_equal(simdev_event_record(event, a), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(b, event), SIMDEV_SUCCESS);
    fix_launch_log(b, &log, 2);
    assert_int_equal(simdev_stream_query(b), SIMDEV_ERROR_NOT_READY);
    fix_gate_open(gate);
    assert_int_equal(simdev_stream_synchronize(b), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&log.count), 2);
    assert_int_equal(log.values[0], 1);
    assert_int_equal(log.values[1], 2);
    assert_int_equal(simdev_stream_synchronize(a), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(b), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(a), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(event), SIMDEV_SUCCESS);
}

static void raise_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    fix_flag_raise(*(struct fix_flag *const *)args);
}

/* B's wait was enqueued when the event held A's first record; a later
 * re-record behind a closed gate must not hold B back. */
static void event_wait_uses_latest_record_at_enqueue_time(void **state)
{
    (void)state;
    simdev_event_t event = fix_event();
    simdev_stream_t a = fix_stream(), b = fix_stream();
    struct fix_gate *first = fix_gate_new(), *second = fix_gate_new();
    struct fix_flag b_ran;
    fix_flag_init(&b_ran);
    struct fix_flag *b_ran_ptr = &b_ran;
    assert_int_equal(simdev_launch_host_func(a, fix_gate_host_fn, first), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(event, a), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(b, event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(b, SIMDEV_ENGINE_AICPU, raise_kernel, 1, &b_ran_ptr, sizeof b_ran_ptr),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_host_func(a, fix_gate_host_fn, second), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(event, a), SIMDEV_SUCCESS);
    fix_gate_open(first);
    int b_ran_before_second = fix_flag_wait(&b_ran);
    assert_int_equal(atomic_load(&second->passed), 0);
    fix_gate_open(second);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    assert_true(b_ran_before_second);
    assert_int_equal(atomic_load(&first->timeouts) + atomic_load(&second->timeouts), 0);
    fix_flag_deinit(&b_ran);
    assert_int_equal(simdev_stream_destroy(b), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(a), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(event), SIMDEV_SUCCESS);
}

/* A record replaces the previous one: after re-recording on an idle
 * stream the event is complete though its first record is still held. */
static void event_record_replaces_previous_record(void **state)
{
    (void)state;
    simdev_event_t event = fix_event();
    simdev_stream_t held = fix_stream(), idle = fix_stream();
    struct fix_gate *gate = fix_gate_new();
    assert_int_equal(simdev_launch_host_func(held, fix_gate_host_fn, gate), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(event, held), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_query(event), SIMDEV_ERROR_NOT_READY);
    assert_int_equal(simdev_event_record(event, idle), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(idle), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_query(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_synchronize(event), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&gate->passed), 0);
    fix_gate_open(gate);
    assert_int_equal(simdev_stream_synchronize(held), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&gate->timeouts), 0);
    assert_int_equal(simdev_stream_destroy(idle), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(held), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(event), SIMDEV_SUCCESS);
}

/* After a capture ends, an event recorded in it is no longer "captured"
 * and is usable for eager records again. */
static void event_recorded_in_ended_capture_is_usable_again(void **state)
{
    (void)state;
    simdev_event_t event = fix_event();
    simdev_stream_t stream = fix_stream();
    assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(event, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_query(event), SIMDEV_ERROR_EVENT_CAPTURED);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(event, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_synchronize(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_query(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(event), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(event_never_recorded_is_complete),
        FIX_TEST(event_record_completes_when_stream_reaches_it),
        FIX_TEST(event_wait_orders_other_stream_after_record),
        FIX_TEST(event_wait_uses_latest_record_at_enqueue_time),
        FIX_TEST(event_record_replaces_previous_record),
        FIX_TEST(event_recorded_in_ended_capture_is_usable_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
