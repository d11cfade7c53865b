/*
 * device_ready_queue — the scheduler's ready queues, one per core type,
 * in the scheduler state region (requirements.h sizes them: a 64-byte
 * header, then a power-of-two ring holding every task). Only the
 * scheduler thread touches them, so they are plain FIFO rings.
 */
#ifndef SIMPLER_DEVICE_READY_QUEUE_H
#define SIMPLER_DEVICE_READY_QUEUE_H

#include <stdint.h>

#include "device/device_run_desc.h"
#include "graph/requirements.h"

typedef struct device_ready_queue {
    uint32_t head;  /* next to pop */
    uint32_t tail;  /* next free */
    uint32_t mask;  /* slots - 1 */
    uint32_t reserved[13];
    uint32_t slots[];
} device_ready_queue;

_Static_assert(sizeof(device_ready_queue) == GRAPH_READY_QUEUE_HEADER_BYTES, "ready queue header layout");

/* Queue `core_type` (SIMPLER_CORE_TYPE_*) of the descriptor's scheduler
 * state, emptied. */
static inline device_ready_queue *device_ready_queue_reset(const device_run_desc *d, uint32_t core_type)
{
    device_ready_queue *q =
        (device_ready_queue *)(uintptr_t)(d->scheduler_base + core_type * graph_ready_queue_bytes(d->task_count));
    q->head = 0;
    q->tail = 0;
    q->mask = (uint32_t)graph_ready_queue_slots(d->task_count) - 1;
    return q;
}

/* A task enters a queue once per execution, so a ring of >= task_count
 * slots never overflows. */
static inline void device_ready_queue_push(device_ready_queue *q, uint32_t task)
{
    q->slots[q->tail++ & q->mask] = task;
}

static inline int device_ready_queue_empty(const device_ready_queue *q)
{
    return q->head == q->tail;
}

static inline uint32_t device_ready_queue_count(const device_ready_queue *q)
{
    return q->tail - q->head;
}

static inline uint32_t device_ready_queue_pop(device_ready_queue *q)
{
    return q->slots[q->head++ & q->mask];
}

#endif
