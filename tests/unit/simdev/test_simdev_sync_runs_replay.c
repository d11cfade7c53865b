/*
 * A synchronize runs a queued replay itself: a thread that synchronizes a
 * stream whose next op is a graph replay nobody runs yet runs it on its own
 * thread, as the stream worker would: the lanes of the engine it sits
 * beside there (the AICPU's, or with no placement every lane it can), the
 * other engine's lanes handed to the graph's runners. While synchronizers
 * run the stream's replays it also runs the ops that feed them (copies,
 * fills, one-block AICPU kernels). It never changes the thread's CPU
 * affinity, leaves every other kind of op to the worker, records a kernel
 * fault as the stream's, and leaves no op queued meanwhile waiting for a
 * worker that slept.
 *
 * Which thread takes a replay is a race the synchronizing thread usually
 * wins (the worker shares the caller's CPU here), so the tests that need
 * the synchronizer to have run one repeat the launch until it did
 * (bounded) and check what must hold for each replay it ran.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "simdev/sd_internal.h"
#include "simdev_engine_cpus.h"
#include "simdev_setup.h"
#include "support.h"

#define ATTEMPTS 40

static pthread_t caller;
static cpu_set_t process_cpus; /* the caller's CPUs before a test pinned it */

static int clean(void **state)
{
    (void)state;
    (void)pthread_setaffinity_np(pthread_self(), sizeof(process_cpus), &process_cpus);
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

/* One device, engine affinity as the defaults give it (on); the
 * process's CPUs in *process. */
static void configure(cpu_set_t *process)
{
    assert_int_equal(sched_getaffinity(0, sizeof(*process), process), 0);
    process_cpus = *process;
    simdev_config c;
    assert_int_equal(simdev_config_default(&c), SIMDEV_SUCCESS);
    c.device_count = 1;
    c.hbm_bytes = 4u << 20;
    assert_int_equal(simdev_configure(&c), SIMDEV_SUCCESS);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS); /* starts simdev: engines placed */
    caller = pthread_self();
}

/* Pins the calling thread beside `engine` (its pool's CPUs); 0 when the
 * engines are not placed (fewer than two CPUs): nothing pinned then. */
static int pin_beside(int engine)
{
    cpu_set_t set;
    simdev_engine_cpus(0, engine, &set);
    if (CPU_COUNT(&set) == 0)
        return 0;
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(set), &set), 0);
    return 1;
}

/* ---- a two-lane replay whose kernels record their thread ---- */

enum { K_FIRST, K_AICORE, K_LAST, KERNELS };
static pthread_t ran_on[KERNELS];
static cpu_set_t ran_cpus[KERNELS]; /* the affinity each kernel ran with */

static void record(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    uint32_t k = *(const uint32_t *)args;
    ran_on[k] = pthread_self();
    (void)sched_getaffinity(0, sizeof(ran_cpus[k]), &ran_cpus[k]);
}

/* simdev configured (configure) and a captured two-lane graph: on s[0]
 * an AICPU kernel, then an AICore kernel on s[1] (lane 1) after it, then
 * an AICPU kernel on s[0] after both. */
struct two_lanes {
    cpu_set_t process;
    simdev_stream_t s[2];
    simdev_event_t ev[2];
    simdev_graph_t graph;
};

static void two_lanes_open(struct two_lanes *t)
{
    static const uint32_t ids[KERNELS] = {K_FIRST, K_AICORE, K_LAST};
    configure(&t->process);
    simdev_stream_t *s = t->s;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(simdev_stream_create(&s[i]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_event_create(&t->ev[i]), SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_capture_begin(s[0], SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(s[0], SIMDEV_ENGINE_AICPU, record, 1, &ids[K_FIRST], 4), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(t->ev[0], s[0]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(s[1], t->ev[0]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(s[1], SIMDEV_ENGINE_AICORE, record, 1, &ids[K_AICORE], 4), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(t->ev[1], s[1]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(s[0], t->ev[1]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(s[0], SIMDEV_ENGINE_AICPU, record, 1, &ids[K_LAST], 4), SIMDEV_SUCCESS);
    t->graph = NULL;
    assert_int_equal(simdev_capture_end(s[0], &t->graph), SIMDEV_SUCCESS);
}

/* Releases it all (the graph unless a test destroyed it: NULL) and gives
 * the calling thread its CPUs back. */
static void two_lanes_close(struct two_lanes *t)
{
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(t->process), &t->process), 0);
    if (t->graph != NULL)
        assert_int_equal(simdev_graph_destroy(t->graph), SIMDEV_SUCCESS);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(simdev_event_destroy(t->ev[i]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_destroy(t->s[i]), SIMDEV_SUCCESS);
    }
}

/* Moves the calling thread onto the AICPU engine's CPUs and lets it go
 * again to `cpus`: it stays where it is for a while, so a synchronize
 * right after starts beside the AICPU without being pinned there. */
static void hop_beside_aicpu(const cpu_set_t *cpus)
{
    cpu_set_t aicpu;
    simdev_engine_cpus(0, SIMDEV_ENGINE_AICPU, &aicpu);
    if (CPU_COUNT(&aicpu) == 0)
        return;
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(aicpu), &aicpu), 0);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(*cpus), cpus), 0);
}

