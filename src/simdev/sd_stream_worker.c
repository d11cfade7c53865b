/*
 * The stream worker: runs queued ops in order. After a kernel fault the
 * stream is faulted (sticky): kernels, copies, host functions and graph
 * replays are skipped, while event records and waits still complete so
 * that other streams never wait forever on a failed one.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "common/clock.h"
#include "simdev/sd_internal.h"

#ifdef SIMPLER_VERIFY
void (*_Atomic sd_test_before_retire)(struct simdev_stream *s);
_Atomic uint64_t sd_test_help_wait_ns;
_Atomic uint64_t sd_test_nap_window_ns;
#endif

/* Per device, the replays begun, by a stream worker or a synchronizer
 * (sd_stream_help): a stream worker napping beside the AICore cores
 * stops when it changes. */
static _Atomic uint64_t replays_began[SIMDEV_MAX_DEVICES];

static void event_complete(struct simdev_event *e, uint64_t seq)
{
    pthread_mutex_lock(&sd_g.ev_mu);
    if (seq > e->completed_seq)
        e->completed_seq = seq;
    pthread_cond_broadcast(&sd_g.ev_cv);
    sd_event_unref(e);
    pthread_mutex_unlock(&sd_g.ev_mu);
}

/* Waits for e's record `target`: polls for it for up to
 * SD_EVENT_POLL_NS, yielding between polls (each takes ev_mu briefly),
 * then blocks. A stream waiting on another stream's record is a
 * hand-off between stream workers on different CPUs, and a blocked
 * waiter costs its recorder a wake-up across CPUs (docs/performance.md). */
static void event_wait(struct simdev_event *e, uint64_t target)
{
    pthread_mutex_lock(&sd_g.ev_mu);
    uint64_t until = e->completed_seq < target ? clock_now_ns() + SD_EVENT_POLL_NS : 0;
    while (e->completed_seq < target && clock_now_ns() < until) {
        pthread_mutex_unlock(&sd_g.ev_mu);
        sched_yield();
        pthread_mutex_lock(&sd_g.ev_mu);
    }
    while (e->completed_seq < target)
        pthread_cond_wait(&sd_g.ev_cv, &sd_g.ev_mu);
    sd_event_unref(e);
    pthread_mutex_unlock(&sd_g.ev_mu);
}

