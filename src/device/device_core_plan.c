/* The host's choice of the executor blocks an execution starts. */
#include "device/device_core_plan.h"

#include "simpler/orchestration.h"

/* Whether the task and fan-out tables lie inside the image, and every
 * chain link the count follows stays inside them. */
static int tables_fit(const graph_image_header *h, uint64_t bytes)
{
    return h->task_offset % 4 == 0 && h->fanout_offset % 4 == 0 &&
           (uint64_t)h->task_offset + (uint64_t)h->task_count * sizeof(graph_image_task) <= bytes &&
           (uint64_t)h->fanout_offset + (uint64_t)h->edge_count * sizeof(uint32_t) <= bytes;
}

static int count_heads(const graph_image_header *h, uint32_t heads[2])
{
    const graph_image_task *tasks = (const graph_image_task *)((const uint8_t *)h + h->task_offset);
    const uint32_t *fanout = (const uint32_t *)(const void *)((const uint8_t *)h + h->fanout_offset);

    for (uint32_t i = 0; i < h->task_count; i++) {
        const graph_image_task *t = &tasks[i];
        if (t->core_type > SIMPLER_CORE_TYPE_AIV)
            return -1;
        if (t->fanout_count == 1 &&
            (t->fanout_begin >= h->edge_count || fanout[t->fanout_begin] >= h->task_count))
            return -1;
        /* Every task is a head; a chain successor takes one back. */
        heads[t->core_type]++;
        if (device_chain_next(tasks, fanout, i) != 0)
            heads[t->core_type]--;
    }
    return 0;
}

int device_core_plan(device_run_desc *d, const void *image, uint64_t bytes)
{
    const graph_image_header *h = image;
    uint32_t heads[2] = {0, 0};

    d->aic_started = 0;
    d->aiv_started = 0;
    if (d->deferred || image == NULL || ((uintptr_t)image & 7u) != 0 || bytes < sizeof(*h) ||
        h->header_bytes != sizeof(*h) || h->task_count == 0 || h->task_count != d->task_count ||
        !tables_fit(h, bytes) || count_heads(h, heads) != 0)
        return -1;
    uint32_t aic = heads[SIMPLER_CORE_TYPE_AIC] < d->aic_count ? heads[SIMPLER_CORE_TYPE_AIC] : d->aic_count;
    uint32_t aiv = heads[SIMPLER_CORE_TYPE_AIV] < d->aiv_count ? heads[SIMPLER_CORE_TYPE_AIV] : d->aiv_count;
    if (aic + aiv == 0)
        return -1;
    d->aic_started = (uint16_t)aic;
    d->aiv_started = (uint16_t)aiv;
    return 0;
}
