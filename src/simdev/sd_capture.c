/*
 * Stream capture. A session records the ops of its member streams as graph
 * nodes. Each member has a lane (its index among the members) and a
 * frontier: the nodes its next node depends on. Event records and waits on
 * members are not nodes; they move frontiers between streams (fork and
 * join), as in CUDA. Everything here runs under sd_g.lock.
 */
#include "common/host_alloc.h"
#include "simdev/sd_internal.h"

void sd_capture_invalidate(struct sd_capture *c)
{
    c->status = SIMDEV_CAPTURE_STATUS_INVALIDATED;
}

int sd_capture_active_on(int device)
{
    for (size_t i = 0; i < sd_g.sessions.count; i++)
        if (((struct sd_capture *)sd_g.sessions.items[i])->device == device)
            return 1;
    return 0;
}

/* The measured rule, with CUDA's interaction modes: a thread interacting
 * in GLOBAL mode is refused synchronous copies by its own GLOBAL or
 * THREAD_LOCAL capture and by any other thread's GLOBAL capture; one in
 * THREAD_LOCAL mode only by its own; one in RELAXED mode never. RELAXED
 * captures refuse nothing. */
int sd_capture_refuses_sync_copy(void)
{
    simdev_capture_mode interaction = sd_thread_capture_mode();
    if (interaction == SIMDEV_CAPTURE_MODE_RELAXED)
        return 0;
    pthread_t self = pthread_self();
    for (size_t i = 0; i < sd_g.sessions.count; i++) {
        const struct sd_capture *c = sd_g.sessions.items[i];
        int mine = pthread_equal(c->begin_thread, self);
        if (mine && c->mode != SIMDEV_CAPTURE_MODE_RELAXED)
            return 1;
        if (!mine && c->mode == SIMDEV_CAPTURE_MODE_GLOBAL && interaction == SIMDEV_CAPTURE_MODE_GLOBAL)
            return 1;
    }
    return 0;
}

/* Makes `s` a member of `c` whose next node depends on `frontier`. */
static int capture_join(struct sd_capture *c, struct simdev_stream *s, const struct sd_ids *frontier)
{
    if (sd_vec_reserve(&c->members, 1) != 0 || sd_ids_copy(&s->frontier, frontier) != 0)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    s->cap = c;
    s->lane = (uint32_t)c->members.count;
    sd_vec_push(&c->members, s);
    return 0;
}

int simdev_capture_begin(simdev_stream_t stream, simdev_capture_mode mode)
{
    int rc = sd_call(SIMDEV_CALL_CAPTURE_BEGIN);
    if (rc != 0)
        return rc;
    if ((int)mode < SIMDEV_CAPTURE_MODE_GLOBAL || mode > SIMDEV_CAPTURE_MODE_RELAXED)
        return SIMDEV_ERROR_INVALID_PARAM;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    if ((rc = sd_stream_check(stream)) != 0 || (stream->cap != NULL && (rc = SIMDEV_ERROR_STREAM_CAPTURE_CONFLICT)))
        goto err_unlock;
    rc = SIMDEV_ERROR_MEMORY_ALLOCATION;
    struct sd_capture *c = host_calloc(1, sizeof(*c));
    if (c == NULL || sd_vec_reserve(&sd_g.sessions, 1) != 0)
        goto err_free_session;
    c->graph = sd_graph_create(stream->device);
    if (c->graph == NULL)
        goto err_free_session;
    struct sd_ids empty = {0};
    if (capture_join(c, stream, &empty) != 0)
        goto err_free_graph;
    c->origin = stream;
    c->mode = (int)mode;
    c->device = stream->device;
    c->begin_thread = pthread_self();
    c->status = SIMDEV_CAPTURE_STATUS_ACTIVE;
    sd_vec_push(&sd_g.sessions, c);
    sd_unlock();
    return SIMDEV_SUCCESS;

err_free_graph:
    sd_graph_free(c->graph);
err_free_session:
    if (c != NULL)
        sd_vec_deinit(&c->members);
    host_free(c);
err_unlock:
    sd_unlock();
    return rc;
}

int sd_capture_add_node(struct simdev_stream *s, struct sd_node *node)
{
    struct sd_capture *c = s->cap;
    struct sd_ids next = {0};
    int rc = SIMDEV_ERROR_STREAM_CAPTURE_INVALIDATED;
    if (c->status == SIMDEV_CAPTURE_STATUS_INVALIDATED)
        goto err_free_args;
    rc = SIMDEV_ERROR_MEMORY_ALLOCATION;
    node->lane = s->lane;
    if (sd_ids_copy(&node->deps, &s->frontier) != 0 || sd_ids_add(&next, c->graph->node_count) != 0)
        goto err_invalidate;
    uint32_t id;
    if (sd_graph_add_node(c->graph, node, &id) != 0)
        goto err_invalidate;
    sd_ids_deinit(&s->frontier);
    s->frontier = next;
    return 0;

err_invalidate:
    sd_capture_invalidate(c);
    sd_ids_deinit(&next);
    sd_ids_deinit(&node->deps);
err_free_args:
    host_free(node->args);
    return rc;
}

int sd_capture_record(struct simdev_stream *s, struct simdev_event *e)
{
    struct sd_capture *c = s->cap;
    if (c->status == SIMDEV_CAPTURE_STATUS_INVALIDATED)
        return SIMDEV_ERROR_STREAM_CAPTURE_INVALIDATED;
    if (sd_ids_copy(&e->cap_frontier, &s->frontier) != 0) {
        sd_capture_invalidate(c);
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    }
    e->cap = c;
    e->recorded = 1;
    return 0;
}

/* A wait where the stream or the event's latest record is in a capture. */
int sd_capture_wait(struct simdev_stream *s, struct simdev_event *e)
{
    struct sd_capture *c = s->cap != NULL ? s->cap : e->cap;
    if (c->status == SIMDEV_CAPTURE_STATUS_INVALIDATED)
        return SIMDEV_ERROR_STREAM_CAPTURE_INVALIDATED;
    if (e->cap == NULL)  /* capturing stream, event recorded outside */
        return e->recorded ? SIMDEV_ERROR_CAPTURE_DEPENDENCY : 0;
    if (s->cap == NULL)  /* fork: s joins the event's capture */
        return capture_join(c, s, &e->cap_frontier);
    if (s->cap != e->cap)
        return SIMDEV_ERROR_CAPTURE_DEPENDENCY;
    if (sd_ids_union(&s->frontier, &e->cap_frontier) != 0) {
        sd_capture_invalidate(c);
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    }
    return 0;
}

int simdev_capture_get_info(simdev_stream_t stream, simdev_capture_status *status, simdev_graph_t *graph)
{
    int rc = sd_call(SIMDEV_CALL_CAPTURE_QUERY);
    if (rc != 0)
        return rc;
    if (status == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    if ((rc = sd_stream_check(stream)) == 0) {
        struct sd_capture *c = stream->cap;
        *status = c != NULL ? (simdev_capture_status)c->status : SIMDEV_CAPTURE_STATUS_NONE;
        if (graph != NULL)
            *graph = c != NULL && c->status == SIMDEV_CAPTURE_STATUS_ACTIVE ? c->graph : NULL;
    }
    sd_unlock();
    return rc;
}
