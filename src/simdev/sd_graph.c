/*
 * Graphs: the nodes a capture recorded, grouped into lanes (one per member
 * stream), and their replay.
 *
 * A replay is run by runners: the stream worker that runs it (runner 0)
 * and graph-owned helper threads (runners 1..lanes-1, so that every lane
 * can run at once). A runner owns at most one lane at a time and runs its
 * nodes in capture order; each node runs once its dependencies completed
 * in the same replay, tracked by per-node epochs. When a runner completes
 * a node it looks for lanes whose next node that made ready: it keeps
 * going with its own lane when it can, else takes one of those lanes
 * itself, and hands each further one to one idle runner (the stream worker
 * first, since it must wake at the end anyway), signalled on that runner's
 * own condition variable. So a lane that waits for another one costs no
 * thread and no wake-up until its node is ready, a graph whose lanes
 * never need to run at once runs on the stream worker alone, and lanes
 * that are ready together still run together: there are as many runners
 * as lanes, so a ready lane always finds one (docs/performance.md). With
 * engine affinity, which runner takes which ready lane follows where the
 * runners are placed: a runner that runs a kernel inline moves to its
 * engine's CPUs (a system call and a forced migration), so a lane whose
 * next node would move the runner goes to an idle runner already placed
 * there when one is (docs/performance.md). A graph replays once at a
 * time: launches of one graph from several streams are serialized.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "common/clock.h"
#include "common/host_alloc.h"
#include "simdev/sd_internal.h"

struct simdev_graph *sd_graph_create(int device)
{
    struct simdev_graph *g = host_calloc(1, sizeof(*g));
    if (g == NULL)
        return NULL;
    g->device = device;
    sd_mutex_init_brief_spin(&g->mu);
    pthread_cond_init(&g->cv, NULL);
    atomic_init(&g->run_fault, 0);
    return g;
}

int sd_graph_add_node(struct simdev_graph *g, const struct sd_node *node, uint32_t *id)
{
    if (g->node_count == g->node_cap) {
        uint32_t cap = g->node_cap ? g->node_cap * 2 : 16;
        struct sd_node *nodes = host_realloc(g->nodes, (size_t)cap * sizeof(*nodes));
        if (nodes == NULL)
            return SIMDEV_ERROR_MEMORY_ALLOCATION;
        g->nodes = nodes;
        g->node_cap = cap;
    }
    *id = g->node_count;
    g->nodes[g->node_count++] = *node;
    return 0;
}

#define LANE_NONE UINT32_MAX
/* sd_lane.state within a replay. */
enum { SD_LANE_PARKED, SD_LANE_READY, SD_LANE_OWNED, SD_LANE_FINISHED };

/* Builds the per-lane node lists, the lane/runner records and the replay
 * epochs; all or nothing. */
int sd_graph_seal(struct simdev_graph *g, uint32_t lane_count)
{
    uint32_t *len = host_calloc(lane_count, sizeof(*len));
    uint32_t **lanes = host_calloc(lane_count, sizeof(*lanes));
    uint64_t *done = host_calloc((size_t)g->node_count + 1, sizeof(*done));
    struct sd_lane *lane = host_calloc(lane_count, sizeof(*lane));
    int ok = len != NULL && lanes != NULL && done != NULL && lane != NULL;
    for (uint32_t n = 0; ok && n < g->node_count; n++)
        len[g->nodes[n].lane]++;
    for (uint32_t l = 0; ok && l < lane_count; l++)
        ok = (lanes[l] = host_alloc(((size_t)len[l] + 1) * sizeof(**lanes))) != NULL;
    if (!ok) {
        for (uint32_t l = 0; lanes != NULL && l < lane_count; l++)
            host_free(lanes[l]);
        host_free(lanes);
        host_free(len);
        host_free(done);
        host_free(lane);
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    }
    memset(len, 0, lane_count * sizeof(*len));
    for (uint32_t n = 0; n < g->node_count; n++) {
        uint32_t l = g->nodes[n].lane;
        lanes[l][len[l]++] = n;
    }
    for (uint32_t l = 0; l < lane_count; l++) {
        pthread_cond_init(&lane[l].cv, NULL);
        lane[l].handed = LANE_NONE;
        lane[l].state = SD_LANE_FINISHED;
        lane[l].placed = -1;
        atomic_init(&lane[l].pings, 0);
    }
    g->lane_count = lane_count;
    g->lane_nodes = lanes;
    g->lane_len = len;
    g->done_epoch = done;
    g->lane = lane;
    return 0;
}