/* Launches and synchronizes `graph` on s ATTEMPTS times (with `hop`, each
 * synchronize starting beside the AICPU, hop_beside_aicpu); returns how
 * many of the replays the synchronizer ran (it ran the kernel `mine`),
 * checking each: the thread never moved, ran that kernel where it was,
 * and, the engines being placed, left the other engine's kernels to graph
 * runners placed on that engine's CPUs, except K_LAST: the replay's last
 * node runs unmoved on whichever runner is there to run it. */
static int replays_run_by_caller(simdev_graph_t graph, simdev_stream_t s, int hop, cpu_set_t *caller_cpus, int mine)
{
    int by_caller = 0;
    int other_engine = mine == K_AICORE ? SIMDEV_ENGINE_AICPU : SIMDEV_ENGINE_AICORE;
    cpu_set_t other_cpus;
    simdev_engine_cpus(0, other_engine, &other_cpus);
    for (int a = 0; a < ATTEMPTS; a++) {
        memset(ran_on, 0, sizeof(ran_on));
        if (hop)
            hop_beside_aicpu(caller_cpus);
        assert_int_equal(simdev_graph_launch(graph, s), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(s), SIMDEV_SUCCESS);
        cpu_set_t now;
        assert_int_equal(sched_getaffinity(0, sizeof(now), &now), 0);
        assert_true(CPU_EQUAL(&now, caller_cpus)); /* never moved */
        if (!pthread_equal(ran_on[mine], caller))
            continue;
        by_caller++;
        assert_true(CPU_EQUAL(&ran_cpus[mine], caller_cpus)); /* ran where it was */
        if (CPU_COUNT(&other_cpus) == 0)
            continue;
        for (int k = 0; k < KERNELS; k++) { /* the other engine's lanes went to runners placed there */
            if (k == K_LAST || (k == K_AICORE) != (other_engine == SIMDEV_ENGINE_AICORE))
                continue;
            assert_false(pthread_equal(ran_on[k], caller));
            assert_true(CPU_EQUAL(&ran_cpus[k], &other_cpus));
        }
    }
    return by_caller;
}

/* Beside the AICPU engine's CPUs (or with no placement), a synchronize
 * runs the replay it waits for on its own thread, where the thread is:
 * its affinity is the same inside the kernel and after, and the AICore
 * lane goes to a graph runner on the AICore's CPUs. */
static void sync_beside_the_aicpu_runs_the_replay_itself(void **state)
{
    (void)state;
    struct two_lanes t;
    two_lanes_open(&t);
    cpu_set_t mine = t.process;
    if (pin_beside(SIMDEV_ENGINE_AICPU))
        simdev_engine_cpus(0, SIMDEV_ENGINE_AICPU, &mine);
    assert_true(replays_run_by_caller(t.graph, t.s[0], 0, &mine, K_FIRST) > 0);
    two_lanes_close(&t);
}

/* Unpinned, a synchronize that starts on an AICPU CPU runs the replay
 * without placing its thread on the AICPU's CPUs: the thread keeps every
 * CPU the process has. */
static void sync_runs_the_replay_without_moving_an_unpinned_caller(void **state)
{
    (void)state;
    struct two_lanes t;
    two_lanes_open(&t);
    assert_true(replays_run_by_caller(t.graph, t.s[0], 1, &t.process, K_FIRST) > 0);
    two_lanes_close(&t);
}

/* Beside the AICore cores, a synchronize runs the replay's AICore lane
 * itself, where it is, and hands the AICPU lanes to a graph runner placed
 * on the AICPU's CPUs: the replay's kernels still run on their engines'
 * CPUs, and the worker, which would start it from the other vCPU, is not
 * in its way. */
static void sync_beside_the_aicore_runs_the_aicore_lane_itself(void **state)
{
    (void)state;
    struct two_lanes t;
    two_lanes_open(&t);
    if (!pin_beside(SIMDEV_ENGINE_AICORE))
        skip(); /* one CPU: nothing placed */
    cpu_set_t mine;
    simdev_engine_cpus(0, SIMDEV_ENGINE_AICORE, &mine);
    assert_true(replays_run_by_caller(t.graph, t.s[0], 0, &mine, K_AICORE) > 0);
    two_lanes_close(&t);
}

