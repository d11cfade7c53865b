/*
 * Fault injection at every call class: the armed call returns the chosen
 * code, is counted, has no effect, and the next call of the class works.
 */
#include "fixture.h"

#include <stddef.h>

#define CODE 4242
#define SENTINEL ((void *)(uintptr_t)0x5EED)

struct ctx {
    simdev_stream_t stream, held, waiter, capture, tmp_stream;
    simdev_event_t held_event, tmp_event;
    struct fix_gate *gate; /* holds `held` until ctx_deinit */
    simdev_graph_t graph, tmp_graph, graph_out;
    uint8_t *buf;  /* device, 64 bytes of 0x11 */
    uint8_t host[64];
    void *ptr;
    simdev_stream_t stream_out;
    simdev_event_t event_out;
    simdev_capture_status status_out;
    simdev_mem_info mem;
    atomic_int runs;
    atomic_int *runs_ptr;
};

struct probe {
    simdev_call_class cls;
    size_t counter_offset;
    void (*prepare)(struct ctx *c);
    int (*call)(struct ctx *c);
    void (*assert_no_effect)(struct ctx *c);
    void (*finish)(struct ctx *c); /* after the successful call */
};

static void nothing(struct ctx *c) { (void)c; }

static void capture_begin_on(struct ctx *c)
{
    assert_int_equal(simdev_capture_begin(c->capture, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
}

static void capture_end_on(struct ctx *c)
{
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(c->capture, &graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
}

static void runs_unchanged(struct ctx *c)
{
    assert_int_equal(simdev_stream_synchronize(c->stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&c->runs), 0);
}

static void runs_once(struct ctx *c)
{
    assert_int_equal(simdev_stream_synchronize(c->stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&c->runs), 1);
    atomic_store(&c->runs, 0);
}

static void buf_unchanged(struct ctx *c)
{
    assert_int_equal(simdev_stream_synchronize(c->stream), SIMDEV_SUCCESS);
    fix_assert_words(c->buf, 16, 0x11111111u);
}

static void buf_restore(struct ctx *c)
{
    assert_int_equal(simdev_stream_synchronize(c->stream), SIMDEV_SUCCESS);
    uint8_t check[64];
    assert_int_equal(simdev_memcpy(check, c->buf, 64), SIMDEV_SUCCESS);
    assert_int_not_equal(check[0], 0x11);
    assert_int_equal(simdev_memset(c->buf, 0x11, 64), SIMDEV_SUCCESS);
}

static void snapshot_mem(struct ctx *c) { c->mem = fix_mem_info(0); }
static void mem_unchanged(struct ctx *c) { fix_assert_mem_info_equal(fix_mem_info(0), c->mem); }

/* MALLOC */
static void malloc_prepare(struct ctx *c) { c->ptr = SENTINEL; snapshot_mem(c); }
static int malloc_call(struct ctx *c) { return simdev_malloc(&c->ptr, 4096); }
static void malloc_no_effect(struct ctx *c) { assert_ptr_equal(c->ptr, SENTINEL); mem_unchanged(c); }
static void malloc_finish(struct ctx *c) { assert_int_equal(simdev_free(c->ptr), SIMDEV_SUCCESS); }

/* FREE */
static void free_prepare(struct ctx *c) { c->ptr = fix_malloc(4096); snapshot_mem(c); }
static int free_call(struct ctx *c) { return simdev_free(c->ptr); }

/* copies */
static int memcpy_sync_call(struct ctx *c) { return simdev_memcpy(c->buf, c->host, 64); }
static int memcpy_async_call(struct ctx *c) { return simdev_memcpy_async(c->buf, c->host, 64, c->stream); }
static int memset_call(struct ctx *c) { return simdev_memset(c->buf, 0x33, 64); }

/* SYNCHRONIZE, QUERY */
static int synchronize_call(struct ctx *c) { return simdev_stream_synchronize(c->stream); }
static int query_call(struct ctx *c) { return simdev_stream_query(c->stream); }

/* CAPTURE_QUERY */
static void info_prepare(struct ctx *c) { c->status_out = (simdev_capture_status)77; c->graph_out = SENTINEL; }
static int info_call(struct ctx *c) { return simdev_capture_get_info(c->stream, &c->status_out, &c->graph_out); }
static void info_no_effect(struct ctx *c)
{
    assert_int_equal(c->status_out, 77);
    assert_ptr_equal(c->graph_out, SENTINEL);
}

/* STREAM_CREATE, EVENT_CREATE */
static void create_prepare(struct ctx *c) { c->stream_out = SENTINEL; c->event_out = SENTINEL; }
static int stream_create_call(struct ctx *c) { return simdev_stream_create(&c->stream_out); }
static int event_create_call(struct ctx *c) { return simdev_event_create(&c->event_out); }
static void create_no_effect(struct ctx *c)
{
    assert_ptr_equal(c->stream_out, SENTINEL);
    assert_ptr_equal(c->event_out, SENTINEL);
}
static void stream_create_finish(struct ctx *c)
{
    assert_int_equal(simdev_stream_destroy(c->stream_out), SIMDEV_SUCCESS);
}
static void event_create_finish(struct ctx *c)
{
    assert_int_equal(simdev_event_destroy(c->event_out), SIMDEV_SUCCESS);
}

/* KERNEL_LAUNCH, GRAPH_LAUNCH, HOST_FUNC */
static int kernel_call(struct ctx *c)
{
    return simdev_launch_kernel(c->stream, SIMDEV_ENGINE_AICPU, fix_count_kernel, 1, &c->runs_ptr,
                                sizeof c->runs_ptr);
}
static int graph_launch_call(struct ctx *c) { return simdev_graph_launch(c->graph, c->stream); }
static int host_func_call(struct ctx *c) { return simdev_launch_host_func(c->stream, fix_count_host_fn, &c->runs); }

/* EVENT_RECORD: on a held stream, so a record shows as NOT_READY. */
static int record_call(struct ctx *c) { return simdev_event_record(c->held_event, c->held); }
static void record_no_effect(struct ctx *c)
{
    assert_int_equal(simdev_event_query(c->held_event), SIMDEV_SUCCESS);
}
static void record_finish(struct ctx *c)
{
    assert_int_equal(simdev_event_query(c->held_event), SIMDEV_ERROR_NOT_READY);
}

/* EVENT_WAIT: on the held stream's record, so a wait holds the waiter. */
static int wait_call(struct ctx *c) { return simdev_stream_wait_event(c->waiter, c->held_event); }
static void wait_no_effect(struct ctx *c)
{
    fix_launch_count(c->waiter, &c->runs);
    assert_int_equal(simdev_stream_synchronize(c->waiter), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&c->runs), 1);
    atomic_store(&c->runs, 0);
}
static void wait_finish(struct ctx *c)
{
    assert_int_equal(simdev_stream_query(c->waiter), SIMDEV_ERROR_NOT_READY);
}

/* STREAM_DESTROY, EVENT_DESTROY, GRAPH_DESTROY */
static void stream_destroy_prepare(struct ctx *c) { c->tmp_stream = fix_stream(); }
static int stream_destroy_call(struct ctx *c) { return simdev_stream_destroy(c->tmp_stream); }
static void stream_destroy_no_effect(struct ctx *c)
{
    assert_int_equal(simdev_stream_query(c->tmp_stream), SIMDEV_SUCCESS);
}
static void event_destroy_prepare(struct ctx *c) { c->tmp_event = fix_event(); }
static int event_destroy_call(struct ctx *c) { return simdev_event_destroy(c->tmp_event); }
static void event_destroy_no_effect(struct ctx *c)
{
    assert_int_equal(simdev_event_query(c->tmp_event), SIMDEV_SUCCESS);
}
static void graph_destroy_prepare(struct ctx *c)
{
    capture_begin_on(c);
    assert_int_equal(simdev_capture_end(c->capture, &c->tmp_graph), SIMDEV_SUCCESS);
}
static int graph_destroy_call(struct ctx *c) { return simdev_graph_destroy(c->tmp_graph); }
static void graph_destroy_no_effect(struct ctx *c) { assert_int_equal(fix_node_count(c->tmp_graph), 0); }

/* CAPTURE_BEGIN, CAPTURE_END */
static int begin_call(struct ctx *c) { return simdev_capture_begin(c->capture, SIMDEV_CAPTURE_MODE_GLOBAL); }
static void begin_no_effect(struct ctx *c)
{
    assert_int_equal(fix_status(c->capture), SIMDEV_CAPTURE_STATUS_NONE);
}
static void end_prepare(struct ctx *c) { capture_begin_on(c); c->graph_out = SENTINEL; }
static int end_call(struct ctx *c) { return simdev_capture_end(c->capture, &c->graph_out); }
static void end_no_effect(struct ctx *c)
{
    assert_ptr_equal(c->graph_out, SENTINEL);
    assert_int_equal(fix_status(c->capture), SIMDEV_CAPTURE_STATUS_ACTIVE);
}
static void end_finish(struct ctx *c) { assert_int_equal(simdev_graph_destroy(c->graph_out), SIMDEV_SUCCESS); }

#define FIELD(f) offsetof(simdev_counters, f)

static const struct probe probes[] = {
    {SIMDEV_CALL_MALLOC, FIELD(malloc_calls), malloc_prepare, malloc_call, malloc_no_effect, malloc_finish},
    {SIMDEV_CALL_FREE, FIELD(free_calls), free_prepare, free_call, mem_unchanged, nothing},
    {SIMDEV_CALL_MEMCPY_SYNC, FIELD(memcpy_sync_calls), nothing, memcpy_sync_call, buf_unchanged, buf_restore},
    {SIMDEV_CALL_MEMCPY_ASYNC, FIELD(memcpy_async_calls), nothing, memcpy_async_call, buf_unchanged, buf_restore},
    {SIMDEV_CALL_MEMSET, FIELD(memset_calls), nothing, memset_call, buf_unchanged, buf_restore},
    {SIMDEV_CALL_SYNCHRONIZE, FIELD(synchronize_calls), nothing, synchronize_call, nothing, nothing},
    {SIMDEV_CALL_QUERY, FIELD(query_calls), nothing, query_call, nothing, nothing},
    {SIMDEV_CALL_CAPTURE_QUERY, FIELD(capture_query_calls), info_prepare, info_call, info_no_effect, nothing},
    {SIMDEV_CALL_STREAM_CREATE, FIELD(stream_create_calls), create_prepare, stream_create_call, create_no_effect,
     stream_create_finish},
    {SIMDEV_CALL_EVENT_CREATE, FIELD(event_create_calls), create_prepare, event_create_call, create_no_effect,
     event_create_finish},
    {SIMDEV_CALL_KERNEL_LAUNCH, FIELD(kernel_launches), nothing, kernel_call, runs_unchanged, runs_once},
    {SIMDEV_CALL_GRAPH_LAUNCH, FIELD(graph_launches), nothing, graph_launch_call, runs_unchanged, runs_once},
    {SIMDEV_CALL_EVENT_RECORD, FIELD(event_record_calls), nothing, record_call, record_no_effect,
     record_finish},
    {SIMDEV_CALL_EVENT_WAIT, FIELD(event_wait_calls), nothing, wait_call, wait_no_effect, wait_finish},
    {SIMDEV_CALL_HOST_FUNC, FIELD(host_func_calls), nothing, host_func_call, runs_unchanged, runs_once},
    {SIMDEV_CALL_STREAM_DESTROY, FIELD(stream_destroy_calls), stream_destroy_prepare, stream_destroy_call,
     stream_destroy_no_effect, nothing},
    {SIMDEV_CALL_EVENT_DESTROY, FIELD(event_destroy_calls), event_destroy_prepare, event_destroy_call,
     event_destroy_no_effect, nothing},
    {SIMDEV_CALL_CAPTURE_BEGIN, FIELD(capture_begin_calls), nothing, begin_call, begin_no_effect, capture_end_on},
    {SIMDEV_CALL_CAPTURE_END, FIELD(capture_end_calls), end_prepare, end_call, end_no_effect, end_finish},
    {SIMDEV_CALL_GRAPH_DESTROY, FIELD(graph_destroy_calls), graph_destroy_prepare, graph_destroy_call,
     graph_destroy_no_effect, nothing},
};

#define PROBE_COUNT (sizeof probes / sizeof probes[0])
_Static_assert(PROBE_COUNT == SIMDEV_CALL_CLASS_COUNT - 1, "one probe per call class");

static void ctx_init(struct ctx *c)
{
    memset(c, 0, sizeof *c);
    c->runs_ptr = &c->runs;
    c->stream = fix_stream();
    c->held = fix_stream();
    c->waiter = fix_stream();
    c->capture = fix_stream();
    c->held_event = fix_event();
    c->gate = fix_gate_new();
    assert_int_equal(simdev_launch_host_func(c->held, fix_gate_host_fn, c->gate), SIMDEV_SUCCESS);
    c->buf = fix_malloc(64);
    assert_int_equal(simdev_memset(c->buf, 0x11, 64), SIMDEV_SUCCESS);
    memset(c->host, 0x22, sizeof c->host);
    capture_begin_on(c);
    fix_launch_count(c->capture, &c->runs);
    assert_int_equal(simdev_capture_end(c->capture, &c->graph), SIMDEV_SUCCESS);
}

static void ctx_deinit(struct ctx *c)
{
    assert_int_equal(simdev_graph_destroy(c->graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(c->buf), SIMDEV_SUCCESS);
    fix_gate_open(c->gate);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&c->gate->timeouts), 0);
    assert_int_equal(simdev_event_destroy(c->held_event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(c->capture), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(c->waiter), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(c->held), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(c->stream), SIMDEV_SUCCESS);
}

static uint64_t counter_at(const simdev_counters *counters, size_t offset)
{
    uint64_t value;
    memcpy(&value, (const char *)counters + offset, sizeof value);
    return value;
}

/* The armed call is counted in its own field and in no other. */
static void assert_counted_once(const simdev_counters *before, const simdev_counters *after, size_t offset)
{
    for (size_t at = 0; at < sizeof *before; at += sizeof(uint64_t)) {
        uint64_t delta = counter_at(after, at) - counter_at(before, at);
        assert_int_equal(delta, at == offset ? 1 : 0);
    }
}

static void run_probe(struct ctx *c, const struct probe *p, int code)
{
    p->prepare(c);
    simdev_counters before, after;
    assert_int_equal(simdev_get_counters(&before), SIMDEV_SUCCESS);
    assert_int_equal(simdev_fault_inject(p->cls, 1, code), SIMDEV_SUCCESS);
    int rc = p->call(c);
    assert_int_equal(simdev_get_counters(&after), SIMDEV_SUCCESS);
    if (rc != code)
        fail_msg("class %d returned %d, expected the injected %d", (int)p->cls, rc, code);
    assert_counted_once(&before, &after, p->counter_offset);
    p->assert_no_effect(c);
    rc = p->call(c);
    if (rc != SIMDEV_SUCCESS)
        fail_msg("class %d: the call after the injected one returned %d", (int)p->cls, rc);
    p->finish(c);
}

static void fault_inject_each_class_fails_once_with_no_effect(void **state)
{
    (void)state;
    struct ctx c;
    ctx_init(&c);
    for (size_t i = 0; i < PROBE_COUNT; i++)
        run_probe(&c, &probes[i], CODE);
    ctx_deinit(&c);
}

/* An injected code may be any nonzero status, e.g. a real one. */
static void fault_inject_each_class_returns_a_real_status_code(void **state)
{
    (void)state;
    struct ctx c;
    ctx_init(&c);
    for (size_t i = 0; i < PROBE_COUNT; i++)
        run_probe(&c, &probes[i], SIMDEV_ERROR_MEMORY_ALLOCATION);
    ctx_deinit(&c);
}

/* ANY with nth=k: the k-th counted call of whatever class fails. */
static void fault_inject_any_class_nth_call_fails(void **state)
{
    (void)state;
    struct ctx c;
    ctx_init(&c);
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_ANY, 3, CODE), SIMDEV_SUCCESS);
    void *ptr = NULL;
    assert_int_equal(simdev_malloc(&ptr, 64), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_query(c.stream), SIMDEV_SUCCESS);
    assert_int_equal(kernel_call(&c), CODE);
    assert_int_equal(host_func_call(&c), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(ptr), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(c.stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&c.runs), 1);
    ctx_deinit(&c);
}