static void graph_done(struct simdev_graph *g)
{
    pthread_mutex_lock(&g->mu);
    g->pending--;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* Runs one op; returns a fault code for the stream, or 0. */
static int run_op(struct simdev_stream *s, const struct sd_op *op, int faulted)
{
    switch (op->kind) {
    case SD_OP_RECORD:
        event_complete(op->event, op->seq);
        return 0;
    case SD_OP_WAIT:
        event_wait(op->event, op->seq);
        return 0;
    case SD_OP_GRAPH: {
        atomic_fetch_add(&replays_began[s->device], 1);
        int fault = faulted ? 0 : sd_graph_run(op->graph, s);
        graph_done(op->graph);
        return fault; /* the worker's place: run_next */
    }
    default:
        break;
    }
    if (faulted)
        return 0;
    switch (op->kind) {
    case SD_OP_KERNEL:
        return sd_pool_run(&sd_g.dev[s->device].pools[op->engine], op->fn, op->block_dim,
                           op->arg_consumed ? s->arg_ring + op->arg_offset : NULL);
    case SD_OP_MEMCPY:
        sd_copy(op->dst, op->src, op->size);
        return 0;
    case SD_OP_MEMSET:
        memset(op->dst, op->value, op->size);
        return 0;
    case SD_OP_HOST_FUNC:
        sd_engine_unplace();
        op->host_fn(op->dst);
        return 0;
    default:
        return 0;
    }
}

/* Under s->mu: an op is queued and none runs, so the next may start. */
static int startable(const struct simdev_stream *s)
{
    return s->taken < s->head && s->taken == s->tail;
}

/* One nap (sd_internal.h). */
void sd_idle_nap(void)
{
    /* The default slack (50 us) would stretch every nap five-fold. */
    static _Thread_local int slack_set;
    if (!slack_set)
        slack_set = prctl(PR_SET_TIMERSLACK, SD_STREAM_NAP_SLACK_NS) == 0;
    struct timespec nap = {0, SD_STREAM_NAP_NS};
    (void)nanosleep(&nap, NULL);
}

uint64_t sd_replays_began(int device)
{
    return atomic_load(&replays_began[device]);
}

uint64_t sd_idle_nap_window(void)
{
#ifdef SIMPLER_VERIFY
    if (atomic_load(&sd_test_nap_window_ns) != 0)
        return atomic_load(&sd_test_nap_window_ns);
#endif
    return SD_STREAM_NAP_WINDOW_NS;
}

/* With s->mu held and nothing to start, a worker placed on the AICore
 * engine's CPUs (its last kernel ran there inline): naps for up to
 * SD_STREAM_NAP_WINDOW_NS, SD_STREAM_NAP_NS at a time, checking the ring
 * between naps; returns with s->mu held. A napping worker is no condvar
 * waiter, so the host's next launch signals nobody: waking a thread
 * blocked on the other, idle vCPU stalls the waking thread for a long
 * while on this VM (its IPI), while a nap ends on the napper's own timer.
 * That stall sat in every program-mode run, between the upload and the
 * scheduler launch (docs/performance.md). A worker elsewhere
 * shares its CPUs with the host and the AICPU engine, whose work each
 * nap's wake-up would preempt, and waking it is local and cheap. The
 * naps stop once a replay of the device begins (replays_began), run by
 * a synchronizer or a stream worker: the naps of workers left on the
 * AICore's CPU by eager launches preempted the replays that followed
 * until their window ran out (docs/performance.md). A replay that began
 * before this worker's naps did ends none of them. */
static void idle_nap(struct simdev_stream *s)
{
    if (!sd_engine_placed_on(&sd_g.dev[s->device].pools[SIMDEV_ENGINE_AICORE]))
        return;
    _Atomic uint64_t *began = &replays_began[s->device];
    uint64_t until = clock_now_ns() + sd_idle_nap_window(), runs = atomic_load(began);
    while (!startable(s) && !s->stop && atomic_load(began) == runs && clock_now_ns() < until) {
        pthread_mutex_unlock(&s->mu);
        sd_idle_nap();
        pthread_mutex_lock(&s->mu);
    }
}

/* With s->mu held and nothing to start: polls for an op to start for up
 * to SD_STREAM_IDLE_POLL_NS, yielding between polls (each poll takes
 * s->mu briefly), then naps (idle_nap), and returns with s->mu held; the
 * caller then blocks if there is still nothing to start. A launch that
 * follows within the poll wakes no sleeping thread (docs/performance.md).
 * While synchronizers run the stream's replays (s->helped) it neither
 * polls nor naps: it waits in help_wait, beside nothing it would take
 * turns with. */
static void idle_poll(struct simdev_stream *s)
{
    uint64_t until = clock_now_ns() + SD_STREAM_IDLE_POLL_NS;
    while (!startable(s) && !s->stop && !s->helped && clock_now_ns() < until) {
        pthread_mutex_unlock(&s->mu);
        sched_yield();
        pthread_mutex_lock(&s->mu);
    }
    if (!s->helped)
        idle_nap(s);
}

/* Under s->mu, after an op retired: wakes the space_cv waiters if one of
 * them can go on. Every woken idle waiter whose target is still ahead
 * registers it again before it blocks. The broadcast is made with s->mu
 * dropped: a waiter woken on this CPU preempts the worker and would find
 * s->mu held, block on it and wait for the worker to let it go, two more
 * switches and a futex wake (docs/performance.md). The stream
 * stays alive meanwhile: a destroy joins this worker before it frees. */
static void space_notify(struct simdev_stream *s)
{
    if (s->room_waiters == 0 && (s->idle_wake_at == 0 || s->tail < s->idle_wake_at))
        return;
    s->idle_wake_at = 0;
    pthread_mutex_unlock(&s->mu);
    pthread_cond_broadcast(&s->space_cv);
    pthread_mutex_lock(&s->mu);
}

/* The calling worker ran a replay and no kernel or host function since
 * (each worker thread serves one stream; not on the stream, whose lines
 * synchronizers poll). */
static _Thread_local int after_replay;

/* Under s->mu, when startable: starts the next op, runs it with s->mu
 * dropped and retires it; returns with s->mu held. */
static void run_next(struct simdev_stream *s, int worker)
{
    struct sd_op op = s->ring[s->taken % SIMDEV_STREAM_RING_OPS];
    s->taken++;
    if (s->helped != !worker)
        s->helped = !worker;
    int faulted = s->fault != 0;
    pthread_mutex_unlock(&s->mu);
    int fault = run_op(s, &op, faulted);
#ifdef SIMPLER_VERIFY
    void (*before_retire)(struct simdev_stream *) = atomic_load(&sd_test_before_retire);
    if (worker && before_retire != NULL)
        before_retire(s);
#else
    (void)worker;
#endif
    pthread_mutex_lock(&s->mu);
    if (fault != 0 && s->fault == 0)
        s->fault = fault;
    atomic_store_explicit(&s->tail, s->tail + 1, memory_order_release);
    s->arg_tail += op.arg_consumed;
    space_notify(s);
    /* A worker that ran a replay's AICore lane goes back beside the
     * AICPU once nothing is queued: left beside the AICore cores, where
     * a synchronizer may sit, the next launch's wake-up let it preempt
     * that caller and take the replay, and the process stayed in that
     * mode, a 10-task replay far slower (docs/performance.md). While
     * ops are queued it stays: two moves per replay (each a forced
     * migration, tens of microseconds here) made back-to-back replays of
     * a graph of AICore kernels cost about 90 us each. A kernel or host
     * function run since places the worker itself. */
    if (worker) {
        if (op.kind == SD_OP_GRAPH)
            after_replay = 1;
        else if (!faulted && (op.kind == SD_OP_KERNEL || op.kind == SD_OP_HOST_FUNC))
            after_replay = 0;
    }
    if (worker && after_replay && !startable(s)) {
        after_replay = 0;
        if (sd_engine_placed_on(&sd_g.dev[s->device].pools[SIMDEV_ENGINE_AICORE])) {
            pthread_mutex_unlock(&s->mu);
            sd_engine_place(&sd_g.dev[s->device].pools[SIMDEV_ENGINE_AICPU]);
            pthread_mutex_lock(&s->mu);
        }
    }
}

/* A synchronizer runs a queued replay itself instead of waiting for the
 * worker to start it. Beside the AICPU engine the worker shares its CPU,
 * so the replay waited for it to be scheduled after the launch, and its
 * retire, after the synchronize's next yield, ended up on the next
 * replay's path (docs/performance.md). Beside the AICore cores it
 * blocked at once while the worker ran the replay from the other vCPU,
 * and the replay's end crossed back to wake it, a wake-up that cost each
 * replay about as much as a program-mode run. The runner role it takes
 * is the worker's: it runs the lanes of the engine it sits beside
 * (counted as placed there; with no placement, the lanes it can) and
 * hands the others to the graph's runners. While synchronizers run the
 * stream's replays it also runs the ops that feed them (copies, fills,
 * one-block AICPU kernels; sd_op_for_synchronizer), where it is: left
 * to the worker, the argument store ahead of a decode step's replay
 * woke it across vCPUs after any pause of the caller, and the worker
 * then ran the replay too (docs/performance.md). Other ops stay with
 * the worker. */
void sd_stream_help(struct simdev_stream *s, uint64_t target)
{
    struct sd_device *dev = &sd_g.dev[s->device];
    if (!startable(s) || s->taken >= target || !sd_op_for_synchronizer(s, &s->ring[s->taken % SIMDEV_STREAM_RING_OPS]))
        return;
    struct sd_pool *aicpu = &dev->pools[SIMDEV_ENGINE_AICPU], *aicore = &dev->pools[SIMDEV_ENGINE_AICORE];
    sd_engine_guest_begin(sd_engine_runs_here(aicpu) ? aicpu : sd_engine_runs_here(aicore) ? aicore : NULL);
    while (startable(s) && s->taken < target && sd_op_for_synchronizer(s, &s->ring[s->taken % SIMDEV_STREAM_RING_OPS]))
        run_next(s, 0);
    sd_engine_guest_end();
    /* An op queued meanwhile signalled a worker that found one running. */
    if (startable(s))
        pthread_cond_signal(&s->work_cv);
}

/* Under s->mu, while synchronizers run the stream's replays: waits for
 * an op or stop, at most SD_STREAM_HELP_WAIT_NS. A replay queued
 * meanwhile signals nobody (sd_stream_push): the next synchronize runs
 * it, a query, a destroy or a full ring wakes the worker for it
 * (sd_stream_kick), any other op queued behind it too, and else the
 * worker starts it when the wait ends. Neither polling nor napping here
 * keeps the worker off the CPUs the replays run on: polling beside the
 * AICPU scheduler slowed a 10-task replay markedly, and a shorter timed
 * wait (its wake-ups) about as much (docs/performance.md). A wait
 * that ends with nothing queued or running ends the mode: an idle
 * worker then blocks for good. */
static void help_wait(struct simdev_stream *s)
{
    uint64_t wait = SD_STREAM_HELP_WAIT_NS;
#ifdef SIMPLER_VERIFY
    if (atomic_load(&sd_test_help_wait_ns) != 0)
        wait = atomic_load(&sd_test_help_wait_ns);
#endif
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    uint64_t ns = (uint64_t)at.tv_nsec + wait;
    at.tv_sec += (time_t)(ns / 1000000000u);
    at.tv_nsec = (long)(ns % 1000000000u);
    int rc = 0;
    s->worker_waits = SD_WAITS_HELP;
    while (!startable(s) && !s->stop && rc == 0)
        rc = pthread_cond_timedwait(&s->work_cv, &s->mu, &at);
    s->worker_waits = 0;
    if (startable(s) && s->left_at != 0)
        s->late = 1; /* left to a synchronize that did not come */
    s->left_at = 0;
    if (s->taken == s->head)
        s->helped = 0;
}

void sd_stream_kick(struct simdev_stream *s)
{
    if (s->helped && startable(s))
        pthread_cond_signal(&s->work_cv);
}

void *sd_stream_main(void *arg)
{
    struct simdev_stream *s = arg;
    (void)pthread_setname_np(pthread_self(), "simdev-stream");
    pthread_mutex_lock(&s->mu);
    for (;;) {
        idle_poll(s);
        /* One wait, then the loop again: woken for an op a synchronizer
         * took meanwhile, the worker then waits in help_wait, not blocked
         * for good (a replay launched next would signal it). */
        if (!startable(s) && !s->stop && s->helped)
            help_wait(s);
        else if (!startable(s) && !s->stop) {
            s->worker_waits = SD_WAITS_OP;
            pthread_cond_wait(&s->work_cv, &s->mu);
            s->worker_waits = 0;
        }
        if (startable(s))
            run_next(s, 1);
        else if (s->stop)
            break;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}
