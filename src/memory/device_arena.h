/*
 * device_arena — one device allocation with a remembered size and a bump
 * cursor for carving it.
 *
 * An arena is either empty (base NULL, bytes 0) or committed: one
 * allocation of `bytes` made through a platform table, whose base is
 * aligned to DEVICE_ARENA_ALIGN. The cursor lets a run carve sub-buffers
 * (the graph heap of one run) without touching the allocator; rewinding
 * it is free. The arena never grows by itself: the arena bank decides when
 * a region may be re-based (arena_bank.h).
 *
 * Not thread-safe: an arena belongs to one context, under its lock.
 */
#ifndef SIMPLER_MEMORY_DEVICE_ARENA_H
#define SIMPLER_MEMORY_DEVICE_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "platform/platform_ops.h"

/* Base alignment of every arena (kernels need 1024-aligned buffers; the
 * platform hands out bases aligned this much). */
#define DEVICE_ARENA_ALIGN PLATFORM_ALLOC_ALIGN

typedef struct device_arena {
    void *base;   /* NULL when empty */
    size_t bytes; /* the allocation's size, remembered; 0 when empty */
    size_t used;  /* bump cursor, <= bytes */
} device_arena;

/* Commits an empty arena: one allocation of `bytes` (> 0) through `ops`.
 * Returns 0; PTO_RUNTIME_ERR_INVALID_ARGUMENT (NULL, bytes 0);
 * PTO_RUNTIME_ERR_INVALID_STATE (already committed);
 * PTO_RUNTIME_ERR_OUT_OF_MEMORY (the allocator failed);
 * PTO_RUNTIME_ERR_INTERNAL (the platform returned a base that is not
 * DEVICE_ARENA_ALIGN-aligned: the allocation is given back). On failure the
 * arena stays empty and nothing is held. */
int device_arena_commit(device_arena *arena, size_t bytes, const platform_ops *ops);

/* Frees a committed arena and empties it; an empty arena is a no-op.
 * Returns 0, or PTO_RUNTIME_ERR_DEVICE when the free failed, in which case
 * the arena is unchanged (still committed) so a retry can finish it. */
int device_arena_release(device_arena *arena, const platform_ops *ops);

/* Carves `bytes` at the next `align`-aligned offset (align a power of two,
 * <= DEVICE_ARENA_ALIGN; 0 means DEVICE_ARENA_ALIGN) and advances the
 * cursor. Returns the device address, or NULL when the arena is empty or
 * the rest does not hold it (the cursor is unchanged). Overflow-safe. */
void *device_arena_carve(device_arena *arena, size_t bytes, size_t align);

/* Rewinds the cursor to the base (nothing is freed). */
void device_arena_rewind(device_arena *arena);

/* O(1) consistency check of the invariants above; nonzero when they hold. */
int device_arena_check(const device_arena *arena);

#endif
