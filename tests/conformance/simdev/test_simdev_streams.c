/*
 * Streams: asynchronous, in order, concurrent with each other; kernel
 * blocks concurrent within a launch; devices per thread.
 */
#include "fixture.h"

#include <stdlib.h>

static void raise_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    fix_flag_raise(*(struct fix_flag *const *)args);
}

struct wait_flag_args {
    struct fix_flag *flag;
    atomic_int *timeouts;
};

static void wait_flag_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    const struct wait_flag_args *a = args;
    if (!fix_flag_wait(a->flag))
        atomic_fetch_add(a->timeouts, 1);
}

/* B waits on an event A records only after a kernel on A that blocks
 * until a kernel on C has run, and C's kernel is enqueued last. */
static void streams_run_concurrently_without_deadlock(void **state)
{
    (void)state;
    simdev_stream_t a = fix_stream(), b = fix_stream(), c = fix_stream();
    simdev_event_t after_a = fix_event();
    struct fix_flag c_ran;
    fix_flag_init(&c_ran);
    struct fix_flag *c_ran_ptr = &c_ran;
    atomic_int timeouts = 0;
    struct fix_log log = {0};
    struct wait_flag_args wait_args = {&c_ran, &timeouts};
    assert_int_equal(simdev_launch_kernel(a, SIMDEV_ENGINE_AICORE, wait_flag_kernel, 1, &wait_args,
                                          sizeof wait_args),
                     SIMDEV_SUCCESS);
    fix_launch_log(a, &log, 1);
    assert_int_equal(simdev_event_record(after_a, a), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(b, after_a), SIMDEV_SUCCESS);
    fix_launch_log(b, &log, 2);
    assert_int_equal(simdev_launch_kernel(c, SIMDEV_ENGINE_AICPU, raise_kernel, 1, &c_ran_ptr, sizeof c_ran_ptr),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(b), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&timeouts), 0);
    assert_int_equal(atomic_load(&log.count), 2);
    assert_int_equal(log.values[0], 1);
    assert_int_equal(log.values[1], 2);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    fix_flag_deinit(&c_ran);
    assert_int_equal(simdev_event_destroy(after_a), SIMDEV_SUCCESS);
    simdev_stream_t all[] = {a, b, c};
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_stream_destroy(all[i]), SIMDEV_SUCCESS);
}

static void stream_host_funcs_run_in_order(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    static struct fix_log log;
    memset(&log, 0, sizeof log);
    static struct fix_log_args args[300];
    for (int i = 0; i < 300; i++) {
        args[i].log = &log;
        args[i].value = i;
        assert_int_equal(simdev_launch_host_func(stream, fix_log_host_fn, &args[i]), SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&log.count), 300);
    for (int i = 0; i < 300; i++)
        assert_int_equal(log.values[i], i);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* Each launch checks it runs as number `expected` in sequence. */
struct sequence_args {
    atomic_uint *next;
    unsigned expected;
    atomic_int *bad;
};

static void sequence_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    const struct sequence_args *a = args;
    if (atomic_fetch_add(a->next, 1) != a->expected)
        atomic_fetch_add(a->bad, 1);
}

