/*
 * simdev engine placement (simdev_config.engine_affinity): with it on and
 * two or more CPUs allowed, AICPU and AICore pool threads run on disjoint
 * CPU sets that together cover the process's CPUs, in the documented
 * proportion; with it off, or with one CPU, they keep the process's set.
 * A replay's runners take the lanes they can run where they are placed;
 * a replay's last node runs where the runner that made it ready is, and
 * a synchronize that returns on that runner's word still sees every op;
 * one blocked beside the AICore cores is woken by that runner. Every
 * thread simdev starts carries its role in its name (top, perf, gdb).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "simdev/sd_internal.h"
#include "simdev_engine_cpus.h"
#include "simdev_setup.h"
#include "support.h"

static cpu_set_t seen[2]; /* by simdev_engine: the set a block ran with */

static void record_aicpu(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    (void)args;
    if (block_idx == 0)
        (void)sched_getaffinity(0, sizeof(seen[0]), &seen[SIMDEV_ENGINE_AICPU]);
}

static void record_aicore(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    (void)args;
    if (block_idx == 0)
        (void)sched_getaffinity(0, sizeof(seen[0]), &seen[SIMDEV_ENGINE_AICORE]);
}

static cpu_set_t host_fn_seen;

static void record_host_fn(void *user)
{
    (void)user;
    (void)sched_getaffinity(0, sizeof(host_fn_seen), &host_fn_seen);
}

static int clean(void **state)
{
    (void)state;
    memset(seen, 0, sizeof(seen));
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

/* Configures 1 device with 2 + 4 AI cores and 3 AICPU threads, affinity
 * as asked, and records where one block of each engine ran. */
static void run_both_engines(uint32_t affinity)
{
    simdev_config c;
    assert_int_equal(simdev_config_default(&c), SIMDEV_SUCCESS);
    c.device_count = 1;
    c.hbm_bytes = 4u << 20;
    c.engine_affinity = affinity;
    assert_int_equal(simdev_configure(&c), SIMDEV_SUCCESS);
    simdev_stream_t stream = NULL;
    assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, record_aicpu, 1, NULL, 0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, record_aicore, 6, NULL, 0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void engine_affinity_on_splits_the_process_cpus(void **state)
{
    (void)state;
    cpu_set_t process, both, overlap;
    assert_int_equal(sched_getaffinity(0, sizeof(process), &process), 0);
    int n = CPU_COUNT(&process);
    run_both_engines(1);
    if (n < 2) {
        assert_true(CPU_EQUAL(&seen[SIMDEV_ENGINE_AICPU], &process));
        assert_true(CPU_EQUAL(&seen[SIMDEV_ENGINE_AICORE], &process));
        return;
    }
    int first = n * 3 / 9 < 1 ? 1 : n * 3 / 9;
    assert_int_equal(CPU_COUNT(&seen[SIMDEV_ENGINE_AICPU]), first);
    assert_int_equal(CPU_COUNT(&seen[SIMDEV_ENGINE_AICORE]), n - first);
    CPU_AND(&overlap, &seen[SIMDEV_ENGINE_AICPU], &seen[SIMDEV_ENGINE_AICORE]);
    assert_int_equal(CPU_COUNT(&overlap), 0);
    CPU_OR(&both, &seen[SIMDEV_ENGINE_AICPU], &seen[SIMDEV_ENGINE_AICORE]);
    assert_true(CPU_EQUAL(&both, &process));
    /* The caller's own thread is left alone. */
    cpu_set_t self;
    assert_int_equal(sched_getaffinity(0, sizeof(self), &self), 0);
    assert_true(CPU_EQUAL(&self, &process));
}

static void engine_affinity_off_leaves_threads_alone(void **state)
{
    (void)state;
    cpu_set_t process;
    assert_int_equal(sched_getaffinity(0, sizeof(process), &process), 0);
    run_both_engines(0);
    assert_true(CPU_EQUAL(&seen[SIMDEV_ENGINE_AICPU], &process));
    assert_true(CPU_EQUAL(&seen[SIMDEV_ENGINE_AICORE], &process));
}

/* sd_engine_runs_here, which a synchronize asks before it polls (a caller
 * beside the AICore cores blocks at once): for the calling thread moved
 * onto each CPU in turn, it names exactly the CPUs the engine's blocks
 * ran on; with engine affinity off, none. */
static void engine_affinity_runs_here_names_the_engine_cpus(void **state)
{
    (void)state;
    cpu_set_t process, one;
    assert_int_equal(sched_getaffinity(0, sizeof(process), &process), 0);
    for (uint32_t affinity = 0; affinity < 2; affinity++) {
        run_both_engines(affinity);
        int on = affinity && CPU_COUNT(&process) >= 2;
        int hits[2] = {0, 0};
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
            if (!CPU_ISSET(cpu, &process))
                continue;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
            for (int e = 0; e < 2; e++) {
                int here = sd_engine_runs_here(&sd_g.dev[0].pools[e]);
                assert_int_equal(here, on && CPU_ISSET(cpu, &seen[e]));
                hits[e] += here;
            }
        }
        assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(process), &process), 0);
        assert_int_equal(hits[SIMDEV_ENGINE_AICPU] > 0, on);
        assert_int_equal(hits[SIMDEV_ENGINE_AICORE] > 0, on);
        /* A synchronize from an AICore CPU still waits for the work. */
        if (on) {
            simdev_stream_t stream = NULL;
            for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
                if (CPU_ISSET(cpu, &seen[SIMDEV_ENGINE_AICORE])) {
                    CPU_ZERO(&one);
                    CPU_SET(cpu, &one);
                    break;
                }
            assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
            memset(&seen[SIMDEV_ENGINE_AICORE], 0, sizeof(seen[0]));
            assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
            assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, record_aicore, 4, NULL, 0),
                             SIMDEV_SUCCESS);
            assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
            assert_true(CPU_COUNT(&seen[SIMDEV_ENGINE_AICORE]) > 0);
            assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
            assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(process), &process), 0);
        }
        assert_int_equal(simdev_finalize(), SIMDEV_SUCCESS);
    }
}

