/*
 * Device teardown, shared by simdev_reset_device and simdev_finalize:
 * drains and destroys the device's streams, then its graphs and events,
 * then forgets every allocation of its heap.
 */
#include "simdev/sd_internal.h"

static struct simdev_stream *first_stream_of(int device)
{
    for (size_t i = 0; i < sd_g.streams.count; i++) {
        struct simdev_stream *s = sd_g.streams.items[i];
        if (s->device == device)
            return s;
    }
    return NULL;
}

/* Under sd_g.lock, dropped while the stream drains: a host function
 * still queued may call into simdev. */
static void stream_teardown(struct simdev_stream *s)
{
    sd_vec_remove(&sd_g.streams, s);
    s->dead = 1;
    s->holds++;
    pthread_mutex_unlock(&sd_g.lock);
    sd_stream_wait_idle(s, 0);
    pthread_mutex_lock(&sd_g.lock);
    s->holds--;
    while (s->holds > 0)
        pthread_cond_wait(&sd_g.cv, &sd_g.lock);
    sd_stream_free(s);
}

static void graphs_teardown(int device)
{
    size_t i = 0;
    while (i < sd_g.graphs.count) {
        struct simdev_graph *g = sd_g.graphs.items[i];
        if (g->device != device) {
            i++;
            continue;
        }
        sd_vec_remove(&sd_g.graphs, g);
        sd_graph_free(g);  /* no launch is pending: its streams drained */
    }
}

static void events_teardown(int device)
{
    size_t i = 0;
    while (i < sd_g.events.count) {
        struct simdev_event *e = sd_g.events.items[i];
        if (e->device != device) {
            i++;
            continue;
        }
        sd_vec_remove(&sd_g.events, e);
        sd_ids_deinit(&e->cap_frontier);
        pthread_mutex_lock(&sd_g.ev_mu);
        e->dead = 1;
        int unused = e->refs == 0;
        pthread_mutex_unlock(&sd_g.ev_mu);
        if (unused)
            sd_event_free(e);
    }
}

void sd_device_teardown(int device)
{
    struct simdev_stream *s;
    while ((s = first_stream_of(device)) != NULL)
        stream_teardown(s);
    graphs_teardown(device);
    events_teardown(device);
    sd_heap_free_all(&sd_g.dev[device].heap);
}

int simdev_reset_device(int device_id)
{
    int rc = sd_lock_started();
    if (rc != 0)
        return rc;
    if (device_id < 0 || (uint32_t)device_id >= sd_g.cfg.device_count)
        rc = SIMDEV_ERROR_INVALID_DEVICE;
    else if (sd_capture_active_on(device_id))
        rc = SIMDEV_ERROR_STREAM_CAPTURED;
    else
        sd_device_teardown(device_id);
    sd_unlock();
    return rc;
}
