/*
 * Graphs: the nodes a capture recorded, grouped into lanes (one per member
 * stream), and their replay.
 *
 * The stream worker that runs a replay runs lane 0 (the origin stream's)
 * itself; every other lane runs on its own graph-owned thread, so
 * independent lanes run concurrently (a persistent kernel on one lane may
 * poll a kernel on another). Each node first waits until its dependencies
 * completed in the same replay, tracked by per-node epochs. A lane blocks
 * on its own condition variable, and a completion signals only the lanes
 * waiting for a node it made ready, so a replay costs one hand-off per
 * cross-lane edge that actually blocked, not one per lane per node
 * (docs/performance.md, set L). A graph replays once at a time: launches
 * of one graph from several streams are serialized.
 */
#include <stdint.h>
#include <string.h>

#include "common/host_alloc.h"
#include "simdev/sd_internal.h"

struct simdev_graph *sd_graph_create(int device)
{
    struct simdev_graph *g = host_calloc(1, sizeof(*g));
    if (g == NULL)
        return NULL;
    g->device = device;
    pthread_mutex_init(&g->mu, NULL);
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

#define LANE_IDLE UINT32_MAX

/* Builds the per-lane node lists, wait slots and replay epochs; all or
 * nothing. */
int sd_graph_seal(struct simdev_graph *g, uint32_t lane_count)
{
    uint32_t *len = host_calloc(lane_count, sizeof(*len));
    uint32_t **lanes = host_calloc(lane_count, sizeof(*lanes));
    uint64_t *done = host_calloc((size_t)g->node_count + 1, sizeof(*done));
    pthread_cond_t *cvs = host_calloc(lane_count, sizeof(*cvs));
    uint32_t *wait = host_calloc(lane_count, sizeof(*wait));
    int ok = len != NULL && lanes != NULL && done != NULL && cvs != NULL && wait != NULL;
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
        host_free(cvs);
        host_free(wait);
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    }
    memset(len, 0, lane_count * sizeof(*len));
    for (uint32_t n = 0; n < g->node_count; n++) {
        uint32_t l = g->nodes[n].lane;
        lanes[l][len[l]++] = n;
    }
    for (uint32_t l = 0; l < lane_count; l++) {
        pthread_cond_init(&cvs[l], NULL);
        wait[l] = LANE_IDLE;
    }
    g->lane_count = lane_count;
    g->lane_nodes = lanes;
    g->lane_len = len;
    g->done_epoch = done;
    g->lane_cv = cvs;
    g->lane_wait = wait;
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
 * replay are skipped, like ops on a faulted stream. */
static void node_run(struct simdev_graph *g, const struct sd_node *node)
{
    if (atomic_load(&g->run_fault) != 0)
        return;
    int fault = 0;
    switch (node->kind) {
    case SD_NODE_KERNEL:
        fault = sd_pool_run(&sd_g.dev[g->device].pools[node->engine], node->fn, node->block_dim, node->args);
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

/* A lane thread starts from the epoch current when it was created: a
 * replay may begin before the thread first runs. */
struct lane_arg {
    struct simdev_graph *g;
    uint32_t lane;
    uint64_t epoch;
};

/* Under g->mu, after node `id` of `lane` completed: wakes each other lane
 * blocked on a node that is now ready, and no other. */
static void wake_ready_lanes(struct simdev_graph *g, uint32_t lane, uint64_t epoch)
{
    for (uint32_t l = 0; l < g->lane_count; l++) {
        uint32_t waits = g->lane_wait[l];
        if (l != lane && waits != LANE_IDLE && deps_done(g, &g->nodes[waits], epoch)) {
            g->lane_wait[l] = LANE_IDLE;
            pthread_cond_signal(&g->lane_cv[l]);
        }
    }
}

/* One lane, one replay epoch, under g->mu: runs the lane's nodes in order.
 * The last lane to finish tells the stream worker. */
static void lane_replay(struct simdev_graph *g, uint32_t lane, uint64_t epoch)
{
    for (uint32_t i = 0; i < g->lane_len[lane]; i++) {
        uint32_t id = g->lane_nodes[lane][i];
        while (!deps_done(g, &g->nodes[id], epoch)) {
            g->lane_wait[lane] = id;
            pthread_cond_wait(&g->lane_cv[lane], &g->mu);
        }
        g->lane_wait[lane] = LANE_IDLE;
        pthread_mutex_unlock(&g->mu);
        node_run(g, &g->nodes[id]);
        pthread_mutex_lock(&g->mu);
        g->done_epoch[id] = epoch;
        wake_ready_lanes(g, lane, epoch);
    }
    if (--g->lanes_left == 0 && lane != 0)
        pthread_cond_signal(&g->lane_cv[0]);
}

static void *lane_main(void *arg)
{
    struct simdev_graph *g = ((struct lane_arg *)arg)->g;
    uint32_t lane = ((struct lane_arg *)arg)->lane;
    uint64_t seen = ((struct lane_arg *)arg)->epoch;
    host_free(arg);
    pthread_mutex_lock(&g->mu);
    for (;;) {
        while (!g->stop && g->epoch == seen)
            pthread_cond_wait(&g->lane_cv[lane], &g->mu);
        if (g->stop)
            break;
        seen = g->epoch;
        lane_replay(g, lane, seen);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

static void lanes_stop(struct simdev_graph *g)
{
    pthread_mutex_lock(&g->mu);
    g->stop = 1;
    for (uint32_t l = 1; l < g->lane_count; l++)
        pthread_cond_signal(&g->lane_cv[l]);
    pthread_mutex_unlock(&g->mu);
    for (uint32_t t = 0; t < g->threads_started; t++)
        pthread_join(g->threads[t], NULL);
    g->threads_started = 0;
    g->stop = 0;
}

/* Under sd_g.lock at launch: engine pools and lane threads (one per lane
 * after the first) are running. */
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
        struct lane_arg *arg = host_alloc(sizeof(*arg));
        if (arg == NULL)
            break;
        pthread_mutex_lock(&g->mu);
        *arg = (struct lane_arg){.g = g, .lane = g->threads_started + 1, .epoch = g->epoch};
        pthread_mutex_unlock(&g->mu);
        if (pthread_create(&g->threads[g->threads_started], NULL, lane_main, arg) != 0) {
            host_free(arg);
            break;
        }
        g->threads_started++;
    }
    if (g->threads_started == wanted)
        return 0;
    lanes_stop(g);  /* a partial set of lanes could never finish a replay */
    return SIMDEV_ERROR_MEMORY_ALLOCATION;
}

/* On a stream worker: one replay, after any replay already running. The
 * worker starts the other lanes, runs lane 0 and waits for the rest. */
int sd_graph_run(struct simdev_graph *g)
{
    pthread_mutex_lock(&g->mu);
    while (g->busy)
        pthread_cond_wait(&g->cv, &g->mu);
    g->busy = 1;
    atomic_store(&g->run_fault, 0);
    g->lanes_left = g->lane_count;
    g->epoch++;
    for (uint32_t l = 1; l < g->lane_count; l++)
        pthread_cond_signal(&g->lane_cv[l]);
    lane_replay(g, 0, g->epoch);
    while (g->lanes_left > 0)
        pthread_cond_wait(&g->lane_cv[0], &g->mu);
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
    lanes_stop(g);
    for (uint32_t n = 0; n < g->node_count; n++) {
        host_free(g->nodes[n].args);
        sd_ids_deinit(&g->nodes[n].deps);
    }
    for (uint32_t l = 0; g->lane_nodes != NULL && l < g->lane_count; l++)
        host_free(g->lane_nodes[l]);
    host_free(g->lane_nodes);
    host_free(g->lane_len);
    host_free(g->done_epoch);
    for (uint32_t l = 0; g->lane_cv != NULL && l < g->lane_count; l++)
        pthread_cond_destroy(&g->lane_cv[l]);
    host_free(g->lane_cv);
    host_free(g->lane_wait);
    host_free(g->threads);
    host_free(g->nodes);
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
    host_free(g);
}
