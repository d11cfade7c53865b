/*
 * The capture refusal table (docs/simdev.md), one test per row
 * and mode. Each refused call must leave the capture ACTIVE, and ending
 * it must still give a graph whose replay runs exactly the captured nodes
 * (except the unjoined row, whose end itself is the refusal).
 */
#include "fixture.h"

/* A capture in progress: one logged kernel before the probe, one after. */
struct probe {
    simdev_stream_t stream;
    struct fix_log log;
};

static void probe_begin(struct probe *p, simdev_capture_mode mode)
{
    memset(p, 0, sizeof *p);
    p->stream = fix_stream();
    assert_int_equal(simdev_capture_begin(p->stream, mode), SIMDEV_SUCCESS);
    fix_launch_log(p->stream, &p->log, 1);
}

/* Ends the capture after one more node and replays the graph once: the
 * capture must still be usable after whatever the probe was refused. */
static void probe_end_and_replay(struct probe *p)
{
    assert_int_equal(fix_status(p->stream), SIMDEV_CAPTURE_STATUS_ACTIVE);
    fix_launch_log(p->stream, &p->log, 2);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(p->stream, &graph), SIMDEV_SUCCESS);
    assert_non_null(graph);
    assert_int_equal(fix_status(p->stream), SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(fix_node_count(graph), 2);
    assert_int_equal(atomic_load(&p->log.count), 0);
    assert_int_equal(simdev_graph_launch(graph, p->stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(p->stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&p->log.count), 2);
    assert_int_equal(p->log.values[0], 1);
    assert_int_equal(p->log.values[1], 2);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(p->stream), SIMDEV_SUCCESS);
}

/* Row: malloc during capture succeeds, really allocates, is not a node,
 * and the new buffer can be used by captured work. */
static void malloc_allowed_not_a_node(simdev_capture_mode mode)
{
    struct probe p;
    probe_begin(&p, mode);
    simdev_mem_info before = fix_mem_info(0);
    void *buf = fix_malloc(4096);
    simdev_mem_info after = fix_mem_info(0);
    assert_int_equal(after.committed_bytes, before.committed_bytes + 4096);
    assert_int_equal(after.live_allocations, before.live_allocations + 1);
    probe_end_and_replay(&p);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
}

/* Row: free during capture succeeds and really frees. */
static void free_allowed_not_a_node(simdev_capture_mode mode)
{
    void *buf = fix_malloc(4096);
    struct probe p;
    probe_begin(&p, mode);
    simdev_mem_info before = fix_mem_info(0);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
    simdev_mem_info after = fix_mem_info(0);
    assert_int_equal(after.committed_bytes, before.committed_bytes - 4096);
    assert_int_equal(after.live_allocations, before.live_allocations - 1);
    probe_end_and_replay(&p);
}