/* ---- ops other than replays stay with the worker ---- */

static pthread_t host_fn_ran_on;
static pthread_t kernel_ran_on;

static void record_host_fn(void *user)
{
    (void)user;
    host_fn_ran_on = pthread_self();
}

static void record_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    (void)args;
    kernel_ran_on = pthread_self();
}

/* A host function and a kernel queued behind a replay run on the worker,
 * also when the synchronizer ran the replay before them. */
static void sync_leaves_other_ops_to_the_worker(void **state)
{
    (void)state;
    struct two_lanes t;
    two_lanes_open(&t);
    (void)pin_beside(SIMDEV_ENGINE_AICPU);
    simdev_stream_t s0 = t.s[0];
    int by_caller = 0;
    for (int a = 0; a < ATTEMPTS && by_caller == 0; a++) {
        memset(ran_on, 0, sizeof(ran_on));
        assert_int_equal(simdev_graph_launch(t.graph, s0), SIMDEV_SUCCESS);
        assert_int_equal(simdev_launch_host_func(s0, record_host_fn, NULL), SIMDEV_SUCCESS);
        assert_int_equal(simdev_launch_kernel(s0, SIMDEV_ENGINE_AICPU, record_kernel, 1, NULL, 0), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(s0), SIMDEV_SUCCESS);
        by_caller += pthread_equal(ran_on[K_FIRST], caller) != 0;
        assert_false(pthread_equal(host_fn_ran_on, caller));
        assert_false(pthread_equal(kernel_ran_on, caller));
    }
    assert_true(by_caller > 0);
    two_lanes_close(&t);
}

/* ---- a fault in a replay the synchronizer ran ---- */

static void fault_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    (void)args;
    kernel_ran_on = pthread_self();
    (void)simdev_kernel_report_fault(SIMDEV_ERROR_KERNEL_FAULT);
}

/* The synchronize that ran a faulting replay returns the kernel's code,
 * and the stream is faulted for every later call. */
static void sync_returns_the_fault_of_a_replay_it_ran(void **state)
{
    (void)state;
    cpu_set_t process;
    configure(&process);
    (void)pin_beside(SIMDEV_ENGINE_AICPU);
    int by_caller = 0;
    for (int a = 0; a < ATTEMPTS && by_caller == 0; a++) {
        simdev_stream_t s;
        simdev_graph_t graph = NULL;
        assert_int_equal(simdev_stream_create(&s), SIMDEV_SUCCESS);
        assert_int_equal(simdev_setup_capture_kernel(s, SIMDEV_ENGINE_AICPU, fault_kernel, &graph), SIMDEV_SUCCESS);
        kernel_ran_on = (pthread_t)0;
        assert_int_equal(simdev_graph_launch(graph, s), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(s), SIMDEV_ERROR_KERNEL_FAULT);
        assert_int_equal(simdev_stream_query(s), SIMDEV_ERROR_KERNEL_FAULT);
        assert_int_equal(simdev_stream_synchronize(s), SIMDEV_ERROR_KERNEL_FAULT);
        by_caller += pthread_equal(kernel_ran_on, caller) != 0;
        assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_destroy(s), SIMDEV_SUCCESS);
    }
    assert_true(by_caller > 0);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(process), &process), 0);
}

/* ---- an op queued while the synchronizer runs a replay ---- */

static simdev_stream_t shared;
static atomic_int replay_started; /* by the caller, inside the replay */
static atomic_int queued;         /* the other thread queued its op */
static atomic_int other_ran;      /* ... and it ran */

/* When the synchronizer runs it: lets the other thread queue, then
 * outlasts the worker's poll (20 us) by far, so the worker woken by that
 * launch finds the replay still running, polls and blocks again. */
static void slow_when_on_caller(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    (void)args;
    if (!pthread_equal(pthread_self(), caller))
        return;
    atomic_store(&replay_started, 1);
    for (int i = 0; i < 20000 && !atomic_load(&queued); i++)
        usleep(100);
    usleep(30000);
}

static void mark_other(void *user)
{
    (void)user;
    atomic_store(&other_ran, 1);
}

static void *queue_behind(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000 && !atomic_load(&replay_started); i++)
        usleep(100);
    if (atomic_load(&replay_started))
        (void)simdev_launch_host_func(shared, mark_other, NULL);
    atomic_store(&queued, 1);
    return NULL;
}

/* An op another thread queues while the synchronizer runs a replay runs
 * after it, on the worker, though the worker had gone to sleep again
 * (the synchronizer wakes it when it leaves an op queued). Bounded: a
 * worker left asleep fails the test, and a last launch wakes it so the
 * stream can be destroyed. */
