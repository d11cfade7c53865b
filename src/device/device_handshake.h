/*
 * device_handshake — the runtime arena as the device kernels use it.
 *
 * Offsets come from graph/requirements.h (never recomputed here):
 *   [0, 256)          device_runtime_header: the scheduler's doorbell
 *   handshake slots   device_core_slot per core (room for 64), seven lines each
 *   task state        device_task_state per task (scheduler only)
 *
 * A slot holds a ring of tasks for its core. The scheduler writes task
 * ids into ring[posted % DEVICE_SLOT_RING] and then publishes the new
 * `posted` count; the core runs them in order and publishes `finished`
 * after each one. posted - finished <= DEVICE_SLOT_RING, so the
 * scheduler only writes entries the core has finished with, and it can
 * keep a core busy for many tasks without a round trip each. What the
 * core writes often (finished), what it writes around a sleep (sleeping)
 * and what the scheduler writes (state, posted, bell, ring) sit on
 * different cache lines, so no side's stores take a line the other is
 * polling.
 *
 * The state word says "serve the ring" (IDLE) or "leave" (QUIT, stored
 * by the scheduler at the end, or by the host after a half-built chain);
 * a core asleep blocks on `bell`, which only grows (device_slot.h). The
 * chain zeroes the header and the slots of the cores it runs before
 * every execution, so every such slot starts IDLE with an empty ring. The executor treats any state other
 * than IDLE as QUIT, and a ring entry outside the task range also makes
 * it leave, so a slot left in garbage can only make a core leave, never
 * run a task that does not exist.
 *
 * Stores that publish (posted, finished, QUIT) are release or stronger
 * and the loads that consume them acquire, so the ring entries, the
 * restored image and everything a kernel wrote travel with the counters. Sleeping flags
 * are set and re-checked sequentially consistently; a post and a core's
 * count published while it holds work read the partner's flag relaxed,
 * and the rouse and idle publication make up for it (docs/device.md).
 */
#ifndef SIMPLER_DEVICE_HANDSHAKE_H
#define SIMPLER_DEVICE_HANDSHAKE_H

#include <stdatomic.h>
#include <stdint.h>

#include "device/device_run_desc.h"
#include "graph/requirements.h"

enum {
    DEVICE_SLOT_IDLE = 0, /* serve the ring */
    DEVICE_SLOT_QUIT = 3  /* leave (so does any other value) */
};

typedef struct device_runtime_header {
    _Atomic uint32_t doorbell;       /* bumped by a core that finished a task while the scheduler may sleep */
    _Atomic uint32_t sched_sleeping; /* 1 while the scheduler may block on doorbell */
    uint64_t prepare_ns;             /* scheduler: restore + validation, this execution */
    uint64_t graph_ns;               /* scheduler: seed to last completion, this execution */
    _Atomic uint32_t dispatching;    /* 1 once the scheduler validated and starts handing out tasks */
    uint32_t task_count;             /* argument-slot launch: the tasks of the packet the scheduler runs */
    _Atomic uint64_t kernels_addr;   /* argument-slot launch: its kernel table (device_kernel_table *) */
    _Atomic uint32_t refused;        /* kernel mode: an executor block refused its descriptor (bad seal) */
    uint32_t reserved[53];
} device_runtime_header;

typedef struct device_task_state {
    uint32_t fanin_remaining; /* predecessors not yet completed */
    uint32_t status;          /* DEVICE_TASK_* */
    uint32_t core;            /* the core that ran it */
    uint32_t chain;           /* its chain successor + 1, 0 for none (left by graph_image_check, graph_image_chain_next) */
} device_task_state;

enum { DEVICE_TASK_PENDING = 0, DEVICE_TASK_READY = 1, DEVICE_TASK_RUNNING = 2, DEVICE_TASK_DONE = 3 };

/* Tasks a core may hold at once (the scheduler adapts how many it
 * posts, up to this): 64 ids, four cache lines; seven lines a slot. */
#define DEVICE_SLOT_RING 64u

typedef struct device_core_slot {
    /* written by the core: after every task, and before and after a sleep */
    _Atomic uint32_t finished; /* tasks ever completed */
    _Atomic uint32_t arrived;  /* 1 once the core's block runs, this execution */
    uint32_t reserved0[14];
    _Atomic uint32_t sleeping; /* 1 while the core may block on bell */
    uint32_t reserved1[15];
    /* written by the scheduler (and QUIT by the host) */
    _Atomic uint32_t state;    /* DEVICE_SLOT_*: serve the ring, or QUIT */
    _Atomic uint32_t posted;   /* tasks ever written to ring */
    _Atomic uint32_t bell;     /* bumped to wake the core; only grows */
    uint32_t reserved2[13];
    uint32_t ring[DEVICE_SLOT_RING];
} device_core_slot;

_Static_assert(sizeof(device_runtime_header) == GRAPH_RUNTIME_HEADER_BYTES, "runtime header layout");
_Static_assert(sizeof(device_task_state) == GRAPH_TASK_STATE_BYTES, "task state layout");
_Static_assert(sizeof(device_core_slot) == GRAPH_CORE_SLOT_BYTES, "handshake slot layout");

static inline device_runtime_header *device_runtime_header_at(const device_run_desc *d)
{
    return (device_runtime_header *)(uintptr_t)d->runtime_base;
}

static inline device_task_state *device_task_state_at(const device_run_desc *d, uint32_t task)
{
    return (device_task_state *)(uintptr_t)(d->runtime_base + graph_runtime_task_state_offset(task));
}

static inline device_core_slot *device_core_slot_at(const device_run_desc *d, uint32_t core)
{
    return (device_core_slot *)(uintptr_t)(d->runtime_base + graph_runtime_core_slot_offset(core));
}

/* The core type of executor block `core`: AIC cores come first. */
static inline uint32_t device_core_type(const device_run_desc *d, uint32_t core)
{
    return core < d->aic_count ? SIMPLER_CORE_TYPE_AIC : SIMPLER_CORE_TYPE_AIV;
}

#endif