static void fault_inject_class_nth_call_fails_only_that_one(void **state)
{
    (void)state;
    struct ctx c;
    ctx_init(&c);
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_KERNEL_LAUNCH, 3, CODE), SIMDEV_SUCCESS);
    for (int i = 1; i <= 5; i++) {
        assert_int_equal(host_func_call(&c), SIMDEV_SUCCESS);
        assert_int_equal(kernel_call(&c), i == 3 ? CODE : SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_stream_synchronize(c.stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&c.runs), 9);
    ctx_deinit(&c);
}

static void fault_inject_rearming_replaces_and_clear_disarms(void **state)
{
    (void)state;
    void *ptr = NULL;
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_MALLOC, 1, CODE), SIMDEV_SUCCESS);
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_MALLOC, 2, CODE + 1), SIMDEV_SUCCESS);
    assert_int_equal(simdev_malloc(&ptr, 64), SIMDEV_SUCCESS);
    assert_int_equal(simdev_malloc(&ptr, 64), CODE + 1);
    assert_int_equal(simdev_free(ptr), SIMDEV_SUCCESS);
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_FREE, 1, CODE), SIMDEV_SUCCESS);
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_ANY, 1, CODE), SIMDEV_SUCCESS);
    assert_int_equal(simdev_fault_clear(), SIMDEV_SUCCESS);
    assert_int_equal(simdev_malloc(&ptr, 64), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(ptr), SIMDEV_SUCCESS);
}

static int malloc_on_thread(void *p)
{
    void **ptr = p;
    return simdev_malloc(ptr, 64);
}

static void fault_inject_applies_to_calls_from_any_thread(void **state)
{
    (void)state;
    void *ptr = SENTINEL;
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_MALLOC, 1, CODE), SIMDEV_SUCCESS);
    assert_int_equal(fix_call_on_thread(malloc_on_thread, &ptr), CODE);
    assert_ptr_equal(ptr, SENTINEL);
    assert_int_equal(fix_call_on_thread(malloc_on_thread, &ptr), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(ptr), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(fault_inject_each_class_fails_once_with_no_effect),
        FIX_TEST(fault_inject_each_class_returns_a_real_status_code),
        FIX_TEST(fault_inject_any_class_nth_call_fails),
        FIX_TEST(fault_inject_class_nth_call_fails_only_that_one),
        FIX_TEST(fault_inject_rearming_replaces_and_clear_disarms),
        FIX_TEST(fault_inject_applies_to_calls_from_any_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