static void sync_wakes_the_worker_for_an_op_queued_meanwhile(void **state)
{
    (void)state;
    cpu_set_t process;
    configure(&process);
    (void)pin_beside(SIMDEV_ENGINE_AICPU);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_stream_create(&shared), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_begin(shared, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(shared, SIMDEV_ENGINE_AICPU, slow_when_on_caller, 1, NULL, 0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_end(shared, &graph), SIMDEV_SUCCESS);
    int by_caller = 0, ran = 0;
    for (int a = 0; a < ATTEMPTS && by_caller == 0; a++) {
        atomic_store(&replay_started, 0);
        atomic_store(&queued, 0);
        atomic_store(&other_ran, 0);
        pthread_t other; /* started first: nothing between the launch and the synchronize */
        assert_int_equal(pthread_create(&other, NULL, queue_behind, NULL), 0);
        assert_int_equal(simdev_graph_launch(graph, shared), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(shared), SIMDEV_SUCCESS);
        by_caller = atomic_load(&replay_started);
        if (!by_caller) {
            atomic_store(&replay_started, 1); /* release the other thread at once */
        }
        assert_int_equal(pthread_join(other, NULL), 0);
        for (int i = 0; i < 20000 && !atomic_load(&other_ran); i++)
            usleep(100);
        ran = atomic_load(&other_ran);
        if (!ran)
            (void)simdev_launch_host_func(shared, mark_other, NULL); /* wakes a sleeping worker */
        assert_int_equal(simdev_stream_synchronize(shared), SIMDEV_SUCCESS);
        assert_true(ran);
    }
    assert_true(by_caller);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(shared), SIMDEV_SUCCESS);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(process), &process), 0);
}

#ifdef SIMPLER_VERIFY
/* Queries s every 100 us until its work is done (at most 2 s): a query
 * wakes a worker that waits for a synchronize. */
static void query_until_done(simdev_stream_t s)
{
    int rc = SIMDEV_ERROR_NOT_READY;
    for (int i = 0; i < 20000 && rc == SIMDEV_ERROR_NOT_READY; i++) {
        rc = simdev_stream_query(s);
        if (rc == SIMDEV_ERROR_NOT_READY)
            usleep(100);
    }
    assert_int_equal(rc, SIMDEV_SUCCESS);
}
#endif

/* ---- a replay launched behind one a synchronizer ran ---- */

#ifdef SIMPLER_VERIFY
/* Whether s's worker waits for the next synchronize to take what is
 * launched next (helped mode), looked for `polls` times 100 us apart. */
static int worker_waits_for_a_synchronize(simdev_stream_t s, int polls)
{
    int helped = 0;
    for (int i = 0; i < polls && !helped; i++) {
        pthread_mutex_lock(&s->mu);
        helped = s->helped && s->worker_waits == SD_WAITS_HELP;
        pthread_mutex_unlock(&s->mu);
        if (!helped)
            usleep(100);
    }
    return helped;
}

/* Launches and synchronizes `graph` on s until the synchronizer ran it
 * and the worker waits for the next synchronize (bounded): a replay
 * launched next is then left to that synchronize. */
static void replay_until_helped(simdev_graph_t graph, simdev_stream_t s)
{
    int helped = 0;
    for (int a = 0; a < ATTEMPTS && !helped; a++) {
        pthread_mutex_lock(&s->mu);
        s->late = 0; /* a test's replays may have been late on purpose */
        pthread_mutex_unlock(&s->mu);
        assert_int_equal(simdev_graph_launch(graph, s), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(s), SIMDEV_SUCCESS);
        helped = worker_waits_for_a_synchronize(s, 100);
    }
    assert_true(helped);
}

/* Opens the two-lane graph with the caller beside the AICore cores (skips
 * with one CPU: every launch then signals the worker), sets the worker's
 * wait for a left replay to `wait_ns` and replays until the next launch
 * is left to a synchronize (replay_until_helped). */
static void open_helped_beside_the_aicore(struct two_lanes *t, uint64_t wait_ns)
{
    two_lanes_open(t);
    if (!pin_beside(SIMDEV_ENGINE_AICORE))
        skip();
    atomic_store(&sd_test_help_wait_ns, wait_ns);
    replay_until_helped(t->graph, t->s[0]);
}

/* Whether the stream retired `ops` ops within 2 s, looked at without any
 * call that could wake its worker. */
static int retires_unasked(simdev_stream_t s, uint64_t ops)
{
    for (int i = 0; i < 20000; i++) {
        if (atomic_load(&s->tail) >= ops)
            return 1;
        usleep(100);
    }
    return 0;
}
#endif