static int deps_done(const struct simdev_graph *g, const struct sd_node *node, uint64_t epoch)
{
    for (uint32_t i = 0; i < node->deps.count; i++)
        if (g->done_epoch[node->deps.ids[i]] != epoch)
            return 0;
    return 1;
}

/* Runs one node; a kernel fault fails the replay and later nodes of the
 * replay are skipped, like ops on a faulted stream. `unplaced`: a
 * one-block kernel runs where the runner is (runs_here). */
static void node_run(struct simdev_graph *g, const struct sd_node *node, int unplaced)
{
    if (atomic_load(&g->run_fault) != 0)
        return;
    int fault = 0;
    struct sd_pool *pool = &sd_g.dev[g->device].pools[node->engine];
    switch (node->kind) {
    case SD_NODE_KERNEL:
        fault = unplaced ? sd_pool_run_unplaced(pool, node->fn, node->args)
                         : sd_pool_run(pool, node->fn, node->block_dim, node->args);
        break;
    case SD_NODE_MEMCPY:
        sd_copy(node->dst, node->src, node->size);
        break;
    case SD_NODE_MEMSET:
        memset(node->dst, node->value, node->size);
        break;
    default:
        sd_engine_unplace();
        node->host_fn(node->dst);
        break;
    }
    int expected = 0;
    if (fault != 0)
        atomic_compare_exchange_strong(&g->run_fault, &expected, fault);
}

/* Under g->mu: lane l is parked and its next node may run now. */
static int lane_ready(const struct simdev_graph *g, uint32_t l, uint64_t epoch)
{
    const struct sd_lane *ln = &g->lane[l];
    return ln->state == SD_LANE_PARKED && deps_done(g, &g->nodes[g->lane_nodes[l][ln->pos]], epoch);
}

/* The engine whose CPUs the calling runner is placed on, or -1. */
static int8_t runner_placement(const struct simdev_graph *g)
{
    const struct sd_device *dev = &sd_g.dev[g->device];
    for (int8_t e = 0; e < 2; e++)
        if (sd_engine_placed_on(&dev->pools[e]))
            return e;
    return -1;
}

/* Under g->mu: whether runner r must move to other CPUs to run the next
 * node of lane l (a kernel of a placed engine it is not on, or a host
 * function while it is on an engine's CPUs). */
static int moves(const struct simdev_graph *g, uint32_t r, uint32_t l)
{
    const struct sd_node *n = &g->nodes[g->lane_nodes[l][g->lane[l].pos]];
    int8_t placed = g->lane[r].placed;
    if (n->kind == SD_NODE_KERNEL)
        return sd_g.dev[g->device].pools[n->engine].cpus.count != 0 && placed != n->engine;
    return n->kind == SD_NODE_HOST_FUNC && placed >= 0;
}

/* Under g->mu: lane l's next node is the replay's last one left (every
 * other lane finished, it ends its lane) and a kernel of one block. */
static int last_node_alone(const struct simdev_graph *g, uint32_t l)
{
    const struct sd_node *n = &g->nodes[g->lane_nodes[l][g->lane[l].pos]];
    return g->lanes_left == 1 && g->lane[l].pos + 1 == g->lane_len[l] && n->kind == SD_NODE_KERNEL &&
           n->block_dim == 1;
}

/* Under g->mu: an idle runner need not move for lane l's next node. */
static int placed_idle(const struct simdev_graph *g, uint32_t l)
{
    for (uint32_t r = 0; r < g->lane_count; r++)
        if (g->lane[r].idle && !moves(g, r, l))
            return 1;
    return 0;
}

/* Under g->mu: whether runner r runs lane l's next node where it is: one
 * it need not move for, or the replay's last node where the alternative
 * is a hand-off to an idle runner placed for it. Engine placement keeps
 * kernels that run at the same time (the kernel-mode chain's scheduler
 * and executor) off each other's CPUs; nothing runs beside the last
 * node, so its placement buys nothing, while the hand-off costs a wake
 * of a runner that polls beside the synchronizing thread. In the
 * kernel-mode chain the helper that ran the AICore executor then runs
 * the AICPU tail when the executor ends last, and publishes the replay's
 * completion itself (run_lanes), so the stream worker is no longer
 * between the executor's end and the synchronize's return
 * (docs/performance.md). */