/* Far more launches than the ring holds: the ring wraps and order holds. */
static void stream_kernels_run_in_order_past_ring_capacity(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    atomic_uint next = 0;
    atomic_int bad = 0;
    unsigned total = 3 * SIMDEV_STREAM_RING_OPS + 7;
    for (unsigned i = 0; i < total; i++) {
        struct sequence_args a = {&next, i, &bad};
        assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, sequence_kernel, 1, &a, sizeof a),
                         SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&next), total);
    assert_int_equal(atomic_load(&bad), 0);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void stream_async_copies_and_sets_apply_in_order(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    uint8_t *buf = fix_malloc(256);
    uint8_t in[64], out[256];
    memset(in, 2, sizeof in);
    memset(out, 0, sizeof out);
    struct fix_gate *gate = fix_gate_new();
    assert_int_equal(simdev_launch_host_func(stream, fix_gate_host_fn, gate), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset_async(buf, 1, 256, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy_async(buf + 64, in, 64, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset_async(buf + 128, 3, 64, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy_async(out, buf, 256, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset_async(buf, 9, 256, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_query(stream), SIMDEV_ERROR_NOT_READY);
    assert_int_equal(out[0], 0);
    fix_gate_open(gate);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_query(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&gate->timeouts), 0);
    for (int i = 0; i < 256; i++)
        assert_int_equal(out[i], i < 64 ? 1 : i < 128 ? 2 : i < 192 ? 3 : 1);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void rendezvous_blocks(simdev_engine engine, uint32_t pool)
{
    simdev_stream_t stream = fix_stream();
    struct fix_rendezvous r;
    fix_rendezvous_init(&r, pool);
    struct fix_rendezvous *rp = &r;
    assert_int_equal(simdev_launch_kernel(stream, engine, fix_rendezvous_kernel, pool, &rp, sizeof rp),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(fix_rendezvous_arrived(&r), pool);
    assert_int_equal(atomic_load(&r.timeouts), 0);
    fix_rendezvous_deinit(&r);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void kernel_blocks_of_one_launch_run_concurrently_on_aicore(void **state)
{
    (void)state;
    rendezvous_blocks(SIMDEV_ENGINE_AICORE, FIX_AICORE_POOL);
}

static void kernel_blocks_of_one_launch_run_concurrently_on_aicpu(void **state)
{
    (void)state;
    rendezvous_blocks(SIMDEV_ENGINE_AICPU, FIX_AICPU_THREADS);
}

/* Every block of a "hold" launch checks in, then waits for the gate. */
struct hold_args {
    atomic_uint *arrived;
    struct fix_flag *gate;
};

static void hold_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    const struct hold_args *a = args;
    atomic_fetch_add(a->arrived, 1);
    (void)fix_flag_wait(a->gate);
}

/* A one-block launch runs on its stream's own thread: it does not wait
 * for a pool thread, even while another launch holds all of them. */
static void kernel_of_one_block_runs_while_every_pool_thread_is_busy(void **state)
{
    (void)state;
    simdev_stream_t holder = fix_stream(), other = fix_stream();
    struct fix_flag gate, ran;
    atomic_uint arrived = 0;
    fix_flag_init(&gate);
    fix_flag_init(&ran);
    struct hold_args h = {&arrived, &gate};
    assert_int_equal(simdev_launch_kernel(holder, SIMDEV_ENGINE_AICORE, hold_kernel, FIX_AICORE_POOL, &h, sizeof h),
                     SIMDEV_SUCCESS);
    struct timespec deadline = fix_deadline(), nap = {0, 1000000};
    while (atomic_load(&arrived) < FIX_AICORE_POOL && fix_flag_is_set(&gate) == 0) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        if (now.tv_sec > deadline.tv_sec)
            break;
        nanosleep(&nap, NULL);
    }
    assert_int_equal(atomic_load(&arrived), FIX_AICORE_POOL);
    struct fix_flag *rp = &ran;
    assert_int_equal(simdev_launch_kernel(other, SIMDEV_ENGINE_AICORE, raise_kernel, 1, &rp, sizeof rp),
                     SIMDEV_SUCCESS);
    /* Well inside the holders' own liveness bound (FIX_LIVENESS_SECONDS),
     * after which they would leave and free a pool thread anyway. */
    int raised = 0;
    for (int i = 0; i < 5000 && !(raised = fix_flag_is_set(&ran)); i++)
        nanosleep(&nap, NULL);
    fix_flag_raise(&gate);
    assert_int_equal(simdev_stream_synchronize(holder), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(other), SIMDEV_SUCCESS);
    assert_int_equal(raised, 1);
    assert_int_equal(simdev_stream_destroy(holder), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(other), SIMDEV_SUCCESS);
    fix_flag_deinit(&gate);
    fix_flag_deinit(&ran);
}

struct seen_args {
    atomic_int *seen;
    uint32_t block_dim;
    atomic_int *bad;
};

static void seen_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const struct seen_args *a = args;
    if (block_dim != a->block_dim || block_idx >= block_dim)
        atomic_fetch_add(a->bad, 1);
    else
        atomic_fetch_add(&a->seen[block_idx], 1);
}

static void kernel_runs_every_block_once_in_waves_beyond_pool(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    enum { BLOCKS = 37 };
    atomic_int seen[BLOCKS];
    for (int i = 0; i < BLOCKS; i++)
        atomic_init(&seen[i], 0);
    atomic_int bad = 0;
    struct seen_args a = {seen, BLOCKS, &bad};
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, seen_kernel, BLOCKS, &a, sizeof a),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, seen_kernel, BLOCKS, &a, sizeof a),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&bad), 0);
    for (int i = 0; i < BLOCKS; i++)
        assert_int_equal(atomic_load(&seen[i]), 2);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* A hold whose blocks count the ones the gate never opened for. */
struct hold_timed_args {
    struct hold_args hold;
    atomic_uint *timeouts;
};

static void hold_timed_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    const struct hold_timed_args *a = args;
    atomic_fetch_add(a->hold.arrived, 1);
    if (!fix_flag_wait(a->hold.gate))
        atomic_fetch_add(a->timeouts, 1);
}

