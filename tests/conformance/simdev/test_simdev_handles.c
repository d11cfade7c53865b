/*
 * Every entry point that takes a stream, event or graph handle, given a
 * NULL, destroyed, never-created or wrong-device handle, returns its
 * documented status and changes nothing.
 */
#include "fixture.h"

#include <stdio.h>
#include <unistd.h>

#define SENTINEL_GRAPH ((simdev_graph_t)(uintptr_t)0x5EED)

struct ctx {
    simdev_stream_t stream;  /* valid, device 0 */
    simdev_event_t event;    /* valid, device 0 */
    simdev_graph_t graph;    /* valid, one counting node */
    uint8_t *buf;            /* device 0, 64 bytes of 0x11 */
    uint8_t host[64];
    atomic_int runs;
    atomic_int *runs_ptr;
    simdev_graph_t graph_out;
    simdev_capture_status status_out;
    size_t count_out;
    char path[256];
};

typedef int (*stream_call)(struct ctx *c, simdev_stream_t s);
typedef int (*event_call)(struct ctx *c, simdev_event_t e);
typedef int (*graph_call)(struct ctx *c, simdev_graph_t g);

static int s_memcpy_async(struct ctx *c, simdev_stream_t s) { return simdev_memcpy_async(c->buf, c->host, 16, s); }
static int s_memset_async(struct ctx *c, simdev_stream_t s) { return simdev_memset_async(c->buf, 0, 16, s); }
static int s_destroy(struct ctx *c, simdev_stream_t s) { (void)c; return simdev_stream_destroy(s); }
static int s_synchronize(struct ctx *c, simdev_stream_t s) { (void)c; return simdev_stream_synchronize(s); }
static int s_query(struct ctx *c, simdev_stream_t s) { (void)c; return simdev_stream_query(s); }
static int s_record(struct ctx *c, simdev_stream_t s) { return simdev_event_record(c->event, s); }
static int s_wait(struct ctx *c, simdev_stream_t s) { return simdev_stream_wait_event(s, c->event); }
static int s_kernel(struct ctx *c, simdev_stream_t s)
{
    return simdev_launch_kernel(s, SIMDEV_ENGINE_AICPU, fix_count_kernel, 1, &c->runs_ptr, sizeof c->runs_ptr);
}
static int s_host_func(struct ctx *c, simdev_stream_t s) { return simdev_launch_host_func(s, fix_count_host_fn, &c->runs); }
static int s_begin(struct ctx *c, simdev_stream_t s) { (void)c; return simdev_capture_begin(s, SIMDEV_CAPTURE_MODE_GLOBAL); }
static int s_end(struct ctx *c, simdev_stream_t s) { return simdev_capture_end(s, &c->graph_out); }
static int s_info(struct ctx *c, simdev_stream_t s) { return simdev_capture_get_info(s, &c->status_out, &c->graph_out); }
static int s_graph_launch(struct ctx *c, simdev_stream_t s) { return simdev_graph_launch(c->graph, s); }

static const stream_call stream_calls[] = {
    s_memcpy_async, s_memset_async, s_destroy, s_synchronize, s_query, s_record, s_wait,
    s_kernel,       s_host_func,    s_begin,   s_end,         s_info,  s_graph_launch,
};

static int e_destroy(struct ctx *c, simdev_event_t e) { (void)c; return simdev_event_destroy(e); }
static int e_record(struct ctx *c, simdev_event_t e) { return simdev_event_record(e, c->stream); }
static int e_wait(struct ctx *c, simdev_event_t e) { return simdev_stream_wait_event(c->stream, e); }
static int e_synchronize(struct ctx *c, simdev_event_t e) { (void)c; return simdev_event_synchronize(e); }
static int e_query(struct ctx *c, simdev_event_t e) { (void)c; return simdev_event_query(e); }

static const event_call event_calls[] = {e_destroy, e_record, e_wait, e_synchronize, e_query};