static int runs_here(const struct simdev_graph *g, uint32_t r, uint32_t l)
{
    return !moves(g, r, l) || (last_node_alone(g, l) && placed_idle(g, l));
}

/* Under g->mu: when lane l's next node is the replay's last, `me` is not
 * on the AICore engine's CPUs, and a synchronizer of the launching stream
 * sleeps beside them (it blocked at once there, sd_stream_wait_idle): an
 * idle runner placed on the AICore engine, which runs the node where it
 * is and then wakes the sleeper on its own CPU; else LANE_NONE. Run by
 * `me`, the node's end would wake the sleeper across vCPUs, a costly
 * wake-up here (as in a kernel-mode replay whose AICPU lane ends last). */
static uint32_t sleeper_side_runner(const struct simdev_graph *g, uint32_t me, uint32_t l)
{
    if (!last_node_alone(g, l) || g->lane[me].placed == SIMDEV_ENGINE_AICORE ||
        atomic_load_explicit(&g->run_stream->early_sleepers, memory_order_relaxed) == 0)
        return LANE_NONE;
    for (uint32_t r = 0; r < g->lane_count; r++)
        if (r != me && g->lane[r].idle && g->lane[r].placed == SIMDEV_ENGINE_AICORE)
            return r;
    return LANE_NONE;
}

/* Under g->mu: gives lane l to idle runner r. */
static void hand_to(struct simdev_graph *g, uint32_t r, uint32_t l)
{
    struct sd_lane *rn = &g->lane[r];
    rn->idle = 0;
    rn->handed = l;
    g->lane[l].state = SD_LANE_OWNED;
    atomic_fetch_add_explicit(&rn->pings, 1, memory_order_release);
    pthread_cond_signal(&rn->cv);
}

/* Under g->mu: gives lane l to an idle runner that need not move for it,
 * the stream worker first; 1 when one took it. */
static int hand_placed(struct simdev_graph *g, uint32_t l)
{
    for (uint32_t r = 0; r < g->lane_count; r++) {
        if (g->lane[r].idle && !moves(g, r, l)) {
            hand_to(g, r, l);
            return 1;
        }
    }
    return 0;
}

/* Under g->mu: gives lane l to an idle runner, one placed for it if any,
 * else the first (the stream worker first); 0 when none is idle. */
static int hand_any(struct simdev_graph *g, uint32_t l)
{
    if (hand_placed(g, l))
        return 1;
    for (uint32_t r = 0; r < g->lane_count; r++) {
        if (g->lane[r].idle) {
            hand_to(g, r, l);
            return 1;
        }
    }
    return 0;
}

/* Under g->mu: as hand_any, for a lane nobody else keeps. One idle runner
 * always exists: there are as many runners as lanes, and a runner that
 * is not idle owns a lane other than l. */
static void hand(struct simdev_graph *g, uint32_t l)
{
    (void)hand_any(g, l);
}

/* Under g->mu, runner `me` after a completion (or the stream worker at
 * the start of a replay): every parked lane whose next node is ready gets
 * a runner before `me` runs anything, so lanes ready together start
 * together. `me` keeps a ready lane it can run where it is placed:
 * `prefer` (the lane it just ran), else the last such lane. When every
 * ready lane would move it, the lanes an idle runner can run in place go
 * to those runners, and `me` keeps `prefer` or the last of the others.
 * Every other ready lane is handed to an idle runner, one placed for it
 * first. Without engine affinity nothing moves, and `me` keeps `prefer`,
 * else the last ready lane (so the worker of the kernel-mode chain
 * then keeps the AICore executor's lane). With it, the worker, placed on
 * the AICPU by the chain's first kernel, keeps the AICPU scheduler's
 * lane, the executor's goes to a helper that stays on the AICore's CPUs,
 * and the AICPU tail, the replay's last node, stays with whichever of the
 * two finishes last, unmoved (runs_here): no runner moves in a replay
 * (docs/performance.md). Returns the lane kept, or LANE_NONE. */