/* Row: waiting on an event recorded before the capture began. */
static void wait_on_outside_event_refused(simdev_capture_mode mode)
{
    simdev_stream_t other = fix_stream();
    simdev_event_t event = fix_event();
    assert_int_equal(simdev_event_record(event, other), SIMDEV_SUCCESS);
    struct probe p;
    probe_begin(&p, mode);
    assert_int_equal(simdev_stream_wait_event(p.stream, event), SIMDEV_ERROR_CAPTURE_DEPENDENCY);
    assert_int_equal(fix_status(other), SIMDEV_CAPTURE_STATUS_NONE);
    probe_end_and_replay(&p);
    assert_int_equal(simdev_event_destroy(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(other), SIMDEV_SUCCESS);
}

/* Row: a fork never joined back makes end fail with no graph; the capture
 * is over for both streams and both run eager work again. */
static void unjoined_fork_refused_at_end(simdev_capture_mode mode)
{
    simdev_stream_t side = fix_stream();
    simdev_event_t fork = fix_event();
    struct probe p;
    probe_begin(&p, mode);
    assert_int_equal(simdev_event_record(fork, p.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(side, fork), SIMDEV_SUCCESS);
    assert_int_equal(fix_status(side), SIMDEV_CAPTURE_STATUS_ACTIVE);
    fix_launch_log(side, &p.log, 7);
    simdev_graph_t graph = (simdev_graph_t)&p;
    assert_int_equal(simdev_capture_end(p.stream, &graph), SIMDEV_ERROR_STREAM_UNJOINED);
    assert_ptr_equal(graph, (simdev_graph_t)&p);
    assert_int_equal(fix_status(p.stream), SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(fix_status(side), SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(atomic_load(&p.log.count), 0);
    fix_launch_log(p.stream, &p.log, 3);
    fix_launch_log(side, &p.log, 4);
    assert_int_equal(simdev_stream_synchronize(p.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(side), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&p.log.count), 2);
    assert_int_equal(simdev_event_destroy(fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(p.stream), SIMDEV_SUCCESS);
}

/* Row: stream synchronize/query on the capturing stream, device
 * synchronize. */
static void stream_sync_query_refused(simdev_capture_mode mode)
{
    struct probe p;
    probe_begin(&p, mode);
    assert_int_equal(simdev_stream_synchronize(p.stream), SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(simdev_stream_query(p.stream), SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(atomic_load(&p.log.count), 0);
    probe_end_and_replay(&p);
}

/* Row: event synchronize/query on an event recorded in the capture. */
static void event_sync_query_refused(simdev_capture_mode mode)
{
    simdev_event_t event = fix_event();
    struct probe p;
    probe_begin(&p, mode);
    assert_int_equal(simdev_event_record(event, p.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_synchronize(event), SIMDEV_ERROR_EVENT_CAPTURED);
    assert_int_equal(simdev_event_query(event), SIMDEV_ERROR_EVENT_CAPTURED);
    probe_end_and_replay(&p);
    assert_int_equal(simdev_event_destroy(event), SIMDEV_SUCCESS);
}

/* Row: synchronous memcpy/memset refused in GLOBAL and THREAD_LOCAL,
 * leaving device memory as it was. */
static void sync_copy_refused(simdev_capture_mode mode)
{
    uint32_t *buf = fix_malloc(64 * sizeof(uint32_t));
    assert_int_equal(simdev_memset(buf, 0x11, 64 * sizeof(uint32_t)), SIMDEV_SUCCESS);
    uint32_t host[64];
    memset(host, 0x22, sizeof host);
    struct probe p;
    probe_begin(&p, mode);
    assert_int_equal(simdev_memcpy(buf, host, sizeof host), SIMDEV_ERROR_CAPTURE_MODE_NOT_SUPPORT);
    assert_int_equal(simdev_memcpy(host, buf, sizeof host), SIMDEV_ERROR_CAPTURE_MODE_NOT_SUPPORT);
    assert_int_equal(host[0], 0x22222222u);
    assert_int_equal(simdev_memset(buf, 0x33, sizeof host), SIMDEV_ERROR_CAPTURE_MODE_NOT_SUPPORT);
    probe_end_and_replay(&p);
    fix_assert_words(buf, 64, 0x11111111u);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
}

/* Row, RELAXED column: synchronous memcpy/memset run immediately. */
static void sync_copy_allowed_in_relaxed(void **state)
{
    (void)state;
    uint32_t *buf = fix_malloc(64 * sizeof(uint32_t));
    uint32_t host[64];
    memset(host, 0x22, sizeof host);
    struct probe p;
    probe_begin(&p, SIMDEV_CAPTURE_MODE_RELAXED);
    assert_int_equal(simdev_memset(buf, 0x33, sizeof host), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy(host, buf, sizeof host), SIMDEV_SUCCESS);
    assert_int_equal(host[63], 0x33333333u);
    memset(host, 0x44, sizeof host);
    assert_int_equal(simdev_memcpy(buf, host, sizeof host), SIMDEV_SUCCESS);
    probe_end_and_replay(&p);
    fix_assert_words(buf, 64, 0x44444444u);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
}

/* A thread whose interaction mode is RELAXED may copy synchronously even
 * during its own GLOBAL capture. */
static void sync_copy_allowed_for_relaxed_thread_in_global_capture(void **state)
{
    (void)state;
    uint32_t *buf = fix_malloc(64 * sizeof(uint32_t));
    struct probe p;
    probe_begin(&p, SIMDEV_CAPTURE_MODE_GLOBAL);
    simdev_capture_mode old = fix_thread_mode_set(SIMDEV_CAPTURE_MODE_RELAXED);
    assert_int_equal(old, SIMDEV_CAPTURE_MODE_GLOBAL);
    assert_int_equal(simdev_memset(buf, 0x55, 64 * sizeof(uint32_t)), SIMDEV_SUCCESS);
    fix_thread_mode_set(old);
    assert_int_equal(simdev_memset(buf, 0x66, 64 * sizeof(uint32_t)), SIMDEV_ERROR_CAPTURE_MODE_NOT_SUPPORT);
    probe_end_and_replay(&p);
    fix_assert_words(buf, 64, 0x55555555u);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
}

#define PER_MODE(name)                                                           \
    static void capture_##name##_global(void **state)                            \
    {                                                                            \
        (void)state;                                                             \
        name(SIMDEV_CAPTURE_MODE_GLOBAL);                                        \
    }                                                                            \
    static void capture_##name##_thread_local(void **state)                      \
    {                                                                            \
        (void)state;                                                             \
        name(SIMDEV_CAPTURE_MODE_THREAD_LOCAL);                                  \
    }                                                                            \
    static void capture_##name##_relaxed(void **state)                           \
    {                                                                            \
        (void)state;                                                             \
        name(SIMDEV_CAPTURE_MODE_RELAXED);                                       \
    }

PER_MODE(malloc_allowed_not_a_node)
PER_MODE(free_allowed_not_a_node)
PER_MODE(wait_on_outside_event_refused)
PER_MODE(unjoined_fork_refused_at_end)
PER_MODE(stream_sync_query_refused)
PER_MODE(event_sync_query_refused)

static void capture_sync_copy_refused_global(void **state)
{
    (void)state;
    sync_copy_refused(SIMDEV_CAPTURE_MODE_GLOBAL);
}

static void capture_sync_copy_refused_thread_local(void **state)
{
    (void)state;
    sync_copy_refused(SIMDEV_CAPTURE_MODE_THREAD_LOCAL);
}

#define ALL_MODES(name) FIX_TEST(capture_##name##_global), FIX_TEST(capture_##name##_thread_local), \
                        FIX_TEST(capture_##name##_relaxed)

int main(void)
{
    const struct CMUnitTest tests[] = {
        ALL_MODES(malloc_allowed_not_a_node),
        ALL_MODES(free_allowed_not_a_node),
        ALL_MODES(wait_on_outside_event_refused),
        ALL_MODES(unjoined_fork_refused_at_end),
        ALL_MODES(stream_sync_query_refused),
        ALL_MODES(event_sync_query_refused),
        FIX_TEST(capture_sync_copy_refused_global),
        FIX_TEST(capture_sync_copy_refused_thread_local),
        FIX_TEST(sync_copy_allowed_in_relaxed),
        FIX_TEST(sync_copy_allowed_for_relaxed_thread_in_global_capture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