/* Counts its blocks; the last one to finish raises the flag. */
struct count_raise_args {
    atomic_uint *count;
    struct fix_flag *done;
};

static void count_raise_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    const struct count_raise_args *a = args;
    if (atomic_fetch_add(a->count, 1) + 1 == block_dim)
        fix_flag_raise(a->done);
}

/* The thread that launches a multi-block kernel runs blocks of it too:
 * a holder of pool-size + 1 blocks occupies its stream's thread and
 * every pool thread at once, and a 3-block launch on another stream
 * still completes meanwhile, all its blocks run by that stream's own
 * thread. */
static void kernel_of_many_blocks_runs_on_its_caller_while_every_pool_thread_is_busy(void **state)
{
    (void)state;
    simdev_stream_t holder = fix_stream(), other = fix_stream();
    struct fix_flag gate, ran;
    atomic_uint arrived = 0, counted = 0, timeouts = 0;
    fix_flag_init(&gate);
    fix_flag_init(&ran);
    struct hold_timed_args h = {{&arrived, &gate}, &timeouts};
    assert_int_equal(
        simdev_launch_kernel(holder, SIMDEV_ENGINE_AICORE, hold_timed_kernel, FIX_AICORE_POOL + 1, &h, sizeof h),
        SIMDEV_SUCCESS);
    struct timespec deadline = fix_deadline(), nap = {0, 1000000};
    while (atomic_load(&arrived) < FIX_AICORE_POOL + 1 && fix_flag_is_set(&gate) == 0) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        if (now.tv_sec > deadline.tv_sec)
            break;
        nanosleep(&nap, NULL);
    }
    assert_int_equal(atomic_load(&arrived), FIX_AICORE_POOL + 1);
    struct count_raise_args c = {&counted, &ran};
    assert_int_equal(simdev_launch_kernel(other, SIMDEV_ENGINE_AICORE, count_raise_kernel, 3, &c, sizeof c),
                     SIMDEV_SUCCESS);
    int raised = 0;
    for (int i = 0; i < 5000 && !(raised = fix_flag_is_set(&ran)); i++)
        nanosleep(&nap, NULL);
    fix_flag_raise(&gate);
    assert_int_equal(simdev_stream_synchronize(holder), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(other), SIMDEV_SUCCESS);
    /* All pool-size + 1 blocks were in at once: none waited out the
     * gate's liveness bound for a thread to free up. */
    assert_int_equal(atomic_load(&timeouts), 0);
    assert_int_equal(raised, 1);
    assert_int_equal(atomic_load(&counted), 3);
    assert_int_equal(simdev_stream_destroy(holder), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(other), SIMDEV_SUCCESS);
    fix_flag_deinit(&gate);
    fix_flag_deinit(&ran);
}

