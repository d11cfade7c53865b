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

/* Sets d->aic_started and d->aiv_started to the cores of each type the
 * graph `image` (an image `bytes` long, or at least its header: program
 * mode passes the head it wrote, not the whole image) can ever keep
 * busy at once: the chain
 * heads its header counts for that type (graph_image_chain_next), at
 * most the type's cores. Reads the header only, in O(1): the image is
 * one the host just wrote, and the device's image check recounts the
 * heads and refuses an image whose header disagrees. Leaves both 0
 * (every core starts) and returns -1 when d is deferred or `image` is
 * not a graph image header of this version for `bytes` and d's task
 * count; 0 otherwise. */
int device_core_plan(device_run_desc *d, const void *image, uint64_t bytes);

#endif