/* Launched beside the AICore cores, a replay behind one a synchronizer
 * ran is left to the next synchronize, but runs without one: a query
 * wakes the worker for it, a destroy too, and with nothing asked the
 * worker starts it after its bounded wait (here shortened to 1 ms; made
 * an hour, no wait could end the test but the query's and the destroy's
 * wake-ups). */
static void replay_left_to_a_synchronize_still_runs_without_one(void **state)
{
    (void)state;
#ifndef SIMPLER_VERIFY
    skip(); /* the wait's override is compiled in SIMPLER_VERIFY builds only */
#else
    struct two_lanes t;
    const uint64_t hour = 3600ull * 1000000000ull;
    open_helped_beside_the_aicore(&t, hour); /* a query wakes it */
    simdev_stream_t s0 = t.s[0];
    assert_int_equal(simdev_graph_launch(t.graph, s0), SIMDEV_SUCCESS);
    query_until_done(s0);

    atomic_store(&sd_test_help_wait_ns, 1000000u); /* nothing asked: the wait ends */
    replay_until_helped(t.graph, s0);
    uint64_t before = atomic_load(&s0->tail);
    assert_int_equal(simdev_graph_launch(t.graph, s0), SIMDEV_SUCCESS);
    assert_true(retires_unasked(s0, before + 1));

    atomic_store(&sd_test_help_wait_ns, hour); /* a destroy wakes it */
    replay_until_helped(t.graph, s0);
    memset(ran_on, 0, sizeof(ran_on));
    assert_int_equal(simdev_graph_launch(t.graph, s0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(t.graph), SIMDEV_SUCCESS); /* waits for the replay */
    t.graph = NULL;
    assert_false(pthread_equal(ran_on[K_LAST], (pthread_t)0));
    atomic_store(&sd_test_help_wait_ns, 0);
    two_lanes_close(&t);
#endif
}

/* A stream whose left replay a synchronize took late (here 5 ms after
 * its launch) signals its worker at every launch again: the next replay
 * runs without a synchronize although the worker's wait is an hour, so
 * it overlaps whatever the caller does meanwhile. */
static void replay_synchronized_late_is_no_longer_left(void **state)
{
    (void)state;
#ifndef SIMPLER_VERIFY
    skip(); /* the wait's override is compiled in SIMPLER_VERIFY builds only */
#else
    struct two_lanes t;
    open_helped_beside_the_aicore(&t, 3600ull * 1000000000ull);
    simdev_stream_t s0 = t.s[0];
    assert_int_equal(simdev_graph_launch(t.graph, s0), SIMDEV_SUCCESS);
    usleep(5000);
    assert_int_equal(simdev_stream_synchronize(s0), SIMDEV_SUCCESS);
    uint64_t before = atomic_load(&s0->tail);
    assert_int_equal(simdev_graph_launch(t.graph, s0), SIMDEV_SUCCESS);
    assert_true(retires_unasked(s0, before + 1));
    atomic_store(&sd_test_help_wait_ns, 0);
    two_lanes_close(&t);
#endif
}

/* ---- the ops that feed a left replay ---- */

#ifdef SIMPLER_VERIFY
static atomic_int worker_retires;
static uint32_t fed_saw; /* the first word of the fed buffer, as the fed kernel saw it */

static void count_worker_retire(struct simdev_stream *s)
{
    (void)s;
    atomic_fetch_add(&worker_retires, 1);
}

static void slow_feed(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    (void)args;
    usleep(50000);
    kernel_ran_on = pthread_self();
}

/* Block 0 records (the thread that takes a launch runs its block 0). */
static void read_fed(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    if (block_idx != 0)
        return;
    fed_saw = **(uint32_t *const *)args;
    kernel_ran_on = pthread_self();
}

#define FED_WORD 7u

/* One step fed the way a decode loop feeds it, on t's stream 0: with
 * `fill_copy` a fill of buf and a copy of FED_WORD into its first word,
 * then a one-block AICPU kernel that reads that word, then a replay of
 * t's graph; synchronized. Checks that the synchronizing thread ran the
 * kernel and the worker retired none of the step's ops; returns the
 * word the kernel read. */
static uint32_t fed_step_on_the_synchronizer(struct two_lanes *t, uint32_t *buf, int fill_copy)
{
    static const uint32_t word = FED_WORD;
    simdev_stream_t s0 = t->s[0];
    pthread_mutex_lock(&s0->mu);
    s0->late = 0; /* a slow synchronize before (valgrind) may have set it */
    pthread_mutex_unlock(&s0->mu);
    atomic_store(&worker_retires, 0);
    atomic_store(&sd_test_before_retire, count_worker_retire);
    fed_saw = 0;
    kernel_ran_on = (pthread_t)0;
    memset(ran_on, 0, sizeof(ran_on));
    if (fill_copy) {
        assert_int_equal(simdev_memset_async(buf, 0xff, 64, s0), SIMDEV_SUCCESS);
        assert_int_equal(simdev_memcpy_async(buf, &word, sizeof(word), s0), SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_launch_kernel(s0, SIMDEV_ENGINE_AICPU, read_fed, 1, &buf, sizeof(buf)), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_launch(t->graph, s0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(s0), SIMDEV_SUCCESS);
    atomic_store(&sd_test_before_retire, NULL);
    assert_int_equal(atomic_load(&worker_retires), 0);
    assert_true(pthread_equal(kernel_ran_on, caller));
    assert_false(pthread_equal(ran_on[K_LAST], (pthread_t)0));
    return fed_saw;
}

#define HOUR_NS (3600ull * 1000000000ull)

/* Opens t (with `helped`, in the mode where launches are left to the
 * next synchronize: open_helped_beside_the_aicore), makes the worker's
 * wait for a synchronize an hour and returns a 64-byte device buffer. */
static uint32_t *fed_open(struct two_lanes *t, int helped)
{
    uint32_t *buf = NULL;
    if (helped)
        open_helped_beside_the_aicore(t, HOUR_NS);
    else
        two_lanes_open(t);
    atomic_store(&sd_test_help_wait_ns, HOUR_NS);
    assert_int_equal(simdev_malloc((void **)&buf, 64), SIMDEV_SUCCESS);
    return buf;
}

static void fed_close(struct two_lanes *t, uint32_t *buf)
{
    atomic_store(&sd_test_help_wait_ns, 0);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
    two_lanes_close(t);
}
#endif

/* While synchronizers run a stream's replays, a fill, a copy and a
 * one-block AICPU kernel queued ahead of a replay (simpler's argument
 * store is such a kernel) are left to the next synchronize with it: the
 * synchronizer runs them in order on its own thread, and the worker
 * (whose wait is made an hour) retires none of them. A fill left with
 * no replay behind it runs on a query. A two-block kernel and a
 * one-block AICore kernel still go to the worker at once. */
static void sync_runs_the_ops_that_feed_a_left_replay(void **state)
{
    (void)state;
#ifndef SIMPLER_VERIFY
    skip(); /* the wait's override and the retire hook are compiled in SIMPLER_VERIFY builds only */
#else
    struct two_lanes t;
    uint32_t *buf = fed_open(&t, 1);
    simdev_stream_t s0 = t.s[0];
    /* the fill, then the copy, then the kernel */
    assert_int_equal(fed_step_on_the_synchronizer(&t, buf, 1), FED_WORD);

    /* A fill left with no replay behind it still runs without a
     * synchronize: a query wakes the worker for it. */
    replay_until_helped(t.graph, s0);
    assert_int_equal(simdev_memset_async(buf, 0, 64, s0), SIMDEV_SUCCESS);
    query_until_done(s0);

    static const simdev_engine engines[] = {SIMDEV_ENGINE_AICPU, SIMDEV_ENGINE_AICORE};
    static const uint32_t blocks[] = {2, 1};
    for (int i = 0; i < 2; i++) {
        replay_until_helped(t.graph, s0);
        kernel_ran_on = (pthread_t)0;
        assert_int_equal(simdev_launch_kernel(s0, engines[i], read_fed, blocks[i], &buf, sizeof(buf)), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(s0), SIMDEV_SUCCESS);
        assert_false(pthread_equal(kernel_ran_on, caller));
    }
    fed_close(&t, buf);
#endif
}

/* A replay the worker ran behind an op that fed it, synchronized while
 * the worker still ran that op (a 50 ms kernel, so the synchronize never
 * saw the replay next), leaves the next step to the next synchronize as
 * a replay a synchronizer ran does: the worker (its wait an hour) then
 * waits for that synchronize, which runs the step's kernel and replay on
 * its own thread. */
static void replay_the_worker_ran_behind_a_feed_leaves_the_next_to_a_synchronize(void **state)
{
    (void)state;
#ifndef SIMPLER_VERIFY
    skip(); /* the wait's override and the retire hook are compiled in SIMPLER_VERIFY builds only */
#else
    struct two_lanes t;
    uint32_t *buf = fed_open(&t, 0);
    simdev_stream_t s0 = t.s[0];
    kernel_ran_on = (pthread_t)0;
    assert_int_equal(simdev_launch_kernel(s0, SIMDEV_ENGINE_AICPU, slow_feed, 1, NULL, 0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_launch(t.graph, s0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(s0), SIMDEV_SUCCESS);
    assert_false(pthread_equal(kernel_ran_on, caller)); /* the worker ran both */
    assert_true(worker_waits_for_a_synchronize(s0, 10000));
    (void)fed_step_on_the_synchronizer(&t, buf, 0);
    fed_close(&t, buf);
#endif
}

/* ---- a graph's helper runner napping beside the AICore cores ---- */

#ifdef SIMPLER_VERIFY
/* Whether the graph's helper runner 1, idle, blocks until a hand-off:
 * looked for every 100 us for up to `polls` times (it may still be
 * napping), then once more after `ms`. */
static int helper_sleeps(simdev_graph_t g, int polls, int ms)
{
    int sleeping = 0;
    for (int i = 0; i <= polls && !sleeping; i++) {
        usleep(i < polls ? 100u : (useconds_t)ms * 1000u);
        pthread_mutex_lock(&g->mu);
        assert_true(g->lane[1].idle);
        sleeping = g->lane[1].sleeping;
        pthread_mutex_unlock(&g->mu);
    }
    return sleeping;
}

/* Replays t's graph until the helper runner ran its AICore lane (a first
 * replay may go otherwise; bounded). */
static void replay_until_helper_runs_the_aicore_lane(struct two_lanes *t)
{
    int helper_ran = 0;
    for (int a = 0; a < ATTEMPTS && !helper_ran; a++) {
        memset(ran_on, 0, sizeof(ran_on));
        assert_int_equal(simdev_graph_launch(t->graph, t->s[0]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(t->s[0]), SIMDEV_SUCCESS);
        helper_ran = pthread_equal(ran_on[K_AICORE], t->graph->threads[0]) != 0;
    }
    assert_true(helper_ran);
}
#endif

/* With the caller beside the AICPU, a replay's AICore lane runs on the
 * graph's helper runner (thread 0 of the graph's helpers), placed on the
 * AICore's CPUs. Idle after it, the helper polls briefly, then naps
 * instead of blocking for the naps' window (here an hour: still napping
 * 50 ms later), then blocks (a 1 ms window). A replay of another graph
 * ends an hour's naps too. */
static void idle_helper_beside_the_aicore_naps_then_blocks(void **state)
{
    (void)state;
#ifndef SIMPLER_VERIFY
    skip(); /* the nap window's override is compiled in SIMPLER_VERIFY builds only */
#else
    struct two_lanes t;
    two_lanes_open(&t);
    if (!pin_beside(SIMDEV_ENGINE_AICPU))
        skip(); /* one CPU: nothing placed, no naps */
    atomic_store(&sd_test_nap_window_ns, HOUR_NS);
    replay_until_helper_runs_the_aicore_lane(&t);
    assert_false(helper_sleeps(t.graph, 0, 50));

    simdev_stream_t other;
    simdev_graph_t one = NULL;
    static const uint32_t id = K_FIRST;
    assert_int_equal(simdev_stream_create(&other), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_begin(other, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(other, SIMDEV_ENGINE_AICPU, record, 1, &id, 4), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_end(other, &one), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_launch(one, other), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(other), SIMDEV_SUCCESS);
    assert_true(helper_sleeps(t.graph, 20000, 0));

    atomic_store(&sd_test_nap_window_ns, 1000000u);
    replay_until_helper_runs_the_aicore_lane(&t);
    assert_true(helper_sleeps(t.graph, 20000, 0));
    atomic_store(&sd_test_nap_window_ns, 0);
    assert_int_equal(simdev_graph_destroy(one), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(other), SIMDEV_SUCCESS);
    two_lanes_close(&t);
#endif
}

/* ---- a worker napping beside the AICore cores ---- */

#ifdef SIMPLER_VERIFY
static void noop_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    (void)args;
}

/* Opens `t` and a stream on which a kernel ran on the AICore engine:
 * its worker naps there, for an hour (the window's override). Skips the
 * test on one CPU (nothing placed, no naps). */
static simdev_stream_t napper_open(struct two_lanes *t)
{
    two_lanes_open(t);
    if (sd_g.dev[0].pools[SIMDEV_ENGINE_AICORE].cpus.count == 0)
        skip();
    atomic_store(&sd_test_nap_window_ns, 3600ull * 1000000000ull);
    simdev_stream_t napper;
    assert_int_equal(simdev_stream_create(&napper), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(napper, SIMDEV_ENGINE_AICORE, noop_kernel, 1, NULL, 0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(napper), SIMDEV_SUCCESS);
    return napper;
}

/* Whether the napper's worker blocks until an op is queued, looked for
 * `polls` times 100 us apart. */
static int napper_blocked(simdev_stream_t napper, int polls)
{
    int blocked = 0;
    for (int i = 0; i < polls && !blocked; i++) {
        pthread_mutex_lock(&napper->mu);
        blocked = napper->worker_waits == SD_WAITS_OP;
        pthread_mutex_unlock(&napper->mu);
        if (!blocked)
            usleep(100);
    }
    return blocked;
}

/* The napper's worker stopped napping: it blocks until an op is queued
 * (waited for up to 2 s), and a kernel launched after that still runs. */
static void napper_blocks_then_runs(simdev_stream_t napper)
{
    assert_true(napper_blocked(napper, 20000));
    kernel_ran_on = (pthread_t)0;
    assert_int_equal(simdev_launch_kernel(napper, SIMDEV_ENGINE_AICORE, record_kernel, 1, NULL, 0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(napper), SIMDEV_SUCCESS);
    assert_false(pthread_equal(kernel_ran_on, (pthread_t)0));
    atomic_store(&sd_test_nap_window_ns, 0);
    assert_int_equal(simdev_stream_destroy(napper), SIMDEV_SUCCESS);
}
#endif

/* A synchronizer that runs a replay of the device ends the naps of the
 * device's other stream workers. */
static void replay_run_by_a_synchronizer_ends_other_workers_naps(void **state)
{
    (void)state;
#ifndef SIMPLER_VERIFY
    skip(); /* the window's override is compiled in SIMPLER_VERIFY builds only */
#else
    struct two_lanes t;
    simdev_stream_t napper = napper_open(&t);
    (void)pin_beside(SIMDEV_ENGINE_AICPU);
    cpu_set_t mine;
    simdev_engine_cpus(0, SIMDEV_ENGINE_AICPU, &mine);
    assert_true(replays_run_by_caller(t.graph, t.s[0], 0, &mine, K_FIRST) > 0);
    napper_blocks_then_runs(napper);
    two_lanes_close(&t);
#endif
}

/* So does a replay its stream's worker runs (no synchronizer: the caller
 * only queries): napping workers of other streams, left on the AICore's
 * CPU by the eager launches of another context, preempted the replays
 * of the next millisecond (docs/performance.md). */
static void replay_run_by_a_stream_worker_ends_other_workers_naps(void **state)
{
    (void)state;
#ifndef SIMPLER_VERIFY
    skip(); /* the window's override is compiled in SIMPLER_VERIFY builds only */
#else
    struct two_lanes t;
    simdev_stream_t napper = napper_open(&t);
    /* A replay that began before the worker's naps did (during its idle
     * poll) ends none of them: replay until the worker blocks. */
    int blocked = 0;
    for (int a = 0; a < ATTEMPTS && !blocked; a++) {
        memset(ran_on, 0, sizeof(ran_on));
        assert_int_equal(simdev_graph_launch(t.graph, t.s[0]), SIMDEV_SUCCESS);
        int rc;
        while ((rc = simdev_stream_query(t.s[0])) == SIMDEV_ERROR_NOT_READY)
            usleep(100);
        assert_int_equal(rc, SIMDEV_SUCCESS);
        assert_false(pthread_equal(ran_on[K_FIRST], (pthread_t)0));
        assert_false(pthread_equal(ran_on[K_FIRST], caller)); /* the worker ran it */
        blocked = napper_blocked(napper, 50);
    }
    assert_true(blocked);
    napper_blocks_then_runs(napper);
    two_lanes_close(&t);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* First: a test that ran a guest placed would leave its thread
         * marked placed for the rest (so the guard's test must not
         * follow one). */
        cmocka_unit_test_teardown(sync_runs_the_replay_without_moving_an_unpinned_caller, clean),
        cmocka_unit_test_teardown(sync_beside_the_aicpu_runs_the_replay_itself, clean),
        cmocka_unit_test_teardown(sync_beside_the_aicore_runs_the_aicore_lane_itself, clean),
        cmocka_unit_test_teardown(sync_leaves_other_ops_to_the_worker, clean),
        cmocka_unit_test_teardown(sync_returns_the_fault_of_a_replay_it_ran, clean),
        cmocka_unit_test_teardown(sync_wakes_the_worker_for_an_op_queued_meanwhile, clean),
        cmocka_unit_test_teardown(replay_left_to_a_synchronize_still_runs_without_one, clean),
        cmocka_unit_test_teardown(replay_synchronized_late_is_no_longer_left, clean),
        cmocka_unit_test_teardown(sync_runs_the_ops_that_feed_a_left_replay, clean),
        cmocka_unit_test_teardown(replay_the_worker_ran_behind_a_feed_leaves_the_next_to_a_synchronize, clean),
        cmocka_unit_test_teardown(idle_helper_beside_the_aicore_naps_then_blocks, clean),
        cmocka_unit_test_teardown(replay_run_by_a_synchronizer_ends_other_workers_naps, clean),
        cmocka_unit_test_teardown(replay_run_by_a_stream_worker_ends_other_workers_naps, clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