static int g_launch(struct ctx *c, simdev_graph_t g) { return simdev_graph_launch(g, c->stream); }
static int g_destroy(struct ctx *c, simdev_graph_t g) { (void)c; return simdev_graph_destroy(g); }
static int g_count(struct ctx *c, simdev_graph_t g) { return simdev_graph_node_count(g, &c->count_out); }
static int g_dot(struct ctx *c, simdev_graph_t g) { return simdev_graph_debug_dot(g, c->path); }

static const graph_call graph_calls[] = {g_launch, g_destroy, g_count, g_dot};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void ctx_init(struct ctx *c)
{
    memset(c, 0, sizeof *c);
    c->runs_ptr = &c->runs;
    c->stream = fix_stream();
    c->event = fix_event();
    c->buf = fix_malloc(64);
    assert_int_equal(simdev_memset(c->buf, 0x11, 64), SIMDEV_SUCCESS);
    memset(c->host, 0x22, sizeof c->host);
    simdev_stream_t capture = fix_stream();
    assert_int_equal(simdev_capture_begin(capture, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    fix_launch_count(capture, &c->runs);
    assert_int_equal(simdev_capture_end(capture, &c->graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(capture), SIMDEV_SUCCESS);
    c->graph_out = SENTINEL_GRAPH;
    c->status_out = (simdev_capture_status)77;
    c->count_out = 777;
    snprintf(c->path, sizeof c->path, "%s/tests/simdev_handles_%ld.dot", SIMPLER_BINARY_DIR, (long)getpid());
    remove(c->path);
}

/* Nothing ran, nothing was written, nothing is capturing. */
static void ctx_assert_untouched(struct ctx *c)
{
    assert_int_equal(simdev_set_device(1), SIMDEV_SUCCESS);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    assert_int_equal(simdev_set_device(0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&c->runs), 0);
    assert_ptr_equal(c->graph_out, SENTINEL_GRAPH);
    assert_int_equal(c->status_out, 77);
    assert_int_equal(c->count_out, 777);
    assert_int_equal(access(c->path, F_OK), -1);
    assert_int_equal(fix_status(c->stream), SIMDEV_CAPTURE_STATUS_NONE);
    fix_assert_words(c->buf, 16, 0x11111111u);
    assert_int_equal(simdev_event_query(c->event), SIMDEV_SUCCESS);
    assert_int_equal(fix_node_count(c->graph), 1);
}

static void ctx_deinit(struct ctx *c)
{
    assert_int_equal(simdev_graph_destroy(c->graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(c->buf), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(c->event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(c->stream), SIMDEV_SUCCESS);
}

static void run_stream_calls(struct ctx *c, simdev_stream_t bad, int expected)
{
    for (size_t i = 0; i < COUNT(stream_calls); i++) {
        int rc = stream_calls[i](c, bad);
        if (rc != expected)
            fail_msg("stream call %zu returned %d, expected %d", i, rc, expected);
    }
}

static void run_event_calls(struct ctx *c, simdev_event_t bad, int expected)
{
    for (size_t i = 0; i < COUNT(event_calls); i++) {
        int rc = event_calls[i](c, bad);
        if (rc != expected)
            fail_msg("event call %zu returned %d, expected %d", i, rc, expected);
    }
}

static void run_graph_calls(struct ctx *c, simdev_graph_t bad, int expected)
{
    for (size_t i = 0; i < COUNT(graph_calls); i++) {
        int rc = graph_calls[i](c, bad);
        if (rc != expected)
            fail_msg("graph call %zu returned %d, expected %d", i, rc, expected);
    }
}

static void handles_null_refused_with_invalid_param(void **state)
{
    (void)state;
    struct ctx c;
    ctx_init(&c);
    run_stream_calls(&c, NULL, SIMDEV_ERROR_INVALID_PARAM);
    run_event_calls(&c, NULL, SIMDEV_ERROR_INVALID_PARAM);
    run_graph_calls(&c, NULL, SIMDEV_ERROR_INVALID_PARAM);
    ctx_assert_untouched(&c);
    ctx_deinit(&c);
}

static void handles_destroyed_refused_with_invalid_handle(void **state)
{
    (void)state;
    struct ctx c;
    ctx_init(&c);
    simdev_stream_t dead_stream = fix_stream();
    simdev_event_t dead_event = fix_event();
    simdev_graph_t dead_graph = NULL;
    assert_int_equal(simdev_capture_begin(dead_stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_end(dead_stream, &dead_graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(dead_graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(dead_event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(dead_stream), SIMDEV_SUCCESS);
    run_stream_calls(&c, dead_stream, SIMDEV_ERROR_INVALID_HANDLE);
    run_event_calls(&c, dead_event, SIMDEV_ERROR_INVALID_HANDLE);
    run_graph_calls(&c, dead_graph, SIMDEV_ERROR_INVALID_HANDLE);
    ctx_assert_untouched(&c);
    ctx_deinit(&c);
}

static void handles_never_created_refused_with_invalid_handle(void **state)
{
    (void)state;
    struct ctx c;
    ctx_init(&c);
    static uint64_t fake[64];
    run_stream_calls(&c, (simdev_stream_t)(void *)fake, SIMDEV_ERROR_INVALID_HANDLE);
    run_event_calls(&c, (simdev_event_t)(void *)fake, SIMDEV_ERROR_INVALID_HANDLE);
    run_graph_calls(&c, (simdev_graph_t)(void *)fake, SIMDEV_ERROR_INVALID_HANDLE);
    /* Handles of one kind are not handles of another. */
    run_stream_calls(&c, (simdev_stream_t)(void *)c.event, SIMDEV_ERROR_INVALID_HANDLE);
    run_event_calls(&c, (simdev_event_t)(void *)c.stream, SIMDEV_ERROR_INVALID_HANDLE);
    run_graph_calls(&c, (simdev_graph_t)(void *)c.stream, SIMDEV_ERROR_INVALID_HANDLE);
    ctx_assert_untouched(&c);
    ctx_deinit(&c);
}

static void handles_of_other_device_refused_with_invalid_device(void **state)
{
    (void)state;
    struct ctx c;
    ctx_init(&c);
    assert_int_equal(simdev_set_device(1), SIMDEV_SUCCESS);
    simdev_stream_t foreign_stream = fix_stream();
    simdev_event_t foreign_event = fix_event();
    assert_int_equal(simdev_set_device(0), SIMDEV_SUCCESS);
    run_stream_calls(&c, foreign_stream, SIMDEV_ERROR_INVALID_DEVICE);
    run_event_calls(&c, foreign_event, SIMDEV_ERROR_INVALID_DEVICE);
    ctx_assert_untouched(&c);
    assert_int_equal(simdev_set_device(1), SIMDEV_SUCCESS);
    assert_int_equal(fix_status(foreign_stream), SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(simdev_event_query(foreign_event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(foreign_event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(foreign_stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_set_device(0), SIMDEV_SUCCESS);
    ctx_deinit(&c);
}

/* Handles die with simdev_finalize: after a fresh configure, an old
 * stream is unknown. */
static void handles_from_before_finalize_refused(void **state)
{
    simdev_stream_t old_stream = fix_stream();
    simdev_event_t old_event = fix_event();
    assert_int_equal(simdev_finalize(), SIMDEV_SUCCESS);
    assert_int_equal(fix_setup(state), 0);
    assert_int_equal(simdev_stream_query(old_stream), SIMDEV_ERROR_INVALID_HANDLE);
    assert_int_equal(simdev_event_query(old_event), SIMDEV_ERROR_INVALID_HANDLE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(handles_null_refused_with_invalid_param),
        FIX_TEST(handles_destroyed_refused_with_invalid_handle),
        FIX_TEST(handles_never_created_refused_with_invalid_handle),
        FIX_TEST(handles_of_other_device_refused_with_invalid_device),
        FIX_TEST(handles_from_before_finalize_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
