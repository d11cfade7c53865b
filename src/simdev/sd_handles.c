/*
 * Handle validation. A handle is dereferenced only after it was found in
 * its registry, so a destroyed handle yields INVALID_HANDLE instead of a
 * use after free. Callers hold sd_g.lock.
 */
#include "simdev/sd_internal.h"

int sd_stream_check(struct simdev_stream *s)
{
    if (s == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    if (!sd_vec_has(&sd_g.streams, s))
        return SIMDEV_ERROR_INVALID_HANDLE;
    return s->device == sd_current_device() ? 0 : SIMDEV_ERROR_INVALID_DEVICE;
}

int sd_event_check(struct simdev_event *e)
{
    if (e == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    if (!sd_vec_has(&sd_g.events, e))
        return SIMDEV_ERROR_INVALID_HANDLE;
    return e->device == sd_current_device() ? 0 : SIMDEV_ERROR_INVALID_DEVICE;
}

int sd_graph_check(struct simdev_graph *g)
{
    if (g == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    /* Graphs may be inspected from any device; launch checks the device. */
    return sd_vec_has(&sd_g.graphs, g) ? 0 : SIMDEV_ERROR_INVALID_HANDLE;
}