static void sleep_count_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    struct timespec pause = {0, 5 * 1000 * 1000};
    nanosleep(&pause, NULL);
    fix_count_kernel(block_idx, block_dim, args);
}

static void stream_destroy_and_device_synchronize_wait_for_queued_work(void **state)
{
    (void)state;
    simdev_stream_t a = fix_stream(), b = fix_stream();
    atomic_int runs = 0;
    atomic_int *runs_ptr = &runs;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(simdev_launch_kernel(a, SIMDEV_ENGINE_AICPU, sleep_count_kernel, 1, &runs_ptr,
                                              sizeof runs_ptr),
                         SIMDEV_SUCCESS);
        assert_int_equal(simdev_launch_kernel(b, SIMDEV_ENGINE_AICPU, sleep_count_kernel, 1, &runs_ptr,
                                              sizeof runs_ptr),
                         SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_stream_destroy(a), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&runs) >= 3, 1);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&runs), 6);
    assert_int_equal(simdev_stream_destroy(b), SIMDEV_SUCCESS);
}

/* ---- a full ring makes enqueue wait, not fail ---- */

struct filler {
    simdev_stream_t stream;
    atomic_uint next;
    atomic_int bad;
    unsigned total;
    int failures;
    struct sequence_args args[SIMDEV_STREAM_RING_OPS + 64];
};

/* A synchronous wait polls only briefly (SD_SYNC_POLL_NS, 50 us), then
 * blocks: waiting 300 ms for a stream costs the waiter far less CPU time
 * than that (an unbounded poll, which yields but never blocks, costs
 * about all of it when a CPU is free). */
struct gate_opener {
    struct fix_gate *gate;
    long delay_ms;
};

static void *open_gate_later(void *p)
{
    struct gate_opener *o = p;
    struct timespec delay = {o->delay_ms / 1000, (o->delay_ms % 1000) * 1000000L};
    nanosleep(&delay, NULL);
    fix_gate_open(o->gate);
    return NULL;
}

static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void stream_synchronize_blocks_after_a_brief_poll(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    struct gate_opener o = {fix_gate_new(), 300};
    pthread_t opener;
    assert_int_equal(simdev_launch_host_func(stream, fix_gate_host_fn, o.gate), SIMDEV_SUCCESS);
    assert_int_equal(pthread_create(&opener, NULL, open_gate_later, &o), 0);
    double cpu = thread_cpu_ms();
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    cpu = thread_cpu_ms() - cpu;
    assert_int_equal(pthread_join(opener, NULL), 0);
    assert_int_equal(atomic_load(&o.gate->passed), 1);
    assert_int_equal(atomic_load(&o.gate->timeouts), 0);
    if (cpu > 100.0)
        fail_msg("the waiter used %.1f ms of CPU while waiting 300 ms", cpu);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* A stream worker whose ring ran empty polls for the next op only
 * briefly, then blocks: 300 ms after a launch, with nothing queued, the
 * process has used far less CPU than that (a worker that polled until
 * the next op would use about all of it when a CPU is free). */
static void stream_worker_blocks_after_a_brief_idle_poll(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    struct fix_log log = {0};
    fix_launch_log(stream, &log, 1);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    struct timespec t0, t1, idle = {0, 300 * 1000000L};
    assert_int_equal(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0), 0);
    while (nanosleep(&idle, &idle) != 0)
        ;
    assert_int_equal(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1), 0);
    double cpu = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    if (cpu > 100.0)
        fail_msg("the process used %.1f ms of CPU in 300 ms with its stream idle", cpu);
    fix_launch_log(stream, &log, 2);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(log.count, 2);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* A worker whose last kernel ran on the AICore engine naps between
 * checks of its ring instead of blocking (so the host's next launch
 * wakes no thread on another vCPU), but only for a bounded window: 300 ms
 * after the launch, with nothing queued, the process has used little CPU
 * (naps every 10 us through the whole idle time would cost a large part
 * of a CPU in timer wake-ups). Launches queued during the window and
 * after it both run, in order. */