static uint32_t dispatch(struct simdev_graph *g, uint32_t me, uint32_t prefer, uint64_t epoch)
{
    uint32_t keep = LANE_NONE, last = LANE_NONE, ready = 0;
    for (uint32_t l = 0; l < g->lane_count; l++) {
        if (!lane_ready(g, l, epoch))
            continue;
        g->lane[l].state = SD_LANE_READY;
        ready++;
        uint32_t side = sleeper_side_runner(g, me, l);
        if (side != LANE_NONE) {
            g->lane[side].unplaced = 1;
            hand_to(g, side, l);
        } else if (runs_here(g, me, l)) {
            keep = l;
        }
    }
    if (ready == 0)
        return LANE_NONE;
    if (prefer != LANE_NONE && g->lane[prefer].state == SD_LANE_READY && runs_here(g, me, prefer))
        keep = prefer;
    if (keep == LANE_NONE) {
        for (uint32_t l = 0; l < g->lane_count; l++)
            if (g->lane[l].state == SD_LANE_READY && !hand_placed(g, l))
                last = l;
        /* A synchronizer running the replay (a guest) cannot move: the
         * lanes go to runners that can, and it keeps one only when no
         * runner is idle, to run where it is. At most one is left: with
         * `me` owning none, each busy runner owns a lane that is not
         * ready. */
        if (sd_engine_guest()) {
            for (uint32_t l = 0; l < g->lane_count; l++)
                if (g->lane[l].state == SD_LANE_READY && !hand_any(g, l))
                    keep = l;
        } else {
            keep = prefer != LANE_NONE && g->lane[prefer].state == SD_LANE_READY ? prefer : last;
        }
    }
    if (keep != LANE_NONE) {
        g->lane[me].unplaced = moves(g, me, keep) && runs_here(g, me, keep);
        g->lane[keep].state = SD_LANE_OWNED;
    }
    for (uint32_t l = 0; l < g->lane_count; l++)
        if (g->lane[l].state == SD_LANE_READY)
            hand(g, l);
    return keep;
}

/* Under g->mu: runner `me` runs owned lane `l` while its nodes are ready,
 * then any lane its completions made ready, until it owns none. The
 * runner that finishes the last lane publishes the replay's completion to
 * the stream's synchronizers (done_early), wakes those that block, and
 * wakes the stream worker if it waits. */
static void run_lanes(struct simdev_graph *g, uint32_t me, uint32_t l, uint64_t epoch)
{
    while (l != LANE_NONE) {
        struct sd_lane *ln = &g->lane[l];
        int unplaced = g->lane[me].unplaced;
        g->lane[me].unplaced = 0;
        uint32_t id = g->lane_nodes[l][ln->pos++];
        pthread_mutex_unlock(&g->mu);
        node_run(g, &g->nodes[id], unplaced);
        int8_t placed = runner_placement(g);
        pthread_mutex_lock(&g->mu);
        g->lane[me].placed = placed;
        g->done_epoch[id] = epoch;
        if (ln->pos < g->lane_len[l]) {
            ln->state = SD_LANE_PARKED;
        } else {
            ln->state = SD_LANE_FINISHED;
            /* The replay is complete: a synchronizer may return before
             * the stream worker sees this and retires the op (unless it
             * faulted: the worker records the fault). g->mu is dropped
             * for the wake-up (stream locks come first); the stream
             * outlives it, as its worker retires nothing before
             * lanes_left reaches 0 below, and every other lane is done. */
            if (g->lanes_left == 1 && atomic_load(&g->run_fault) == 0) {
                pthread_mutex_unlock(&g->mu);
                sd_stream_early_wake(g->run_stream, g->run_op + 1);
                pthread_mutex_lock(&g->mu);
            }
            if (--g->lanes_left == 0 && g->lane[0].idle) {
                g->lane[0].idle = 0;
                atomic_fetch_add_explicit(&g->lane[0].pings, 1, memory_order_release);
                pthread_cond_signal(&g->lane[0].cv);
            }
        }
        l = dispatch(g, me, l, epoch);
    }
}

struct runner_arg {
    struct simdev_graph *g;
    uint32_t runner;
};

static void idle_poll(struct simdev_graph *g, struct sd_lane *me);

/* A helper runner: waits for a lane handed to it, runs it (and whatever
 * its completions make ready), and waits again. It is idle (may be
 * handed a lane) from its creation on, except while it runs lanes. */
