/*
 * Ending a capture: the thread and join checks, then either a sealed graph
 * or nothing. Runs under sd_g.lock.
 */
#include <string.h>

#include "common/host_alloc.h"
#include "simdev/sd_internal.h"

/* Every member and every event recorded in `c` leaves it; the session is
 * freed, and its graph too unless `keep_graph`. */
static void capture_close(struct sd_capture *c, int keep_graph)
{
    for (size_t i = 0; i < c->members.count; i++) {
        struct simdev_stream *s = c->members.items[i];
        s->cap = NULL;
        s->lane = 0;
        sd_ids_deinit(&s->frontier);
    }
    for (size_t i = 0; i < sd_g.events.count; i++) {
        struct simdev_event *e = sd_g.events.items[i];
        if (e->cap == c) {
            e->cap = NULL;
            sd_ids_deinit(&e->cap_frontier);
        }
    }
    sd_vec_remove(&sd_g.sessions, c);
    if (!keep_graph)
        sd_graph_free(c->graph);
    sd_vec_deinit(&c->members);
    host_free(c);
}

/* Marks every node that `roots` depends on, transitively, and the roots. */
static int mark_ancestors(const struct simdev_graph *g, const struct sd_ids *roots, uint8_t *mark)
{
    uint32_t *stack = host_alloc(((size_t)g->node_count + 1) * sizeof(*stack));
    if (stack == NULL)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    uint32_t top = 0;
    for (uint32_t i = 0; i < roots->count; i++) {
        if (!mark[roots->ids[i]]) {
            mark[roots->ids[i]] = 1;
            stack[top++] = roots->ids[i];
        }
    }
    while (top > 0) {
        const struct sd_ids *deps = &g->nodes[stack[--top]].deps;
        for (uint32_t i = 0; i < deps->count; i++) {
            if (!mark[deps->ids[i]]) {
                mark[deps->ids[i]] = 1;
                stack[top++] = deps->ids[i];
            }
        }
    }
    host_free(stack);
    return 0;
}

/* 0 when every forked stream's frontier was joined back into the origin's,
 * STREAM_UNJOINED otherwise, MEMORY_ALLOCATION if it could not tell. */
static int joined_check(const struct sd_capture *c)
{
    const struct simdev_graph *g = c->graph;
    uint8_t *mark = host_calloc((size_t)g->node_count + 1, 1);
    if (mark == NULL || mark_ancestors(g, &c->origin->frontier, mark) != 0) {
        host_free(mark);
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    }
    int rc = 0;
    for (size_t m = 1; m < c->members.count && rc == 0; m++) {
        const struct simdev_stream *s = c->members.items[m];
        for (uint32_t i = 0; i < s->frontier.count; i++)
            if (!mark[s->frontier.ids[i]])
                rc = SIMDEV_ERROR_STREAM_UNJOINED;
    }
    host_free(mark);
    return rc;
}

/* Under sd_g.lock: the checks before anything is decided. */
static int end_check(struct simdev_stream *s)
{
    int rc = sd_stream_check(s);
    if (rc != 0)
        return rc;
    struct sd_capture *c = s->cap;
    if (c == NULL || c->origin != s)
        return SIMDEV_ERROR_STREAM_CAPTURE_UNMATCHED;
    if (c->mode != SIMDEV_CAPTURE_MODE_RELAXED && !pthread_equal(c->begin_thread, pthread_self()))
        return SIMDEV_ERROR_STREAM_CAPTURE_WRONG_THREAD;
    return 0;
}

int simdev_capture_end(simdev_stream_t stream, simdev_graph_t *graph)
{
    int rc = sd_call(SIMDEV_CALL_CAPTURE_END);
    if (rc != 0)
        return rc;
    if (graph == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    if ((rc = end_check(stream)) != 0)
        goto out_unlock;
    struct sd_capture *c = stream->cap;
    if (c->status == SIMDEV_CAPTURE_STATUS_INVALIDATED) {
        capture_close(c, 0);
        rc = SIMDEV_ERROR_STREAM_CAPTURE_INVALIDATED;
        goto out_unlock;
    }
    rc = joined_check(c);
    if (rc == SIMDEV_ERROR_STREAM_UNJOINED)
        capture_close(c, 0);
    if (rc != 0)
        goto out_unlock;
    /* Failing here changes nothing: the capture stays active. */
    if (sd_vec_reserve(&sd_g.graphs, 1) != 0 || sd_graph_seal(c->graph, (uint32_t)c->members.count) != 0) {
        rc = SIMDEV_ERROR_MEMORY_ALLOCATION;
        goto out_unlock;
    }
    struct simdev_graph *g = c->graph;
    capture_close(c, 1);
    sd_vec_push(&sd_g.graphs, g);
    *graph = g;
out_unlock:
    sd_unlock();
    return rc;
}