static void stream_worker_on_aicore_naps_briefly_then_blocks(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    struct fix_log log = {0};
    struct fix_log_args first = {&log, 1}, second = {&log, 2}, third = {&log, 3};
    struct timespec t0, t1, gap = {0, 200 * 1000L}, idle = {0, 300 * 1000000L};
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, fix_log_kernel, 1, &first, sizeof first),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    while (nanosleep(&gap, &gap) != 0)
        ;
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, fix_log_kernel, 1, &second, sizeof second),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0), 0);
    while (nanosleep(&idle, &idle) != 0)
        ;
    assert_int_equal(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1), 0);
    double cpu = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    if (cpu > 30.0)
        fail_msg("the process used %.1f ms of CPU in 300 ms with its AICore stream idle", cpu);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, fix_log_kernel, 1, &third, sizeof third),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(log.count, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(log.values[i], i + 1);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* A stream waiting on another stream's event record polls for it only
 * briefly, then blocks: while the recording stream is held 300 ms by a
 * gate, the process uses far less CPU than that (a waiter that polled
 * until the record would use about all of it when a CPU is free). */
static void stream_waiting_on_an_event_blocks_after_a_brief_poll(void **state)
{
    (void)state;
    simdev_stream_t recorder = fix_stream(), waiter = fix_stream();
    simdev_event_t event = fix_event();
    struct gate_opener o = {fix_gate_new(), 300};
    struct fix_log log = {0};
    pthread_t opener;
    assert_int_equal(simdev_launch_host_func(recorder, fix_gate_host_fn, o.gate), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(event, recorder), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(waiter, event), SIMDEV_SUCCESS);
    fix_launch_log(waiter, &log, 1);
    struct timespec t0, t1;
    assert_int_equal(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0), 0);
    assert_int_equal(pthread_create(&opener, NULL, open_gate_later, &o), 0);
    assert_int_equal(pthread_join(opener, NULL), 0);
    assert_int_equal(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1), 0);
    double cpu = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    assert_int_equal(simdev_stream_synchronize(waiter), SIMDEV_SUCCESS);
    assert_int_equal(log.count, 1);
    assert_int_equal(atomic_load(&o.gate->passed), 1);
    if (cpu > 100.0)
        fail_msg("the process used %.1f ms of CPU in 300 ms with a stream waiting on an event", cpu);
    assert_int_equal(simdev_event_destroy(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(waiter), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(recorder), SIMDEV_SUCCESS);
}

/* A thread that synchronizes a stream, then raises its flag. */
struct syncer {
    simdev_stream_t stream;
    struct fix_flag done;
    int rc;
};

static void *syncer_main(void *p)
{
    struct syncer *y = p;
    y->rc = simdev_stream_synchronize(y->stream);
    fix_flag_raise(&y->done);
    return NULL;
}

