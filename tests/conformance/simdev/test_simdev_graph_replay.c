/*
 * Graph replay: recorded addresses and argument bytes, ordering on the
 * launch stream, alternating graphs over shared buffers.
 */
#include "fixture.h"

#include <sched.h>

#define WORDS 64
#define PATTERN_A 0xA0A0A0A0u
#define PATTERN_B 0x0B0B0B0Bu

struct pair {
    uint32_t *src, *dst;
    atomic_int runs, bad;
};

static void launch_check(simdev_stream_t stream, struct pair *p, const uint32_t *buf, uint32_t value)
{
    struct fix_check_args a = {buf, WORDS, value, &p->runs, &p->bad};
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, fix_check_kernel, 1, &a, sizeof a),
                     SIMDEV_SUCCESS);
}

/* A: kernel fills src, copy src->dst, check both. B: memset src, copy,
 * check both. Both write the same two buffers. */
static simdev_graph_t capture_pattern(simdev_stream_t stream, struct pair *p, int is_b)
{
    assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    uint32_t value = is_b ? PATTERN_B : PATTERN_A;
    if (is_b)
        assert_int_equal(simdev_memset_async(p->src, 0x0B, WORDS * 4, stream), SIMDEV_SUCCESS);
    else
        fix_launch_fill(stream, p->src, WORDS, value);
    assert_int_equal(simdev_memcpy_async(p->dst, p->src, WORDS * 4, stream), SIMDEV_SUCCESS);
    launch_check(stream, p, p->src, value);
    launch_check(stream, p, p->dst, value);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_SUCCESS);
    assert_int_equal(fix_node_count(graph), 4);
    return graph;
}

static const int replay_order[] = {0, 1, 0, 1, 0, 0, 1};
#define REPLAYS (sizeof replay_order / sizeof replay_order[0])

