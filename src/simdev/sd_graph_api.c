/* Graph entry points: destroy, node count and the Graphviz dump. */
#include <stdio.h>

#include "common/file_out.h"
#include "simdev/sd_internal.h"

/* Waits (without sd_g.lock) until no queued launch refers to g. */
static void graph_drain(struct simdev_graph *g)
{
    pthread_mutex_lock(&g->mu);
    while (g->pending > 0)
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

int simdev_graph_destroy(simdev_graph_t graph)
{
    int rc = sd_call(SIMDEV_CALL_GRAPH_DESTROY);
    if (rc != 0)
        return rc;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    if ((rc = sd_graph_check(graph)) != 0) {
        sd_unlock();
        return rc;
    }
    /* Unlisted first, so no launch can be queued while we wait. Its
     * launches may be replays left to a synchronize: their workers are
     * woken for them. */
    sd_vec_remove(&sd_g.graphs, graph);
    for (size_t i = 0; i < sd_g.streams.count; i++) {
        struct simdev_stream *s = sd_g.streams.items[i];
        pthread_mutex_lock(&s->mu);
        sd_stream_kick(s);
        pthread_mutex_unlock(&s->mu);
    }
    sd_unlock();
    graph_drain(graph);
    sd_graph_free(graph);
    return SIMDEV_SUCCESS;
}

int simdev_graph_node_count(simdev_graph_t graph, size_t *count)
{
    if (count == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    int rc = sd_lock_started();
    if (rc != 0)
        return rc;
    if ((rc = sd_graph_check(graph)) == 0)
        *count = graph->node_count;
    sd_unlock();
    return rc;
}

static const char *node_kind_name(const struct sd_node *n)
{
    static const char *const names[] = {
        [SD_NODE_KERNEL] = "kernel",
        [SD_NODE_MEMCPY] = "memcpy",
        [SD_NODE_MEMSET] = "memset",
        [SD_NODE_HOST_FUNC] = "host_func",
    };
    return names[n->kind];
}

/* One cluster per lane, nodes in lane order, then one edge per dependency. */
static void dot_write(FILE *f, const struct simdev_graph *g)
{
    fprintf(f, "digraph simdev_graph {\n  rankdir=TB;\n");
    for (uint32_t l = 0; l < g->lane_count; l++) {
        fprintf(f, "  subgraph cluster_lane%u {\n    label=\"lane %u\";\n", l, l);
        for (uint32_t i = 0; i < g->lane_len[l]; i++) {
            uint32_t id = g->lane_nodes[l][i];
            const struct sd_node *n = &g->nodes[id];
            if (n->kind == SD_NODE_KERNEL)
                fprintf(f, "    n%u [label=\"kernel %s x%u lane%u\"];\n", id,
                        n->engine == SIMDEV_ENGINE_AICORE ? "AICORE" : "AICPU", n->block_dim, l);
            else
                fprintf(f, "    n%u [label=\"%s %zu bytes lane%u\"];\n", id, node_kind_name(n),
                        n->kind == SD_NODE_HOST_FUNC ? (size_t)0 : n->size, l);
        }
        fprintf(f, "  }\n");
    }
    for (uint32_t id = 0; id < g->node_count; id++)
        for (uint32_t d = 0; d < g->nodes[id].deps.count; d++)
            fprintf(f, "  n%u -> n%u;\n", g->nodes[id].deps.ids[d], id);
    fprintf(f, "}\n");
}

int simdev_graph_debug_dot(simdev_graph_t graph, const char *path)
{
    if (path == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    int rc = sd_lock_started();
    if (rc != 0)
        return rc;
    if ((rc = sd_graph_check(graph)) == 0) {
        /* Written whole, or what was at `path` stays (common/file_out.h). */
        file_out o;
        if (file_out_open(&o, path) != FILE_OUT_OK) {
            rc = SIMDEV_ERROR_INVALID_PARAM;
        } else {
            dot_write(o.f, graph);
            if (file_out_close(&o, 1) != FILE_OUT_OK)
                rc = SIMDEV_ERROR_INVALID_PARAM;
        }
    }
    sd_unlock();
    return rc;
}