static void pause_ms(long ms)
{
    struct timespec t = {0, ms * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

/* Two threads block in synchronize on one stream, the first for the ops
 * queued before a second gate, the second for all of them: the first
 * returns once its own ops retired, while the second gate still holds
 * the stream (the worker wakes synchronizers only when the lowest
 * target of the blocked ones is reached). The pauses only order the
 * calls; the outcome holds whatever they turn out to be. */
static void stream_synchronizers_at_different_points_each_return_after_their_ops(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    struct fix_gate *first = fix_gate_new(), *second = fix_gate_new();
    struct fix_log log = {0};
    struct syncer a, b;
    pthread_t ta, tb;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.stream = b.stream = stream;
    a.rc = b.rc = -1;
    fix_flag_init(&a.done);
    fix_flag_init(&b.done);
    assert_int_equal(simdev_launch_host_func(stream, fix_gate_host_fn, first), SIMDEV_SUCCESS);
    fix_launch_log(stream, &log, 1);
    assert_int_equal(pthread_create(&ta, NULL, syncer_main, &a), 0);
    pause_ms(20);
    assert_int_equal(simdev_launch_host_func(stream, fix_gate_host_fn, second), SIMDEV_SUCCESS);
    fix_launch_log(stream, &log, 2);
    assert_int_equal(pthread_create(&tb, NULL, syncer_main, &b), 0);
    pause_ms(20);
    fix_gate_open(first);
    assert_true(fix_flag_wait(&a.done));
    assert_int_equal(a.rc, SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&log.count), 1);
    assert_false(fix_flag_is_set(&b.done));
    fix_gate_open(second);
    assert_true(fix_flag_wait(&b.done));
    assert_int_equal(b.rc, SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&log.count), 2);
    assert_int_equal(pthread_join(ta, NULL), 0);
    assert_int_equal(pthread_join(tb, NULL), 0);
    fix_flag_deinit(&a.done);
    fix_flag_deinit(&b.done);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void *filler_main(void *p)
{
    struct filler *f = p;
    for (unsigned i = 0; i < f->total; i++) {
        f->args[i] = (struct sequence_args){&f->next, i, &f->bad};
        if (simdev_launch_kernel(f->stream, SIMDEV_ENGINE_AICPU, sequence_kernel, 1, &f->args[i],
                                 sizeof f->args[i]) != SIMDEV_SUCCESS)
            f->failures++;
    }
    return NULL;
}

/* Waits (sleeping, within the liveness bound) until `calls` kernel
 * launches have been made: with the gate's op in the ring, the last of
 * RING_OPS launches cannot fit until the gate opens. */
static void wait_for_launch_calls(uint64_t calls)
{
    struct timespec deadline = fix_deadline(), now, pause = {0, 1000 * 1000};
    simdev_counters c;
    do {
        assert_int_equal(simdev_get_counters(&c), SIMDEV_SUCCESS);
        if (c.kernel_launches >= calls)
            return;
        nanosleep(&pause, NULL);
        clock_gettime(CLOCK_REALTIME, &now);
    } while (now.tv_sec < deadline.tv_sec);
}

static void stream_enqueue_on_full_ring_waits_then_succeeds(void **state)
{
    (void)state;
    static struct filler f;
    memset(&f, 0, sizeof f);
    f.stream = fix_stream();
    f.total = SIMDEV_STREAM_RING_OPS + 64;
    struct fix_gate *gate = fix_gate_new();
    assert_int_equal(simdev_launch_host_func(f.stream, fix_gate_host_fn, gate), SIMDEV_SUCCESS);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, filler_main, &f), 0);
    wait_for_launch_calls(SIMDEV_STREAM_RING_OPS);
    assert_int_equal(atomic_load(&f.next), 0);
    fix_gate_open(gate);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_int_equal(simdev_stream_synchronize(f.stream), SIMDEV_SUCCESS);
    assert_int_equal(f.failures, 0);
    assert_int_equal(atomic_load(&f.next), f.total);
    assert_int_equal(atomic_load(&f.bad), 0);
    assert_int_equal(atomic_load(&gate->timeouts), 0);
    assert_int_equal(simdev_stream_destroy(f.stream), SIMDEV_SUCCESS);
}

/* ---- devices ---- */

static int get_device_on_thread(void *p)
{
    return simdev_get_device((int *)p);
}