static void graph_replay_alternating_graphs_leave_their_own_pattern(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    struct pair p = {fix_malloc(WORDS * 4), fix_malloc(WORDS * 4), 0, 0};
    simdev_graph_t graphs[2] = {capture_pattern(stream, &p, 0), capture_pattern(stream, &p, 1)};
    assert_int_equal(atomic_load(&p.runs), 0);
    for (size_t i = 0; i < REPLAYS; i++) {
        int g = replay_order[i];
        assert_int_equal(simdev_graph_launch(graphs[g], stream), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
        fix_assert_words(p.src, WORDS, g ? PATTERN_B : PATTERN_A);
        fix_assert_words(p.dst, WORDS, g ? PATTERN_B : PATTERN_A);
    }
    assert_int_equal(atomic_load(&p.runs), 2 * REPLAYS);
    assert_int_equal(atomic_load(&p.bad), 0);
    for (int g = 0; g < 2; g++)
        assert_int_equal(simdev_graph_destroy(graphs[g]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(p.src), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(p.dst), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void graph_replay_back_to_back_without_synchronizing(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    struct pair p = {fix_malloc(WORDS * 4), fix_malloc(WORDS * 4), 0, 0};
    simdev_graph_t graphs[2] = {capture_pattern(stream, &p, 0), capture_pattern(stream, &p, 1)};
    for (size_t i = 0; i < REPLAYS; i++)
        assert_int_equal(simdev_graph_launch(graphs[replay_order[i]], stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&p.runs), 2 * REPLAYS);
    assert_int_equal(atomic_load(&p.bad), 0);
    fix_assert_words(p.dst, WORDS, PATTERN_B);
    for (int g = 0; g < 2; g++)
        assert_int_equal(simdev_graph_destroy(graphs[g]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(p.src), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(p.dst), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void graph_replay_sees_argument_bytes_captured_at_launch(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    uint32_t *buf = fix_malloc(WORDS * 4);
    uint32_t *decoy = fix_malloc(WORDS * 4);
    assert_int_equal(simdev_memset(buf, 0, WORDS * 4), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset(decoy, 0, WORDS * 4), SIMDEV_SUCCESS);
    struct fix_fill_args args = {buf, WORDS, 0x12345678u};
    assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, fix_fill_kernel, 3, &args, sizeof args),
                     SIMDEV_SUCCESS);
    args.dst = decoy;
    args.value = 0xDEADBEEFu;
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_SUCCESS);
    memset(&args, 0, sizeof args);
    assert_int_equal(simdev_graph_launch(graph, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    fix_assert_words(buf, WORDS, 0x12345678u);
    fix_assert_words(decoy, WORDS, 0);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(decoy), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void eager_launch_sees_argument_bytes_at_launch(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    uint32_t *buf = fix_malloc(WORDS * 4);
    uint32_t *decoy = fix_malloc(WORDS * 4);
    assert_int_equal(simdev_memset(decoy, 0, WORDS * 4), SIMDEV_SUCCESS);
    struct fix_gate *gate = fix_gate_new();
    /* The gate holds the stream so the kernel surely runs after the
     * overwrite below. */
    assert_int_equal(simdev_launch_host_func(stream, fix_gate_host_fn, gate), SIMDEV_SUCCESS);
    struct fix_fill_args args = {buf, WORDS, 0x12345678u};
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, fix_fill_kernel, 3, &args, sizeof args),
                     SIMDEV_SUCCESS);
    args.dst = decoy;
    args.value = 0xDEADBEEFu;
    fix_gate_open(gate);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&gate->timeouts), 0);
    fix_assert_words(buf, WORDS, 0x12345678u);
    fix_assert_words(decoy, WORDS, 0);
    assert_int_equal(simdev_free(decoy), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void graph_launch_ordered_after_prior_and_before_later_work(void **state)
{
    (void)state;
    simdev_stream_t capture_stream = fix_stream();
    simdev_stream_t stream = fix_stream();
    struct fix_log log = {0};
    assert_int_equal(simdev_capture_begin(capture_stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    fix_launch_log(capture_stream, &log, 10);
    fix_launch_log(capture_stream, &log, 11);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(capture_stream, &graph), SIMDEV_SUCCESS);
    struct fix_gate *gate = fix_gate_new();
    assert_int_equal(simdev_launch_host_func(stream, fix_gate_host_fn, gate), SIMDEV_SUCCESS);
    fix_launch_log(stream, &log, 1);
    assert_int_equal(simdev_graph_launch(graph, stream), SIMDEV_SUCCESS);
    fix_launch_log(stream, &log, 2);
    assert_int_equal(atomic_load(&log.count), 0);
    fix_gate_open(gate);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&gate->timeouts), 0);
    assert_int_equal(atomic_load(&log.count), 4);
    const int expected[] = {1, 10, 11, 2};
    for (int i = 0; i < 4; i++)
        assert_int_equal(log.values[i], expected[i]);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(capture_stream), SIMDEV_SUCCESS);
}

/* ---- independent lanes run concurrently ---- */

static void graph_replay_runs_independent_lanes_concurrently(void **state)
{
    (void)state;
    simdev_stream_t origin = fix_stream();
    simdev_stream_t side = fix_stream();
    simdev_event_t fork = fix_event();
    simdev_event_t join = fix_event();
    struct fix_rendezvous r;
    fix_rendezvous_init(&r, 2);
    struct fix_rendezvous *rp = &r;
    assert_int_equal(simdev_capture_begin(origin, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(fork, origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(side, fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(origin, SIMDEV_ENGINE_AICORE, fix_rendezvous_kernel, 1, &rp, sizeof rp),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(side, SIMDEV_ENGINE_AICORE, fix_rendezvous_kernel, 1, &rp, sizeof rp),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(join, side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(origin, join), SIMDEV_SUCCESS);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(origin, &graph), SIMDEV_SUCCESS);
    assert_int_equal(fix_node_count(graph), 2);
    for (int i = 0; i < 2; i++)
        assert_int_equal(simdev_graph_launch(graph, origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(origin), SIMDEV_SUCCESS);
    assert_int_equal(fix_rendezvous_arrived(&r), 4);
    assert_int_equal(atomic_load(&r.timeouts), 0);
    fix_rendezvous_deinit(&r);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(join), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(origin), SIMDEV_SUCCESS);
}

/* ---- lanes made ready by one completion all run at once ---- */

/* The origin runs a memset, then forks two side lanes; each of the three
 * lanes then runs a kernel that returns only once all three arrived
 * (bounded by the liveness deadline). All three become ready when the
 * memset completes, in the middle of the replay: the runner that ran it
 * keeps one and must hand each of the other two to an idle runner. */
static void graph_replay_lanes_made_ready_by_one_node_all_run_at_once(void **state)
{
    (void)state;
    simdev_stream_t lanes[3] = {fix_stream(), fix_stream(), fix_stream()};
    simdev_event_t fork = fix_event();
    simdev_event_t joins[2] = {fix_event(), fix_event()};
    uint32_t *buf = fix_malloc(64);
    struct fix_rendezvous r;
    fix_rendezvous_init(&r, 3);
    struct fix_rendezvous *rp = &r;
    assert_int_equal(simdev_capture_begin(lanes[0], SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset_async(buf, 0, 64, lanes[0]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(fork, lanes[0]), SIMDEV_SUCCESS);
    for (int i = 1; i < 3; i++)
        assert_int_equal(simdev_stream_wait_event(lanes[i], fork), SIMDEV_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_launch_kernel(lanes[i], SIMDEV_ENGINE_AICPU, fix_rendezvous_kernel, 1, &rp,
                                              sizeof rp),
                         SIMDEV_SUCCESS);
    for (int i = 1; i < 3; i++) {
        assert_int_equal(simdev_event_record(joins[i - 1], lanes[i]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_wait_event(lanes[0], joins[i - 1]), SIMDEV_SUCCESS);
    }
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(lanes[0], &graph), SIMDEV_SUCCESS);
    assert_int_equal(fix_node_count(graph), 4);
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_graph_launch(graph, lanes[0]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(lanes[0]), SIMDEV_SUCCESS);
    assert_int_equal(fix_rendezvous_arrived(&r), 9);
    assert_int_equal(atomic_load(&r.timeouts), 0);
    fix_rendezvous_deinit(&r);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
    for (int i = 0; i < 2; i++)
        assert_int_equal(simdev_event_destroy(joins[i]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(fork), SIMDEV_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_stream_destroy(lanes[i]), SIMDEV_SUCCESS);
}

/* ---- a waiting runner blocks after a brief poll ---- */

#define LONG_LANE_MS 300
#define LONG_LANE_CPU_MS_MAX 100 /* a third of the wait: no thread polled through it */

static void sleep_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    (void)args;
    struct timespec t = {0, LONG_LANE_MS * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

static uint64_t process_cpu_ns(void)
{
    struct timespec t;
    assert_int_equal(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t), 0);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Lane 0 logs 1 and forks lanes 1 (a kernel that sleeps LONG_LANE_MS,
 * then logs 2) and 2 (logs 4); lane 0 logs 3 after both. The stream
 * worker keeps the last lane made ready (2), a helper takes lane 1, and
 * the worker then waits for it before lane 0's tail: it polls only
 * briefly, then blocks, so the process burns little CPU while lane 1
 * sleeps (the caller blocks too); so does the helper after it ran lane 1. */
static void graph_replay_waiting_runner_blocks_after_a_brief_poll(void **state)
{
    (void)state;
    simdev_stream_t lanes[3] = {fix_stream(), fix_stream(), fix_stream()};
    simdev_event_t fork = fix_event(), join[2] = {fix_event(), fix_event()};
    struct fix_log log = {0};
    assert_int_equal(simdev_capture_begin(lanes[0], SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    fix_launch_log(lanes[0], &log, 1);
    assert_int_equal(simdev_event_record(fork, lanes[0]), SIMDEV_SUCCESS);
    for (int i = 1; i < 3; i++)
        assert_int_equal(simdev_stream_wait_event(lanes[i], fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(lanes[1], SIMDEV_ENGINE_AICPU, sleep_kernel, 1, NULL, 0), SIMDEV_SUCCESS);
    fix_launch_log(lanes[1], &log, 2);
    fix_launch_log(lanes[2], &log, 4);
    for (int i = 1; i < 3; i++) {
        assert_int_equal(simdev_event_record(join[i - 1], lanes[i]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_wait_event(lanes[0], join[i - 1]), SIMDEV_SUCCESS);
    }
    fix_launch_log(lanes[0], &log, 3);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(lanes[0], &graph), SIMDEV_SUCCESS);
    /* The first replay starts the helpers; the second is measured. */
    for (int r = 0; r < 2; r++) {
        uint64_t cpu = process_cpu_ns();
        assert_int_equal(simdev_graph_launch(graph, lanes[0]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(lanes[0]), SIMDEV_SUCCESS);
        cpu = process_cpu_ns() - cpu;
        if (r == 1)
            assert_true(cpu < (uint64_t)LONG_LANE_CPU_MS_MAX * 1000000u);
    }
    /* After the replay, the helper that ran lane 1 polls for a next
     * hand-off only briefly too: with no replay queued, the process uses
     * little CPU while it idles. */
    uint64_t cpu = process_cpu_ns();
    struct timespec idle = {0, LONG_LANE_MS * 1000000L};
    while (nanosleep(&idle, &idle) != 0)
        ;
    cpu = process_cpu_ns() - cpu;
    assert_true(cpu < (uint64_t)LONG_LANE_CPU_MS_MAX * 1000000u);
    assert_int_equal(log.count, 8);
    for (int r = 0; r < 2; r++) {
        assert_int_equal(log.values[4 * r], 1);
        assert_int_equal(log.values[4 * r + 3], 3);
    }
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(fork), SIMDEV_SUCCESS);
    for (int i = 0; i < 2; i++)
        assert_int_equal(simdev_event_destroy(join[i]), SIMDEV_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_stream_destroy(lanes[i]), SIMDEV_SUCCESS);
}

/* ---- lanes that wait on each other through device memory ---- */

/* Each lane's kernel raises its own word in device memory, then polls the
 * other lane's word (yielding between polls, bounded by the liveness
 * deadline): it returns only once both lanes ran at the same time. The
 * origin lane (0) runs on the stream worker, the side lane on its own
 * thread; the side's kernel is multi-block (engine pool threads). */
struct mem_handshake {
    atomic_uint *words; /* [0] origin, [1] side: device memory */
    uint32_t mine, round;
    atomic_int *timeouts;
};

static void mem_handshake_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    const struct mem_handshake *h = args;
    if (block_idx == 0)
        atomic_store(&h->words[h->mine], h->round);
    struct timespec deadline = fix_deadline(), now;
    while (atomic_load(&h->words[1 - h->mine]) < h->round) {
        clock_gettime(CLOCK_REALTIME, &now);
        if (now.tv_sec > deadline.tv_sec) {
            atomic_fetch_add(h->timeouts, 1);
            return;
        }
        sched_yield();
    }
}

static void graph_replay_lanes_waiting_through_device_memory_both_progress(void **state)
{
    (void)state;
    simdev_stream_t origin = fix_stream();
    simdev_stream_t side = fix_stream();
    simdev_event_t fork = fix_event();
    simdev_event_t join = fix_event();
    atomic_uint *words = fix_malloc(2 * sizeof(*words));
    atomic_int timeouts = 0;
    enum { ROUNDS = 5 };
    simdev_graph_t graphs[ROUNDS];
    for (uint32_t r = 0; r < ROUNDS; r++) {
        struct mem_handshake a = {words, 0, r + 1, &timeouts}, b = {words, 1, r + 1, &timeouts};
        assert_int_equal(simdev_capture_begin(origin, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
        assert_int_equal(simdev_event_record(fork, origin), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_wait_event(side, fork), SIMDEV_SUCCESS);
        assert_int_equal(simdev_launch_kernel(origin, SIMDEV_ENGINE_AICPU, mem_handshake_kernel, 1, &a, sizeof a),
                         SIMDEV_SUCCESS);
        assert_int_equal(simdev_launch_kernel(side, SIMDEV_ENGINE_AICORE, mem_handshake_kernel, 2, &b, sizeof b),
                         SIMDEV_SUCCESS);
        assert_int_equal(simdev_event_record(join, side), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_wait_event(origin, join), SIMDEV_SUCCESS);
        assert_int_equal(simdev_capture_end(origin, &graphs[r]), SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_memset_async(words, 0, 2 * sizeof(*words), origin), SIMDEV_SUCCESS);
    for (uint32_t r = 0; r < ROUNDS; r++)
        assert_int_equal(simdev_graph_launch(graphs[r], origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(origin), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&timeouts), 0);
    assert_int_equal(atomic_load(&words[0]), ROUNDS);
    assert_int_equal(atomic_load(&words[1]), ROUNDS);
    for (uint32_t r = 0; r < ROUNDS; r++)
        assert_int_equal(simdev_graph_destroy(graphs[r]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(words), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(join), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(origin), SIMDEV_SUCCESS);
}

/* ---- one graph's launches are serialized ---- */

struct inflight {
    atomic_int now, overlaps, runs;
};

static void inflight_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    struct inflight *f = *(struct inflight *const *)args;
    if (atomic_fetch_add(&f->now, 1) != 0)
        atomic_fetch_add(&f->overlaps, 1);
    for (int i = 0; i < 1000; i++)
        atomic_load(&f->now);
    atomic_fetch_sub(&f->now, 1);
    atomic_fetch_add(&f->runs, 1);
}

static void graph_launches_of_one_graph_are_serialized_across_streams(void **state)
{
    (void)state;
    simdev_stream_t streams[3] = {fix_stream(), fix_stream(), fix_stream()};
    struct inflight f = {0, 0, 0};
    struct inflight *fp = &f;
    assert_int_equal(simdev_capture_begin(streams[0], SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(streams[0], SIMDEV_ENGINE_AICORE, inflight_kernel, 1, &fp, sizeof fp),
                     SIMDEV_SUCCESS);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(streams[0], &graph), SIMDEV_SUCCESS);
    for (int i = 0; i < 30; i++)
        assert_int_equal(simdev_graph_launch(graph, streams[i % 3]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&f.runs), 30);
    assert_int_equal(atomic_load(&f.overlaps), 0);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_stream_destroy(streams[i]), SIMDEV_SUCCESS);
}

static void graph_destroy_waits_for_pending_replays(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    atomic_int runs = 0;
    assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    for (int i = 0; i < 4; i++)
        fix_launch_count(stream, &runs);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_SUCCESS);
    for (int i = 0; i < 5; i++)
        assert_int_equal(simdev_graph_launch(graph, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&runs), 20);
    assert_int_equal(simdev_graph_launch(graph, stream), SIMDEV_ERROR_INVALID_HANDLE);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* ---- every lane is ordered after the launch stream's history ---- */

/* Round r: an eager kernel on a writer stream fills a plain buffer; the
 * launch stream waits for it by event and replays a graph whose two lanes
 * (lane 0 on the stream worker, lane 1 on a lane thread) read the buffer
 * with plain loads; then the launch stream clears the buffer and the
 * writer waits for that before the next fill. The check kernels compare
 * with what the fill wrote: a lane not ordered after the fill sees a
 * stale word, and under TSan any missing hand-off (into a lane thread, or
 * back out of one) is reported as a race between the fill, the reads
 * and the clear. */
#define ORDER_ROUNDS 100

static void graph_replay_every_lane_ordered_after_cross_stream_work(void **state)
{
    (void)state;
    simdev_stream_t writer = fix_stream();
    simdev_stream_t launch = fix_stream();
    simdev_stream_t origin = fix_stream();
    simdev_stream_t side = fix_stream();
    simdev_event_t filled = fix_event();
    simdev_event_t cleared = fix_event();
    simdev_event_t fork = fix_event();
    simdev_event_t join = fix_event();
    uint32_t *buf = fix_malloc(WORDS * 4);
    struct pair p = {buf, buf, 0, 0};
    assert_int_equal(simdev_capture_begin(origin, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(fork, origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(side, fork), SIMDEV_SUCCESS);
    launch_check(origin, &p, buf, PATTERN_A);
    launch_check(side, &p, buf, PATTERN_A);
    assert_int_equal(simdev_event_record(join, side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(origin, join), SIMDEV_SUCCESS);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(origin, &graph), SIMDEV_SUCCESS);
    assert_int_equal(fix_node_count(graph), 2);
    for (int r = 0; r < ORDER_ROUNDS; r++) {
        if (r > 0)
            assert_int_equal(simdev_stream_wait_event(writer, cleared), SIMDEV_SUCCESS);
        fix_launch_fill(writer, buf, WORDS, PATTERN_A);
        assert_int_equal(simdev_event_record(filled, writer), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_wait_event(launch, filled), SIMDEV_SUCCESS);
        assert_int_equal(simdev_graph_launch(graph, launch), SIMDEV_SUCCESS);
        assert_int_equal(simdev_memset_async(buf, 0, WORDS * 4, launch), SIMDEV_SUCCESS);
        assert_int_equal(simdev_event_record(cleared, launch), SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&p.runs), 2 * ORDER_ROUNDS);
    assert_int_equal(atomic_load(&p.bad), 0);
    fix_assert_words(buf, WORDS, 0);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    simdev_event_t events[] = {filled, cleared, fork, join};
    for (int i = 0; i < 4; i++)
        assert_int_equal(simdev_event_destroy(events[i]), SIMDEV_SUCCESS);
    simdev_stream_t streams[] = {writer, launch, origin, side};
    for (int i = 0; i < 4; i++)
        assert_int_equal(simdev_stream_destroy(streams[i]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(graph_replay_alternating_graphs_leave_their_own_pattern),
        FIX_TEST(graph_replay_back_to_back_without_synchronizing),
        FIX_TEST(graph_replay_sees_argument_bytes_captured_at_launch),
        FIX_TEST(eager_launch_sees_argument_bytes_at_launch),
        FIX_TEST(graph_launch_ordered_after_prior_and_before_later_work),
        FIX_TEST(graph_replay_runs_independent_lanes_concurrently),
        FIX_TEST(graph_replay_lanes_waiting_through_device_memory_both_progress),
        FIX_TEST(graph_replay_lanes_made_ready_by_one_node_all_run_at_once),
        FIX_TEST(graph_replay_waiting_runner_blocks_after_a_brief_poll),
        FIX_TEST(graph_replay_every_lane_ordered_after_cross_stream_work),
        FIX_TEST(graph_launches_of_one_graph_are_serialized_across_streams),
        FIX_TEST(graph_destroy_waits_for_pending_replays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