/* simdev with one small device and its default engine affinity; the
 * process's CPUs in *process. */
static void configure_one_device(cpu_set_t *process)
{
    assert_int_equal(sched_getaffinity(0, sizeof(*process), process), 0);
    simdev_config c;
    assert_int_equal(simdev_config_default(&c), SIMDEV_SUCCESS);
    c.device_count = 1;
    c.hbm_bytes = 4u << 20;
    assert_int_equal(simdev_configure(&c), SIMDEV_SUCCESS);
}

/* A one-block kernel runs on the stream's worker, placed on its engine's
 * CPUs; a host function after it runs where the process may. */
static void engine_affinity_host_function_after_inline_kernel_runs_anywhere(void **state)
{
    (void)state;
    cpu_set_t process;
    configure_one_device(&process);
    simdev_stream_t stream = NULL;
    assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, record_aicpu, 1, NULL, 0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_host_func(stream, record_host_fn, NULL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
    if (CPU_COUNT(&process) >= 2)
        assert_false(CPU_EQUAL(&seen[SIMDEV_ENGINE_AICPU], &process));
    assert_true(CPU_EQUAL(&host_fn_seen, &process));
}

/* ---- replay runners keep to one engine ---- */

#define REPLAYS 40
#define GRAPH_KERNELS 4
/* The thread that ran each kernel of each replay. */
static pthread_t ran_by[REPLAYS][GRAPH_KERNELS];
static uint32_t replay_no;

static void record_thread(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    ran_by[replay_no][*(const uint32_t *)args] = pthread_self();
}

static void next_replay(void *user)
{
    (void)user;
    replay_no++;
}

/* The kernel-mode chain's shape, captured from s[0] with kernels[k] as
 * kernel k (each gets its index as argument): on lane 0 an AICPU gate
 * (0), then on lane 1 an AICPU kernel (1) and on lane 2 an AICore kernel
 * (2) that both wait for it, then the AICPU tail (3) on lane 0 after
 * both. */
static simdev_graph_t capture_chain(simdev_stream_t s[3], simdev_event_t *fork, simdev_event_t join[2],
                                    const simdev_kernel_fn kernels[GRAPH_KERNELS])
{
    static const uint32_t ids[GRAPH_KERNELS] = {0, 1, 2, 3};
    static const int engines[GRAPH_KERNELS] = {SIMDEV_ENGINE_AICPU, SIMDEV_ENGINE_AICPU, SIMDEV_ENGINE_AICORE,
                                               SIMDEV_ENGINE_AICPU};
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_stream_create(&s[i]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_create(fork), SIMDEV_SUCCESS);
    for (int i = 0; i < 2; i++)
        assert_int_equal(simdev_event_create(&join[i]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_begin(s[0], SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(s[0], engines[0], kernels[0], 1, &ids[0], 4), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(*fork, s[0]), SIMDEV_SUCCESS);
    for (int i = 1; i < 3; i++)
        assert_int_equal(simdev_stream_wait_event(s[i], *fork), SIMDEV_SUCCESS);
    for (int k = 1; k < 3; k++)
        assert_int_equal(simdev_launch_kernel(s[k], engines[k], kernels[k], 1, &ids[k], 4), SIMDEV_SUCCESS);
    for (int i = 1; i < 3; i++) {
        assert_int_equal(simdev_event_record(join[i - 1], s[i]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_wait_event(s[0], join[i - 1]), SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_launch_kernel(s[0], engines[3], kernels[3], 1, &ids[3], 4), SIMDEV_SUCCESS);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(s[0], &graph), SIMDEV_SUCCESS);
    return graph;
}

static void release_chain(simdev_stream_t s[3], simdev_event_t fork, simdev_event_t join[2], simdev_graph_t graph)
{
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    for (int i = 0; i < 2; i++)
        assert_int_equal(simdev_event_destroy(join[i]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(fork), SIMDEV_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_stream_destroy(s[i]), SIMDEV_SUCCESS);
}

/* With the engines on disjoint CPUs, the AICore kernel goes to a runner
 * that stays on the AICore's CPUs, and the AICPU kernels that run before
 * and beside it stay with runners on the AICPU's (each move would be a
 * system call and a forced migration): no thread that ran the AICore
 * kernel runs the gate or the AICPU kernel beside it in any replay. (The
 * tail, which runs alone, stays with whichever runner finishes last.) */
static void engine_affinity_replay_runners_keep_to_one_engine(void **state)
{
    (void)state;
    cpu_set_t process;
    configure_one_device(&process);
    simdev_stream_t s[3];
    simdev_event_t fork, join[2];
    const simdev_kernel_fn kernels[GRAPH_KERNELS] = {record_thread, record_thread, record_thread, record_thread};
    simdev_graph_t graph = capture_chain(s, &fork, join, kernels);
    replay_no = 0;
    for (int r = 0; r < REPLAYS; r++) {
        assert_int_equal(simdev_graph_launch(graph, s[0]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_launch_host_func(s[0], next_replay, NULL), SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_stream_synchronize(s[0]), SIMDEV_SUCCESS);
    assert_int_equal(replay_no, REPLAYS);
    if (CPU_COUNT(&process) >= 2) {
        /* No thread that ran the AICore kernel ran the gate or the
         * AICPU kernel beside it. */
        for (int r = 0; r < REPLAYS; r++)
            for (int q = 0; q < REPLAYS; q++)
                for (int k = 0; k < 2; k++)
                    assert_false(pthread_equal(ran_by[r][2], ran_by[q][k]));
    }
    release_chain(s, fork, join, graph);
}

/* ---- the last node runs where its runner is ---- */

static simdev_graph_t watched;       /* the graph the kernels below replay in */
static simdev_stream_t launched_on;  /* ... launched on this stream */
static cpu_set_t tail_cpus[REPLAYS]; /* the CPUs the tail ran with */
static uint64_t published_before_tail[REPLAYS]; /* done_early when it started */
static uint32_t tail_count;          /* tails run, as the replays' output */
static int tail_fault;               /* nonzero: the tail reports it */

/* The AICore kernel: records its thread, then waits (bounded) until the
 * AICPU kernel beside it finished its lane (two lanes left: this one and
 * the tail's): the AICore kernel ends last, so its runner makes the tail
 * ready. (Whoever runs the replay: a synchronizer beside the AICore
 * cores runs this kernel itself, as runner 0.) */
static void aicore_ends_last(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    record_thread(block_idx, block_dim, args);
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(&watched->mu);
        int waits = watched->lanes_left == 2;
        pthread_mutex_unlock(&watched->mu);
        if (waits)
            return;
        usleep(100);
    }
}

/* The tail: records its thread, its CPUs and the stream's published
 * completions, then counts itself. */
static void tail_counts(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    record_thread(block_idx, block_dim, args);
    (void)sched_getaffinity(0, sizeof(tail_cpus[0]), &tail_cpus[replay_no]);
    published_before_tail[replay_no] = atomic_load(&launched_on->done_early);
    __atomic_store_n(&tail_count, tail_count + 1, __ATOMIC_RELEASE);
    if (tail_fault != 0)
        (void)simdev_kernel_report_fault(tail_fault);
}

/* The CPU set of `engine`'s pool threads as a cpu_set_t. */
static void engine_cpus(int engine, cpu_set_t *set)
{
    simdev_engine_cpus(0, engine, set);
}

/* Captures the chain whose AICore kernel ends last and whose tail
 * counts (tail_counts) as `watched`, launched on s[0]. */
static void watch_chain(simdev_stream_t s[3], simdev_event_t *fork, simdev_event_t join[2])
{
    const simdev_kernel_fn kernels[GRAPH_KERNELS] = {record_thread, record_thread, aicore_ends_last, tail_counts};
    watched = capture_chain(s, fork, join, kernels);
    launched_on = s[0];
}

/* When the AICore kernel ends last, its runner runs the AICPU tail itself,
 * unmoved (nothing runs beside the last node), instead of handing it to
 * the stream worker; that runner publishes the replay's completion
 * (done_early: its op's index + 1, not before the tail ran, not the ops
 * queued after it), and each synchronize, which may return on it before
 * the worker retires the replay, sees the tail's effect and an async
 * memset queued after the replay. The caller waits from an AICPU CPU,
 * where a synchronize polls (beside the AICore cores it blocks at once
 * and returns on the worker's wake-up). */
static void engine_affinity_replay_last_node_runs_where_its_runner_is(void **state)
{
    (void)state;
    cpu_set_t process;
    configure_one_device(&process);
    simdev_stream_t s[3];
    simdev_event_t fork, join[2];
    watch_chain(s, &fork, join);
    uint8_t *flag = NULL;
    assert_int_equal(simdev_malloc((void **)&flag, 64), SIMDEV_SUCCESS);
    cpu_set_t aicpu, aicore;
    engine_cpus(SIMDEV_ENGINE_AICPU, &aicpu);
    engine_cpus(SIMDEV_ENGINE_AICORE, &aicore);
    int split = CPU_COUNT(&process) >= 2;
    if (split)
        assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(aicpu), &aicpu), 0);
    replay_no = 0;
    tail_count = 0;
    tail_fault = 0;
    uint64_t ops = 0; /* queued on s[0] so far */
    for (int r = 0; r < REPLAYS; r++) {
        replay_no = (uint32_t)r;
        uint64_t op = ops++;
        assert_int_equal(simdev_graph_launch(watched, s[0]), SIMDEV_SUCCESS);
        if (r % 2 == 1) {
            assert_int_equal(simdev_memset_async(flag, r, 64, s[0]), SIMDEV_SUCCESS);
            ops++;
        }
        assert_int_equal(simdev_stream_synchronize(s[0]), SIMDEV_SUCCESS);
        assert_int_equal(__atomic_load_n(&tail_count, __ATOMIC_ACQUIRE), r + 1);
        if (r % 2 == 1)
            assert_int_equal(flag[63], r);
        assert_true(published_before_tail[r] <= op);
        assert_int_equal(atomic_load(&s[0]->done_early), op + 1);
    }
    if (split) {
        assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(process), &process), 0);
        for (int r = 0; r < REPLAYS; r++) {
            assert_true(pthread_equal(ran_by[r][3], ran_by[r][2]));
            assert_true(CPU_EQUAL(&tail_cpus[r], &aicore));
        }
    }
    assert_int_equal(simdev_free(flag), SIMDEV_SUCCESS);
    release_chain(s, fork, join, watched);
}

/* The stream side of an early completion: a synchronize (stream and
 * device) returns once the ops before it are published complete
 * (done_early), though the worker has not retired them; a query still
 * reports them pending. The worker is held inside a host function that
 * waits (bounded) for the caller. */
static atomic_int host_may_return;

static void host_waits_for_caller(void *user)
{
    (void)user;
    for (int i = 0; i < 20000 && !atomic_load(&host_may_return); i++)
        usleep(100);
}

static void engine_affinity_synchronize_returns_on_a_published_completion(void **state)
{
    (void)state;
    cpu_set_t process;
    configure_one_device(&process);
    simdev_stream_t s = NULL;
    assert_int_equal(simdev_stream_create(&s), SIMDEV_SUCCESS);
    atomic_store(&host_may_return, 0);
    assert_int_equal(simdev_launch_host_func(s, host_waits_for_caller, NULL), SIMDEV_SUCCESS);
    atomic_store(&s->done_early, 1);
    assert_int_equal(simdev_stream_synchronize(s), SIMDEV_SUCCESS);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_query(s), SIMDEV_ERROR_NOT_READY);
    atomic_store(&host_may_return, 1);
    assert_int_equal(simdev_stream_destroy(s), SIMDEV_SUCCESS);
}

/* simdev configured with one device; skips the test when the process has
 * fewer than two CPUs (no placement: a synchronize polls). */
static void configure_split_or_skip(cpu_set_t *process)
{
    configure_one_device(process);
    if (CPU_COUNT(process) < 2)
        skip();
}

/* Moves the calling thread onto the AICore engine's CPUs (*aicore). */
static void pin_beside_aicore(cpu_set_t *aicore)
{
    engine_cpus(SIMDEV_ENGINE_AICORE, aicore);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(*aicore), aicore), 0);
    assert_true(sd_engine_runs_here(&sd_g.dev[0].pools[SIMDEV_ENGINE_AICORE]));
}