static void device_current_is_per_thread_and_defaults_to_zero(void **state)
{
    (void)state;
    int device = -1;
    assert_int_equal(simdev_get_device(&device), SIMDEV_SUCCESS);
    assert_int_equal(device, 0);
    assert_int_equal(simdev_set_device(1), SIMDEV_SUCCESS);
    assert_int_equal(simdev_get_device(&device), SIMDEV_SUCCESS);
    assert_int_equal(device, 1);
    int other = -1;
    assert_int_equal(fix_call_on_thread(get_device_on_thread, &other), SIMDEV_SUCCESS);
    assert_int_equal(other, 0);
    assert_int_equal(simdev_set_device(FIX_DEVICES), SIMDEV_ERROR_INVALID_DEVICE);
    assert_int_equal(simdev_set_device(-1), SIMDEV_ERROR_INVALID_DEVICE);
    assert_int_equal(simdev_get_device(&device), SIMDEV_SUCCESS);
    assert_int_equal(device, 1);
    assert_int_equal(simdev_get_device(NULL), SIMDEV_ERROR_INVALID_PARAM);
}

static void device_streams_and_memory_work_on_second_device(void **state)
{
    (void)state;
    assert_int_equal(simdev_set_device(1), SIMDEV_SUCCESS);
    simdev_stream_t stream = fix_stream();
    uint32_t *buf = fix_malloc(64 * 4);
    fix_launch_fill(stream, buf, 64, 0x31);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    fix_assert_words(buf, 64, 0x31);
    assert_int_equal(fix_mem_info(1).live_allocations, 1);
    assert_int_equal(fix_mem_info(0).live_allocations, 0);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void device_reset_frees_memory_and_invalidates_handles(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    simdev_event_t event = fix_event();
    atomic_int runs = 0;
    fix_launch_count(stream, &runs);
    fix_malloc(4096);
    fix_malloc(1);
    assert_int_equal(simdev_reset_device(0), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&runs), 1);
    simdev_mem_info info = fix_mem_info(0);
    assert_int_equal(info.committed_bytes, 0);
    assert_int_equal(info.live_allocations, 0);
    assert_int_equal(simdev_stream_query(stream), SIMDEV_ERROR_INVALID_HANDLE);
    assert_int_equal(simdev_event_query(event), SIMDEV_ERROR_INVALID_HANDLE);
    assert_int_equal(simdev_reset_device(FIX_DEVICES), SIMDEV_ERROR_INVALID_DEVICE);
    simdev_stream_t fresh = fix_stream();
    assert_int_equal(simdev_stream_destroy(fresh), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(streams_run_concurrently_without_deadlock),
        FIX_TEST(kernel_of_one_block_runs_while_every_pool_thread_is_busy),
        FIX_TEST(stream_host_funcs_run_in_order),
        FIX_TEST(stream_worker_blocks_after_a_brief_idle_poll),
        FIX_TEST(stream_worker_on_aicore_naps_briefly_then_blocks),
        FIX_TEST(stream_waiting_on_an_event_blocks_after_a_brief_poll),
        FIX_TEST(stream_kernels_run_in_order_past_ring_capacity),
        FIX_TEST(stream_async_copies_and_sets_apply_in_order),
        FIX_TEST(stream_enqueue_on_full_ring_waits_then_succeeds),
        FIX_TEST(kernel_blocks_of_one_launch_run_concurrently_on_aicore),
        FIX_TEST(kernel_blocks_of_one_launch_run_concurrently_on_aicpu),
        FIX_TEST(kernel_runs_every_block_once_in_waves_beyond_pool),
        FIX_TEST(kernel_of_many_blocks_runs_on_its_caller_while_every_pool_thread_is_busy),
        FIX_TEST(stream_destroy_and_device_synchronize_wait_for_queued_work),
        FIX_TEST(stream_synchronize_blocks_after_a_brief_poll),
        FIX_TEST(stream_synchronizers_at_different_points_each_return_after_their_ops),
        FIX_TEST(device_current_is_per_thread_and_defaults_to_zero),
        FIX_TEST(device_streams_and_memory_work_on_second_device),
        FIX_TEST(device_reset_frees_memory_and_invalidates_handles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
