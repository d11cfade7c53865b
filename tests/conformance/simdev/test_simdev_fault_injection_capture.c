/*
 * Fault injection on calls bound for an active capture: like any injected
 * fault, the call returns the code with no effect (simdev.h: "returns
 * `code` (nonzero) without any effect"), so the capture stays ACTIVE,
 * records no node, and ends with a usable graph.
 */
#include "fixture.h"

#define CODE 4242

struct ctx {
    simdev_stream_t origin, side;
    simdev_event_t fork, join;
    uint8_t *buf;
    uint8_t host[64];
    atomic_int runs;
    atomic_int *runs_ptr;
};

static int kernel_call(struct ctx *c)
{
    return simdev_launch_kernel(c->origin, SIMDEV_ENGINE_AICPU, fix_count_kernel, 1, &c->runs_ptr,
                                sizeof c->runs_ptr);
}
static int memcpy_async_call(struct ctx *c) { return simdev_memcpy_async(c->buf, c->host, 64, c->origin); }
static int memset_async_call(struct ctx *c) { return simdev_memset_async(c->buf, 0, 64, c->origin); }
static int host_func_call(struct ctx *c) { return simdev_launch_host_func(c->origin, fix_count_host_fn, &c->runs); }
static int record_call(struct ctx *c) { return simdev_event_record(c->fork, c->origin); }

static const struct {
    simdev_call_class cls;
    int (*call)(struct ctx *c);
} probes[] = {
    {SIMDEV_CALL_KERNEL_LAUNCH, kernel_call}, {SIMDEV_CALL_MEMCPY_ASYNC, memcpy_async_call},
    {SIMDEV_CALL_MEMSET, memset_async_call},  {SIMDEV_CALL_HOST_FUNC, host_func_call},
    {SIMDEV_CALL_EVENT_RECORD, record_call},
};

static void ctx_init(struct ctx *c)
{
    memset(c, 0, sizeof *c);
    c->runs_ptr = &c->runs;
    c->origin = fix_stream();
    c->side = fix_stream();
    c->fork = fix_event();
    c->join = fix_event();
    c->buf = fix_malloc(64);
}

static void ctx_deinit(struct ctx *c)
{
    assert_int_equal(simdev_free(c->buf), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(c->join), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(c->fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(c->side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(c->origin), SIMDEV_SUCCESS);
}

static void end_with_nodes(simdev_stream_t stream, size_t nodes)
{
    assert_int_equal(fix_status(stream), SIMDEV_CAPTURE_STATUS_ACTIVE);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_SUCCESS);
    assert_int_equal(fix_node_count(graph), nodes);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
}

static void fault_inject_on_captured_call_leaves_capture_active(void **state)
{
    (void)state;
    struct ctx c;
    ctx_init(&c);
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        assert_int_equal(simdev_capture_begin(c.origin, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
        assert_int_equal(simdev_fault_inject(probes[i].cls, 1, CODE), SIMDEV_SUCCESS);
        int rc = probes[i].call(&c);
        if (rc != CODE)
            fail_msg("class %d returned %d, expected %d", (int)probes[i].cls, rc, CODE);
        rc = fix_status(c.origin);
        if (rc != SIMDEV_CAPTURE_STATUS_ACTIVE)
            fail_msg("class %d: capture status %d after the injected call", (int)probes[i].cls, rc);
        assert_int_equal(probes[i].call(&c), SIMDEV_SUCCESS);
        end_with_nodes(c.origin, probes[i].cls == SIMDEV_CALL_EVENT_RECORD ? 0 : 1);
    }
    assert_int_equal(atomic_load(&c.runs), 0);
    ctx_deinit(&c);
}

/* A refused fork leaves the side stream outside the capture. */
static void fault_inject_on_fork_wait_leaves_side_stream_out(void **state)
{
    (void)state;
    struct ctx c;
    ctx_init(&c);
    assert_int_equal(simdev_capture_begin(c.origin, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(c.fork, c.origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_EVENT_WAIT, 1, CODE), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(c.side, c.fork), CODE);
    assert_int_equal(fix_status(c.side), SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(fix_status(c.origin), SIMDEV_CAPTURE_STATUS_ACTIVE);
    assert_int_equal(simdev_stream_wait_event(c.side, c.fork), SIMDEV_SUCCESS);
    assert_int_equal(fix_status(c.side), SIMDEV_CAPTURE_STATUS_ACTIVE);
    assert_int_equal(simdev_event_record(c.join, c.side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(c.origin, c.join), SIMDEV_SUCCESS);
    end_with_nodes(c.origin, 0);
    ctx_deinit(&c);
}

/* An injected capture_end fault leaves the capture as it was. */
static void fault_inject_on_capture_end_leaves_capture_active(void **state)
{
    (void)state;
    struct ctx c;
    ctx_init(&c);
    assert_int_equal(simdev_capture_begin(c.origin, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(kernel_call(&c), SIMDEV_SUCCESS);
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_CAPTURE_END, 1, CODE), SIMDEV_SUCCESS);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(c.origin, &graph), CODE);
    assert_null(graph);
    end_with_nodes(c.origin, 1);
    ctx_deinit(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(fault_inject_on_captured_call_leaves_capture_active),
        FIX_TEST(fault_inject_on_fork_wait_leaves_side_stream_out),
        FIX_TEST(fault_inject_on_capture_end_leaves_capture_active),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
