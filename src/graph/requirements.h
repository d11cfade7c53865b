/*
 * requirements — how many bytes of each device region a built graph needs.
 *
 * THE one place these formulas live: the device side lays its runtime
 * arena and scheduler state out with the offsets below, and the memory
 * bank sizes its regions from the totals, so neither may recompute them.
 *
 * runtime arena (device-mutated state of one execution):
 *   [0, 256)                      runtime header (status word, counters)
 *   [256, 256 + 16 * tasks)       task state: fan-in remaining, status, core, reserved (u32 each)
 *   then, from the next multiple of 64,
 *   64 slots x 448 bytes          AICore handshake slots (device_handshake.h)
 * scheduler state (ready queues, one per core type):
 *   2 x (64-byte queue header + 4 bytes x slots), slots = next_pow2(max(tasks, 64))
 * graph heap: the intermediates (1024-aligned each); graph definition:
 * the graph image; retained temp: the staged HOST tensors (1024-aligned).
 */
#ifndef SIMPLER_GRAPH_REQUIREMENTS_H
#define SIMPLER_GRAPH_REQUIREMENTS_H

#include <stdint.h>

#include "graph/graph.h"
#include "platform/platform_limits.h"
#include "simpler/runtime_c_api.h"

#define GRAPH_RUNTIME_HEADER_BYTES 256u
#define GRAPH_TASK_STATE_BYTES 16u
#define GRAPH_CORE_SLOT_BYTES 448u
/* One handshake slot per AICore thread a device can have. */
#define GRAPH_CORE_SLOT_MAX 64u
#define GRAPH_READY_QUEUE_COUNT 2u /* AIC, AIV */
#define GRAPH_READY_QUEUE_HEADER_BYTES 64u
#define GRAPH_READY_QUEUE_SLOT_BYTES 4u
#define GRAPH_READY_QUEUE_MIN_SLOTS 64u

_Static_assert(GRAPH_CORE_SLOT_MAX == PLATFORM_ENGINE_THREADS_MAX, "a slot per AICore thread");

/* The runtime arena: the header, one handshake slot per possible core,
 * then the task state. The slots come before the task state so that what
 * the chain zeroes before every execution (the header and the slots of
 * the cores it runs, graph_runtime_clear_bytes) is small and does not
 * grow with the graph; the scheduler's seeding writes every task's state
 * before anything reads it. Slots start on a cache line (the arena base
 * is 1024-aligned, the header and a slot are multiples of 64), so no
 * slot line is shared with the header, a neighbour or task state. */
static inline uint64_t graph_runtime_core_slot_offset(uint32_t core)
{
    return GRAPH_RUNTIME_HEADER_BYTES + (uint64_t)core * GRAPH_CORE_SLOT_BYTES;
}

/* Task state of task i lives at this offset of the runtime arena. */
static inline uint64_t graph_runtime_task_state_offset(uint32_t task)
{
    return graph_runtime_core_slot_offset(GRAPH_CORE_SLOT_MAX) + (uint64_t)task * GRAPH_TASK_STATE_BYTES;
}

static inline uint64_t graph_runtime_arena_bytes(uint32_t task_count)
{
    return graph_runtime_task_state_offset(task_count);
}

/* The bytes at the start of the arena the chain zeroes before an
 * execution on `cores` cores: the header and those cores' slots. */
static inline uint64_t graph_runtime_clear_bytes(uint32_t cores)
{
    return graph_runtime_core_slot_offset(cores);
}

_Static_assert(GRAPH_RUNTIME_HEADER_BYTES % 64 == 0 && GRAPH_CORE_SLOT_BYTES % 64 == 0, "slots on cache lines");

/* Entries per ready queue: a power of two holding every task. */
static inline uint64_t graph_ready_queue_slots(uint32_t task_count)
{
    uint64_t slots = GRAPH_READY_QUEUE_MIN_SLOTS;
    while (slots < task_count)
        slots *= 2;
    return slots;
}

static inline uint64_t graph_ready_queue_bytes(uint32_t task_count)
{
    return GRAPH_READY_QUEUE_HEADER_BYTES + graph_ready_queue_slots(task_count) * GRAPH_READY_QUEUE_SLOT_BYTES;
}

static inline uint64_t graph_scheduler_state_bytes(uint32_t task_count)
{
    return GRAPH_READY_QUEUE_COUNT * graph_ready_queue_bytes(task_count);
}

/* Fills *out for `g`. Returns 0, or PTO_RUNTIME_ERR_INVALID_ARGUMENT when its
 * image would not fit the format. */
int graph_requirements_of(const graph *g, SimplerGraphRequirements *out);

/* The most a build in a window of `window` tasks (1..GRAPH_TASK_WINDOW_MAX)
 * can need of the runtime regions, before any graph is built: the
 * runtime arena and scheduler state of `window` tasks, and the image of
 * a window-sized graph with the scratch's default pools (0 when that does
 * not fit the format); heap and retained temp 0, task_count `window`.
 * Both modes size their defaults with it (program prewarm, kernel
 * CONFIGURE fields of 0). Pure. */
void graph_requirements_for_window(uint32_t window, SimplerGraphRequirements *out);

#endif
