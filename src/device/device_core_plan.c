/* The host's choice of the executor blocks an execution starts. */
#include "device/device_core_plan.h"

#include "simpler/orchestration.h"

static uint32_t at_most(uint32_t heads, uint32_t cores)
{
    return heads < cores ? heads : cores;
}

int device_core_plan(device_run_desc *d, const void *image, uint64_t bytes)
{
    const graph_image_header *h = image;

    d->aic_started = 0;
    d->aiv_started = 0;
    if (d->deferred || image == NULL || ((uintptr_t)image & 7u) != 0 || bytes < sizeof(*h) ||
        h->magic != GRAPH_IMAGE_MAGIC || h->version != GRAPH_IMAGE_VERSION || h->header_bytes != sizeof(*h) ||
        h->image_bytes != bytes || h->task_count == 0 || h->task_count != d->task_count)
        return -1;
    uint32_t aic = at_most(h->chain_heads[SIMPLER_CORE_TYPE_AIC], d->aic_count);
    uint32_t aiv = at_most(h->chain_heads[SIMPLER_CORE_TYPE_AIV], d->aiv_count);
    if (aic + aiv == 0)
        return -1;
    d->aic_started = (uint16_t)aic;
    d->aiv_started = (uint16_t)aiv;
    return 0;
}