/* Launches `graph` on s and waits (bounded, 2 s) until the stream worker
 * took it: a synchronize that follows finds it running and blocks (it
 * would run a replay nobody runs yet itself, sd_stream_help). */
static void launch_on_the_worker(simdev_graph_t graph, simdev_stream_t s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t before = s->taken;
    pthread_mutex_unlock(&s->mu);
    assert_int_equal(simdev_graph_launch(graph, s), SIMDEV_SUCCESS);
    int taken = 0;
    for (int i = 0; i < 20000 && !taken; i++) {
        pthread_mutex_lock(&s->mu);
        taken = s->taken > before;
        pthread_mutex_unlock(&s->mu);
        if (!taken)
            usleep(100);
    }
    assert_true(taken);
}

/* A synchronize beside the AICore cores blocks at once; the runner that
 * finishes the replay's last node wakes it, so it returns before the
 * stream worker retires the replay: the worker is held before its retire
 * until the caller returned (bounded, 2 s), and records whether it had. */
#ifdef SIMPLER_VERIFY
/* Waits until *flag is set, for at most 2 s (a hold that must end). */
static void await_flag(atomic_int *flag)
{
    for (int i = 0; i < 20000 && !atomic_load(flag); i++)
        usleep(100);
}

static atomic_int caller_returned;
static atomic_int retire_saw_return; /* -1 until the held retire ends */
static simdev_stream_t retire_held_on;