static void *runner_main(void *arg)
{
    struct simdev_graph *g = ((struct runner_arg *)arg)->g;
    uint32_t runner = ((struct runner_arg *)arg)->runner;
    struct sd_lane *me = &g->lane[runner];
    host_free(arg);
    (void)pthread_setname_np(pthread_self(), "simdev-runner");
    pthread_mutex_lock(&g->mu);
    for (;;) {
        while (me->handed == LANE_NONE && !g->stop) {
            me->sleeping = 1;
            pthread_cond_wait(&me->cv, &g->mu);
            me->sleeping = 0;
        }
        uint32_t l = me->handed;
        if (l == LANE_NONE)
            break;
        me->handed = LANE_NONE;
        run_lanes(g, runner, l, g->epoch);
        me->idle = 1;
        idle_poll(g, me);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

static void runners_stop(struct simdev_graph *g)
{
    pthread_mutex_lock(&g->mu);
    g->stop = 1;
    /* A polling helper sees the ping at once, not after its poll bound. */
    for (uint32_t r = 1; r < g->lane_count; r++) {
        atomic_fetch_add_explicit(&g->lane[r].pings, 1, memory_order_release);
        pthread_cond_signal(&g->lane[r].cv);
    }
    pthread_mutex_unlock(&g->mu);
    for (uint32_t t = 0; t < g->threads_started; t++)
        pthread_join(g->threads[t], NULL);
    pthread_mutex_lock(&g->mu);
    for (uint32_t r = 1; r < g->lane_count; r++) {
        g->lane[r].idle = 0;
        g->lane[r].placed = -1; /* a new thread starts where the process may run */
    }
    g->threads_started = 0;
    g->stop = 0;
    pthread_mutex_unlock(&g->mu);
}

/* Under sd_g.lock at launch: engine pools and helper runners (one per
 * lane after the first) are running. */
int sd_graph_prepare(struct simdev_graph *g)
{
    struct sd_device *dev = &sd_g.dev[g->device];
    if (sd_pool_start(&dev->pools[SIMDEV_ENGINE_AICPU]) != 0 || sd_pool_start(&dev->pools[SIMDEV_ENGINE_AICORE]) != 0)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    uint32_t wanted = g->lane_count - 1;
    if (g->threads_started == wanted)
        return 0;
    if (g->threads == NULL && (g->threads = host_calloc(wanted, sizeof(*g->threads))) == NULL)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    while (g->threads_started < wanted) {
        struct runner_arg *arg = host_alloc(sizeof(*arg));
        if (arg == NULL)
            break;
        uint32_t r = g->threads_started + 1;
        *arg = (struct runner_arg){.g = g, .runner = r};
        /* Idle from now on: a replay may hand it a lane before the
         * thread first runs. */
        pthread_mutex_lock(&g->mu);
        g->lane[r].idle = 1;
        pthread_mutex_unlock(&g->mu);
        if (pthread_create(&g->threads[g->threads_started], NULL, runner_main, arg) != 0) {
            pthread_mutex_lock(&g->mu);
            g->lane[r].idle = 0;
            pthread_mutex_unlock(&g->mu);
            host_free(arg);
            break;
        }
        g->threads_started++;
    }
    if (g->threads_started == wanted)
        return 0;
    runners_stop(g);  /* too few runners could leave a ready lane waiting */
    return SIMDEV_ERROR_MEMORY_ALLOCATION;
}

/* Whether runner `me` was handed something since its pings read `seen`. */
static int pinged(const struct sd_lane *me, unsigned seen)
{
    return atomic_load_explicit(&me->pings, memory_order_acquire) != seen;
}

/* By an idle helper placed beside the AICore cores, after its poll: naps
 * for up to the nap window, as an idle stream worker there does
 * (sd_stream_worker.c, idle_nap), until it is pinged (a hand-off, a
 * stop). The next replay's hand-off, after a pause of its caller longer
 * than the poll, then wakes no thread blocked on the other vCPU
 * (docs/performance.md). A replay that begins on the device ends the
 * naps unless it hands this helper a lane by the next nap's end: its
 * own graph's does, within the chain's first kernel; another graph's
 * cores would share the CPU with the naps' wake-ups. */
static void helper_naps(const struct simdev_graph *g, const struct sd_lane *me, unsigned seen)
{
    uint64_t until = clock_now_ns() + sd_idle_nap_window(), began = sd_replays_began(g->device);
    int grace = 1;
    while (!pinged(me, seen) && clock_now_ns() < until && grace) {
        if (sd_replays_began(g->device) != began)
            grace = 0; /* one nap more for this replay's hand-off */
        sd_idle_nap();
    }
}

/* Under g->mu, by an idle runner about to wait for a signal of its cv
 * (the stream worker inside a replay, a helper after its lanes): drops
 * g->mu and polls the runner's pings for up to SD_GRAPH_SPIN_NS, yielding
 * the CPU between polls (a synchronizer running the replay spins up to
 * SD_GUEST_SPIN_NS between them), then takes g->mu back; the caller then checks
 * its condition and blocks only if it still must. A hand-off that comes
 * while the runner polls (the tail's, or the next replay's executor lane
 * in a loop of replays) costs no futex wait or wake, and no wake-up of a
 * sleeping vCPU (docs/performance.md). A helper placed beside the
 * AICore cores then naps (helper_naps). */
static void idle_poll(struct simdev_graph *g, struct sd_lane *me)
{
    unsigned seen = atomic_load_explicit(&me->pings, memory_order_relaxed);
    int guest = me == &g->lane[0] && sd_engine_guest();
    int naps = me != &g->lane[0] && me->placed == SIMDEV_ENGINE_AICORE;
    pthread_mutex_unlock(&g->mu);
    uint64_t now = clock_now_ns(), until = now + SD_GRAPH_SPIN_NS;
    while (!pinged(me, seen) && now < until) {
        /* A guest keeps its CPU a while: see SD_GUEST_SPIN_NS. */
        for (uint64_t spin_until = now + SD_GUEST_SPIN_NS; guest && !pinged(me, seen) && now < spin_until;
             now = clock_now_ns())
            for (int i = 0; i < 8; i++)
                sd_relax();
        if (!pinged(me, seen))
            sched_yield();
        now = clock_now_ns();
    }
    if (naps)
        helper_naps(g, me, seen);
    pthread_mutex_lock(&g->mu);
}

/* On a stream worker: one replay, after any replay already running. The
 * worker is runner 0: it takes the lanes ready at the start, hands out the
 * others, runs what it keeps and whatever is handed to it, and returns
 * when every lane finished. */
int sd_graph_run(struct simdev_graph *g, struct simdev_stream *s)
{
    int8_t placed = runner_placement(g); /* the worker ran other ops since */
    pthread_mutex_lock(&g->mu);
    while (g->busy)
        pthread_cond_wait(&g->cv, &g->mu);
    g->busy = 1;
    atomic_store(&g->run_fault, 0);
    uint64_t epoch = ++g->epoch;
    g->lanes_left = 0;
    for (uint32_t l = 0; l < g->lane_count; l++) {
        g->lane[l].pos = 0;
        g->lane[l].state = g->lane_len[l] > 0 ? SD_LANE_PARKED : SD_LANE_FINISHED;
        g->lanes_left += g->lane_len[l] > 0;
    }
    struct sd_lane *me = &g->lane[0];
    me->placed = placed;
    g->run_stream = s;
    g->run_op = atomic_load_explicit(&s->tail, memory_order_relaxed);
    run_lanes(g, 0, dispatch(g, 0, LANE_NONE, epoch), epoch);
    while (g->lanes_left > 0) {
        me->idle = 1;
        idle_poll(g, me);
        while (me->handed == LANE_NONE && g->lanes_left > 0)
            pthread_cond_wait(&me->cv, &g->mu);
        me->idle = 0;
        uint32_t l = me->handed;
        me->handed = LANE_NONE;
        if (l != LANE_NONE)
            run_lanes(g, 0, l, epoch);
    }
    int fault = atomic_load(&g->run_fault);
    g->busy = 0;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    return fault;
}

void sd_graph_free(struct simdev_graph *g)
{
    if (g == NULL)
        return;
    runners_stop(g);
    for (uint32_t n = 0; n < g->node_count; n++) {
        host_free(g->nodes[n].args);
        sd_ids_deinit(&g->nodes[n].deps);
    }
    for (uint32_t l = 0; g->lane_nodes != NULL && l < g->lane_count; l++)
        host_free(g->lane_nodes[l]);
    host_free(g->lane_nodes);
    host_free(g->lane_len);
    host_free(g->done_epoch);
    for (uint32_t l = 0; g->lane != NULL && l < g->lane_count; l++)
        pthread_cond_destroy(&g->lane[l].cv);
    host_free(g->lane);
    host_free(g->threads);
    host_free(g->nodes);
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
    host_free(g);
}
