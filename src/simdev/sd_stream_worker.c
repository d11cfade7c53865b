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
#endif

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
 * waiter costs its recorder a wake-up across CPUs (docs/performance.md,
 * sets AF and AI). */
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
        int fault = faulted ? 0 : sd_graph_run(op->graph, s);
        graph_done(op->graph);
        return fault;
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

/* With s->mu held and nothing to start, a worker placed on the AICore
 * engine's CPUs (its last kernel ran there inline): naps for up to
 * SD_STREAM_NAP_WINDOW_NS, SD_STREAM_NAP_NS at a time, checking the ring
 * between naps; returns with s->mu held. A napping worker is no condvar
 * waiter, so the host's next launch signals nobody: waking a thread
 * blocked on the other, idle vCPU stalls the waking thread about 33 us
 * on this VM (its IPI), while a nap ends on the napper's own timer.
 * That stall sat in every program-mode run, between the upload and the
 * scheduler launch (docs/performance.md, set AS). A worker elsewhere
 * shares its CPUs with the host and the AICPU engine, whose work each
 * nap's wake-up would preempt, and waking it is local and cheap. */
static void idle_nap(struct simdev_stream *s)
{
    if (!sd_engine_placed_on(&sd_g.dev[s->device].pools[SIMDEV_ENGINE_AICORE]))
        return;
    /* The default slack (50 us) would stretch every nap five-fold. */
    static _Thread_local int slack_set;
    if (!slack_set)
        slack_set = prctl(PR_SET_TIMERSLACK, SD_STREAM_NAP_SLACK_NS) == 0;
    uint64_t until = clock_now_ns() + SD_STREAM_NAP_WINDOW_NS;
    while (!startable(s) && !s->stop && clock_now_ns() < until) {
        struct timespec nap = {0, SD_STREAM_NAP_NS};
        pthread_mutex_unlock(&s->mu);
        (void)nanosleep(&nap, NULL);
        pthread_mutex_lock(&s->mu);
    }
}

/* With s->mu held and nothing to start: polls for an op to start for up
 * to SD_STREAM_IDLE_POLL_NS, yielding between polls (each poll takes
 * s->mu briefly), then naps (idle_nap), and returns with s->mu held; the
 * caller then blocks if there is still nothing to start. A launch that
 * follows within the poll wakes no sleeping thread (docs/performance.md,
 * set Y). While a synchronizer runs an op (sd_stream_help) the window
 * restarts, so a loop of replays that synchronizers run does not signal
 * a blocked worker at each launch. Restarting it on every op queued or
 * retired instead cost a launch + synchronize of a kernel ~1.5 us on
 * this VM (set AZ). */
static void idle_poll(struct simdev_stream *s)
{
    uint64_t until = clock_now_ns() + SD_STREAM_IDLE_POLL_NS;
    while (!startable(s) && !s->stop && clock_now_ns() < until) {
        pthread_mutex_unlock(&s->mu);
        sched_yield();
        pthread_mutex_lock(&s->mu);
        if (s->taken != s->tail)
            until = clock_now_ns() + SD_STREAM_IDLE_POLL_NS;
    }
    idle_nap(s);
}

/* Under s->mu, after an op retired: wakes the space_cv waiters if one of
 * them can go on. Every woken idle waiter whose target is still ahead
 * registers it again before it blocks. The broadcast is made with s->mu
 * dropped: a waiter woken on this CPU preempts the worker and would find
 * s->mu held, block on it and wait for the worker to let it go, two more
 * switches and a futex wake (docs/performance.md, set AX). The stream
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

/* Under s->mu, when startable: starts the next op, runs it with s->mu
 * dropped and retires it; returns with s->mu held. */
static void run_next(struct simdev_stream *s, int worker)
{
    struct sd_op op = s->ring[s->taken % SIMDEV_STREAM_RING_OPS];
    s->taken++;
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
}

/* A synchronizer beside the AICPU engine (or with no placement) runs a
 * queued replay itself instead of waiting for the worker to start it:
 * the worker shares that CPU, so the replay waited for it to be
 * scheduled, ~2 us after the launch, and its retire, after the
 * synchronize's next yield, ended up on the next replay's path
 * (docs/performance.md, set AZ). The runner role it takes is the
 * worker's: it runs the lanes it need not move for and hands the others
 * to the graph's runners. Ops other than replays, and every op of a
 * caller beside the AICore cores (whose CPUs run the replay's AICore
 * kernels), stay with the worker. */
void sd_stream_help(struct simdev_stream *s, uint64_t target)
{
    struct sd_device *dev = &sd_g.dev[s->device];
    if (!startable(s) || s->taken >= target || s->ring[s->taken % SIMDEV_STREAM_RING_OPS].kind != SD_OP_GRAPH ||
        sd_engine_runs_here(&dev->pools[SIMDEV_ENGINE_AICORE]))
        return;
    struct sd_pool *aicpu = &dev->pools[SIMDEV_ENGINE_AICPU];
    sd_engine_guest_begin(sd_engine_runs_here(aicpu) ? aicpu : NULL);
    while (startable(s) && s->taken < target && s->ring[s->taken % SIMDEV_STREAM_RING_OPS].kind == SD_OP_GRAPH)
        run_next(s, 0);
    sd_engine_guest_end();
    /* An op queued meanwhile signalled a worker that found one running. */
    if (startable(s))
        pthread_cond_signal(&s->work_cv);
}

void *sd_stream_main(void *arg)
{
    struct simdev_stream *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        idle_poll(s);
        while (!startable(s) && !s->stop)
            pthread_cond_wait(&s->work_cv, &s->mu);
        if (!startable(s))
            break;
        run_next(s, 1);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}