static void hold_retire(struct simdev_stream *s)
{
    if (s != retire_held_on)
        return;
    await_flag(&caller_returned);
    atomic_store(&retire_saw_return, atomic_load(&caller_returned));
}
#endif

static void engine_affinity_blocked_synchronize_is_woken_by_the_last_runner(void **state)
{
    (void)state;
#ifndef SIMPLER_VERIFY
    skip(); /* the retire hook is compiled in SIMPLER_VERIFY builds only */
#else
    cpu_set_t process;
    configure_split_or_skip(&process);
    simdev_stream_t s[3];
    simdev_event_t fork, join[2];
    watch_chain(s, &fork, join);
    cpu_set_t aicore;
    pin_beside_aicore(&aicore);
    tail_fault = 0;
    for (int r = 0; r < 3; r++) {
        replay_no = (uint32_t)r;
        tail_count = 0;
        atomic_store(&caller_returned, 0);
        atomic_store(&retire_saw_return, -1);
        retire_held_on = s[0];
        atomic_store(&sd_test_before_retire, hold_retire);
        launch_on_the_worker(watched, s[0]);
        assert_int_equal(simdev_stream_synchronize(s[0]), SIMDEV_SUCCESS);
        atomic_store(&caller_returned, 1);
        assert_int_equal(__atomic_load_n(&tail_count, __ATOMIC_ACQUIRE), 1);
        for (int i = 0; i < 20000 && atomic_load(&retire_saw_return) < 0; i++)
            usleep(100);
        atomic_store(&sd_test_before_retire, NULL);
        assert_int_equal(atomic_load(&retire_saw_return), 1);
    }
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(process), &process), 0);
    release_chain(s, fork, join, watched);
