/*
 * device_arena — one device allocation with a remembered size.
 *
 * An arena is either empty (base NULL, bytes 0) or committed: one
 * allocation of `bytes` made through a platform table, whose base is
 * aligned to DEVICE_ARENA_ALIGN. The arena never grows by itself: the
 * arena bank decides when a region may be re-based (arena_bank.h).
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

#endif
