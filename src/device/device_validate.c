/* The device-side validation of one execution. */
#include "device/device_validate.h"

#include <stddef.h>
#include <string.h>

#include "device/device_status.h"
#include "device/trace_record.h"
#include "graph/graph_image.h"
#include "graph/graph_limits.h"
#include "graph/requirements.h"

int device_validate_desc(const device_run_desc *d)
{
    uint32_t cores = d->aic_count + d->aiv_count;

    if (d->version != DEVICE_RUN_DESC_VERSION || d->desc_bytes != sizeof(*d) || d->aic_count > DEVICE_CORE_MAX ||
        cores == 0 || cores > DEVICE_CORE_MAX || d->task_count == 0 || d->task_count > GRAPH_TASK_WINDOW_MAX)
        return DEVICE_ERR_PACKET_INVALID;
    if ((d->kernels == NULL) != (d->deferred != 0) || d->deferred > 1 || d->runtime_base == 0 ||
        d->definition_base == 0 || d->scheduler_base == 0)
        return DEVICE_ERR_PACKET_INVALID;
    if (d->inline_bytes != 0 && d->inline_bytes != d->image_bytes)
        return DEVICE_ERR_PACKET_INVALID;
    /* Started cores: within each type's cores, and none chosen for a
     * launch whose graph is not known yet. */
    if (d->aic_started > d->aic_count || d->aiv_started > d->aiv_count ||
        (d->deferred && d->aic_started + d->aiv_started != 0))
        return DEVICE_ERR_PACKET_INVALID;
    if (d->trace_base != 0 && d->trace_bytes < device_trace_bytes(0))
        return DEVICE_ERR_PACKET_INVALID;
    /* Without room for the handshake slots the cores cannot even be told
     * to quit, so that is a malformed descriptor, not a capacity error. */
    if (device_run_desc_arena_bytes(d) > d->runtime_bytes)
        return DEVICE_ERR_PACKET_INVALID;
    if (d->image_bytes > d->definition_bytes)
        return DEVICE_ERR_CAPACITY;
    return DEVICE_STATUS_OK;
}

static int check_capacity(const device_run_desc *d, const graph_image_header *h)
{
    if (h->heap_bytes > d->heap_bytes || h->temp_bytes > d->temp_bytes)
        return DEVICE_ERR_CAPACITY;
    if ((h->heap_bytes != 0 && d->heap_base == 0) || (h->temp_bytes != 0 && d->temp_base == 0))
        return DEVICE_ERR_PACKET_INVALID;
    return DEVICE_STATUS_OK;
}

/* A task record's first eight bytes: its func_id and core type. */
_Static_assert(offsetof(graph_image_task, func_id) == 0 && offsetof(graph_image_task, core_type) == 4,
               "a task's kernel key is its first eight bytes");

/* Every task's kernel is in the table, of the task's core type, and the
 * execution has a core of that type. Consecutive tasks mostly run one
 * kernel, so a task with the func_id and core type of the task before it
 * (one 8-byte compare) passes as that one did (graph_image_check keeps
 * func_id >= 0, so the first task never matches the start value, whose
 * func_id half is -1). */
static int check_tasks(const device_run_desc *d, const graph_image_header *h)
{
    const graph_image_task *task = (const graph_image_task *)((const uint8_t *)h + h->task_offset);
    uint64_t last = UINT64_MAX;
    /* The cores of each type this execution starts: a type with tasks
     * but no started core would leave them unrun and the scheduler
     * waiting for ever (a descriptor whose plan lost a type). */
    int planned = d->aic_started + d->aiv_started != 0;
    uint32_t aic = planned ? d->aic_started : d->aic_count;
    uint32_t aiv = planned ? d->aiv_started : d->aiv_count;

    for (uint32_t i = 0; i < h->task_count; i++, task++) {
        uint64_t key;
        memcpy(&key, task, sizeof(key));
        if (key == last)
            continue;
        last = key;
        const device_kernel_entry *e = &d->kernels->entries[task->func_id];
        if (e->fn == NULL)
            return DEVICE_ERR_MISSING_KERNEL;
        if (e->core_type != task->core_type)
            return DEVICE_ERR_CORE_TYPE;
        if ((task->core_type == SIMPLER_CORE_TYPE_AIC ? aic : aiv) == 0)
            return DEVICE_ERR_NO_CORE;
    }
    return DEVICE_STATUS_OK;
}

/* The first ready queue's ring (task_count slots or more) is the check's
 * scratch; seeding reads the chain links the check leaves there. */
const uint32_t *device_validate_chains(const device_run_desc *d)
{
    return (const uint32_t *)(uintptr_t)(d->scheduler_base + GRAPH_READY_QUEUE_HEADER_BYTES);
}

int device_validate_image_known(const device_run_desc *d, int image_passed)
{
    const graph_image_header *h = (const graph_image_header *)(uintptr_t)d->definition_base;
    int rc;

    if (d->kernels == NULL || (d->image_bytes >= sizeof(*h) && h->task_count != d->task_count))
        return DEVICE_ERR_PACKET_INVALID;
    if (graph_scheduler_state_bytes(d->task_count) > d->scheduler_bytes)
        return DEVICE_ERR_CAPACITY;
    uint32_t *scratch = (uint32_t *)(uintptr_t)device_validate_chains(d);
    /* graph_image_check bounds func_id below GRAPH_FUNC_ID_LIMIT and the
     * core type to AIC/AIV, which check_tasks relies on. */
    if (!image_passed && graph_image_check(h, d->image_bytes, scratch, d->task_count) != 0)
        return DEVICE_ERR_IMAGE_INVALID;
    rc = check_capacity(d, h);
    if (rc != DEVICE_STATUS_OK)
        return rc;
    if (d->kernels->generation != d->generation)
        return DEVICE_ERR_GENERATION;
    return check_tasks(d, h);
}

int device_validate_image(const device_run_desc *d)
{
    return device_validate_image_known(d, 0);
}
