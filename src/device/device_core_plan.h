/*
 * device_core_plan — which executor blocks an execution starts, decided
 * on the host from the graph image the launch carries (docs/device.md,
 * "Started cores").
 */
#ifndef SIMPLER_DEVICE_CORE_PLAN_H
#define SIMPLER_DEVICE_CORE_PLAN_H

#include <stdint.h>

#include "device/device_run_desc.h"
#include "graph/graph_image.h"

/* The task that runs on a core right behind task `id`: its only
 * successor, when `id` is that successor's only predecessor and both run
 * on the same core type (the scheduler's "chains"). Returns successor + 1,
 * 0 for none. The image must have passed its check. */
static inline uint32_t device_chain_next(const graph_image_task *tasks, const uint32_t *fanout, uint32_t id)
{
    const graph_image_task *t = &tasks[id];
    if (t->fanout_count != 1)
        return 0;
    uint32_t next = fanout[t->fanout_begin];
    const graph_image_task *n = &tasks[next];
    return n->fanin_count == 1 && n->core_type == t->core_type ? next + 1 : 0;
}

/* Sets d->aic_started and d->aiv_started to the cores of each type the
 * graph `image` (`bytes` long) can ever keep busy at once: its chain
 * heads of that type, at most the type's cores. Leaves both 0 (every
 * core starts) and returns -1 when d is deferred or the image is not
 * one it can read within `bytes`; 0 otherwise. Reads nothing outside
 * the image. */
int device_core_plan(device_run_desc *d, const void *image, uint64_t bytes);

#endif