#endif
}

/* When the AICPU side ends last while the synchronizer sleeps beside the
 * AICore cores, the tail goes to the idle runner on the AICore's CPUs,
 * which runs it there, unmoved, and wakes the sleeper on its own CPU (the
 * AICPU runner that made it ready would wake it across CPUs). The AICPU
 * kernel beside the AICore one waits (bounded) until the caller sleeps
 * and the AICore kernel's runner is idle. */
static void aicpu_ends_last(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    record_thread(block_idx, block_dim, args);
    for (int i = 0; i < 20000; i++) {
        int ready = atomic_load(&launched_on->early_sleepers) != 0;
        pthread_mutex_lock(&watched->mu);
        int side_idle = 0;
        for (uint32_t r = 1; r < watched->lane_count; r++)
            side_idle |= watched->lane[r].idle && watched->lane[r].placed == SIMDEV_ENGINE_AICORE;
        pthread_mutex_unlock(&watched->mu);
        if (ready && side_idle)
            return;
        usleep(100);
    }
}

static void engine_affinity_last_node_goes_to_the_sleepers_side(void **state)
{
    (void)state;
    cpu_set_t process;
    configure_split_or_skip(&process);
    simdev_stream_t s[3];
    simdev_event_t fork, join[2];
    const simdev_kernel_fn kernels[GRAPH_KERNELS] = {record_thread, aicpu_ends_last, record_thread, tail_counts};
    watched = capture_chain(s, &fork, join, kernels);
    launched_on = s[0];
    cpu_set_t aicore;
    pin_beside_aicore(&aicore);
    tail_fault = 0;
    tail_count = 0;
    for (int r = 0; r < 3; r++) {
        replay_no = (uint32_t)r;
        launch_on_the_worker(watched, s[0]);
        assert_int_equal(simdev_stream_synchronize(s[0]), SIMDEV_SUCCESS);
        assert_int_equal(__atomic_load_n(&tail_count, __ATOMIC_ACQUIRE), r + 1);
        assert_true(pthread_equal(ran_by[r][3], ran_by[r][2]));
        assert_false(pthread_equal(ran_by[r][3], ran_by[r][1]));
        assert_true(CPU_EQUAL(&tail_cpus[r], &aicore));
    }
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(process), &process), 0);
    release_chain(s, fork, join, watched);
}

/* A replay whose last node faults is not published early: the worker
 * records the fault first, and the synchronize returns it. */
static void engine_affinity_faulted_replay_is_not_published_early(void **state)
{
    (void)state;
    cpu_set_t process;
    configure_one_device(&process);
    simdev_stream_t s[3];
    simdev_event_t fork, join[2];
    watch_chain(s, &fork, join);
    replay_no = 0;
    tail_count = 0;
    tail_fault = SIMDEV_ERROR_KERNEL_FAULT;
    assert_int_equal(simdev_graph_launch(watched, s[0]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(s[0]), SIMDEV_ERROR_KERNEL_FAULT);
    assert_int_equal(tail_count, 1);
    assert_int_equal(atomic_load(&s[0]->done_early), 0);
    tail_fault = 0;
    release_chain(s, fork, join, watched);
}

/* Back-to-back replays of a graph of one AICore kernel, queued behind a
 * host function that holds the worker, then an event record: the worker
 * moves beside the AICore cores for the first replay and back beside
 * the AICPU once the record is retired too, not twice per replay (each
 * move a forced migration; 50 replays cost about 90 us each that way).
 * Waited for with queries, which leave the replays to the worker. */
#ifdef SIMPLER_VERIFY
static atomic_int held_open;

static void hold_worker(void *user)
{
    (void)user;
    await_flag(&held_open);
}
#endif

static void engine_affinity_queued_replays_keep_the_worker_in_place(void **state)
{
    (void)state;
#ifndef SIMPLER_VERIFY
    skip(); /* the move count is compiled in SIMPLER_VERIFY builds only */
#else
    cpu_set_t process;
    configure_split_or_skip(&process);
    simdev_stream_t s;
    simdev_graph_t g = NULL;
    assert_int_equal(simdev_stream_create(&s), SIMDEV_SUCCESS);
    assert_int_equal(simdev_setup_capture_kernel(s, SIMDEV_ENGINE_AICORE, record_aicore, &g), SIMDEV_SUCCESS);
    atomic_store(&held_open, 0);
    assert_int_equal(simdev_launch_host_func(s, hold_worker, NULL), SIMDEV_SUCCESS);
    uint64_t before = atomic_load(&sd_test_moves);
    for (int r = 0; r < 50; r++)
        assert_int_equal(simdev_graph_launch(g, s), SIMDEV_SUCCESS);
    simdev_event_t e;
    assert_int_equal(simdev_event_create(&e), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(e, s), SIMDEV_SUCCESS);
    atomic_store(&held_open, 1);
    int rc;
    for (int i = 0; i < 100000 && (rc = simdev_stream_query(s)) == SIMDEV_ERROR_NOT_READY; i++)
        usleep(100);
    assert_int_equal(rc, SIMDEV_SUCCESS);
    /* The move back follows the retire the query saw: wait for it. */
    cpu_set_t aicpu, now;
    simdev_engine_cpus(0, SIMDEV_ENGINE_AICPU, &aicpu);
    for (int i = 0; i < 20000; i++) {
        assert_int_equal(pthread_getaffinity_np(s->worker, sizeof(now), &now), 0);
        if (CPU_EQUAL(&now, &aicpu))
            break;
        usleep(100);
    }
    assert_true(CPU_EQUAL(&now, &aicpu));
    uint64_t moves = atomic_load(&sd_test_moves) - before;
    assert_true(moves <= 3); /* into place, back, and the host function's move out at most */
    assert_int_equal(simdev_event_destroy(e), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(s), SIMDEV_SUCCESS);
#endif
}

/* How many of the process's threads are named `name`. */
static int threads_named(const char *name)
{
    DIR *dir = opendir("/proc/self/task");
    assert_non_null(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[64], comm[32] = {0};
        snprintf(path, sizeof(path), "/proc/self/task/%.20s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue; /* the thread ended meanwhile */
        if (fgets(comm, sizeof(comm), f) != NULL) {
            comm[strcspn(comm, "\n")] = '\0';
            n += strcmp(comm, name) == 0;
        }
        fclose(f);
    }
    closedir(dir);
    return n;
}

/* Waits (up to 10 s) until `count` threads are named `name`: a thread
 * names itself when it first runs. */
static void expect_threads_named(const char *name, int count)
{
    for (int i = 0; i < 10000 && threads_named(name) != count; i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    assert_int_equal(threads_named(name), count);
}

static void engine_threads_are_named_by_role(void **state)
{
    (void)state;
    simdev_config c;
    assert_int_equal(simdev_config_default(&c), SIMDEV_SUCCESS);
    c.device_count = 2;
    c.hbm_bytes = 4u << 20;
    assert_int_equal(simdev_configure(&c), SIMDEV_SUCCESS);
    simdev_stream_t stream[2] = {NULL, NULL};
    for (int d = 0; d < 2; d++) {
        assert_int_equal(simdev_set_device(d), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_create(&stream[d]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_launch_kernel(stream[d], SIMDEV_ENGINE_AICPU, record_aicpu, 2, NULL, 0),
                         SIMDEV_SUCCESS);
        assert_int_equal(simdev_launch_kernel(stream[d], SIMDEV_ENGINE_AICORE, record_aicore, 2, NULL, 0),
                         SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(stream[d]), SIMDEV_SUCCESS);
    }
    expect_threads_named("simdev0-aicpu", (int)c.aicpu_threads);
    expect_threads_named("simdev0-aicore", (int)(c.aic_cores + c.aiv_cores));
    expect_threads_named("simdev1-aicpu", (int)c.aicpu_threads);
    expect_threads_named("simdev1-aicore", (int)(c.aic_cores + c.aiv_cores));
    expect_threads_named("simdev-stream", 2);
    for (int d = 0; d < 2; d++) {
        assert_int_equal(simdev_set_device(d), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_destroy(stream[d]), SIMDEV_SUCCESS);
    }
    expect_threads_named("simdev-stream", 0);

    /* A replay of a graph with two lanes starts a runner for the second. */
    assert_int_equal(simdev_set_device(0), SIMDEV_SUCCESS);
    replay_no = 0; /* record_thread writes ran_by[replay_no] */
    simdev_stream_t s[3];
    simdev_event_t fork, join[2];
    const simdev_kernel_fn kernels[GRAPH_KERNELS] = {record_thread, record_thread, record_thread, record_thread};
    simdev_graph_t graph = capture_chain(s, &fork, join, kernels);
    assert_int_equal(simdev_graph_launch(graph, s[0]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(s[0]), SIMDEV_SUCCESS);
    for (int i = 0; i < 10000 && threads_named("simdev-runner") == 0; i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL); /* a runner names itself when it first runs */
    assert_true(threads_named("simdev-runner") >= 1);
    release_chain(s, fork, join, graph);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(engine_affinity_on_splits_the_process_cpus, clean, clean),
        cmocka_unit_test_setup_teardown(engine_affinity_off_leaves_threads_alone, clean, clean),
        cmocka_unit_test_setup_teardown(engine_affinity_runs_here_names_the_engine_cpus, clean, clean),
        cmocka_unit_test_setup_teardown(engine_affinity_host_function_after_inline_kernel_runs_anywhere, clean,
                                        clean),
        cmocka_unit_test_setup_teardown(engine_affinity_replay_runners_keep_to_one_engine, clean, clean),
        cmocka_unit_test_setup_teardown(engine_affinity_replay_last_node_runs_where_its_runner_is, clean, clean),
        cmocka_unit_test_setup_teardown(engine_affinity_faulted_replay_is_not_published_early, clean, clean),
        cmocka_unit_test_setup_teardown(engine_affinity_blocked_synchronize_is_woken_by_the_last_runner, clean,
                                        clean),
        cmocka_unit_test_setup_teardown(engine_affinity_last_node_goes_to_the_sleepers_side, clean, clean),
        cmocka_unit_test_setup_teardown(engine_affinity_synchronize_returns_on_a_published_completion, clean,
                                        clean),
        cmocka_unit_test_setup_teardown(engine_threads_are_named_by_role, clean, clean),
        cmocka_unit_test_setup_teardown(engine_affinity_queued_replays_keep_the_worker_in_place, clean, clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
