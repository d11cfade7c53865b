/*
 * retained_temp — the retained temp buffer: one {addr, size} device slot
 * that stages a run's HOST tensors.
 *
 * A run packs its host-resident tensors into one device buffer, each at a
 * RETAINED_TEMP_ALIGN-aligned offset (the graph build places them and
 * sums the total, graph.h temp_bytes). The slot is kept across runs and freed once at
 * close, so steady-state runs make no allocator call.
 *
 * retained_temp_begin(required):
 * - required fits (required <= size) -> served in place, no allocator call;
 * - program mode: the slot grows by replacement (free the old buffer, then
 *   allocate `required`);
 * - kernel mode: a captured graph may hold the slot's address, so a
 *   re-base of a held buffer (required > size && addr != NULL) is refused
 *   BEFORE the free, with PTO_RUNTIME_ERR_CAPACITY_EXCEEDED (the request
 *   exceeds the frozen capacity; the arena bank's refusal is INTERNAL
 *   because a bank request can only exceed it through a runtime bug, while
 *   here the caller's host tensors decide the size). The slot keeps its
 *   address and size and stays usable for requests that fit;
 * - an empty slot may be allocated in either mode: that is how a kernel
 *   context reaches its size (once, at init).
 *
 * Not thread-safe: a slot belongs to one context, under its lock.
 */
#ifndef SIMPLER_MEMORY_RETAINED_TEMP_H
#define SIMPLER_MEMORY_RETAINED_TEMP_H

#include <stddef.h>
#include <stdint.h>

#include "platform/platform_ops.h"

/* Alignment of every staged tensor inside the buffer (kernels need
 * 1024-aligned pointers; the buffer base is aligned as much by the
 * platform). */
#define RETAINED_TEMP_ALIGN 1024u

typedef struct retained_temp {
    void *addr;  /* NULL when empty */
    size_t size; /* bytes of the allocation; 0 when empty */
} retained_temp;

/* Makes the slot hold at least `required` bytes (see above). required 0
 * leaves the slot untouched. Returns:
 * 0 — slot->addr holds >= required bytes (or required was 0);
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT — slot or ops NULL; nothing changed;
 * PTO_RUNTIME_ERR_CAPACITY_EXCEEDED — kernel mode, the held buffer would
 *   have to grow; nothing changed, no allocator call;
 * PTO_RUNTIME_ERR_DEVICE — freeing the old buffer failed; nothing changed;
 * PTO_RUNTIME_ERR_OUT_OF_MEMORY — the allocation failed; the old buffer is
 *   already gone, the slot is empty (a later begin allocates afresh);
 * PTO_RUNTIME_ERR_INTERNAL — the platform returned a misaligned base; it
 *   was given back, the slot is empty. */
int retained_temp_begin(retained_temp *slot, size_t required, int kernel_mode, const platform_ops *ops);

/* Frees the buffer and empties the slot; an empty slot is a no-op.
 * Returns 0, PTO_RUNTIME_ERR_INVALID_ARGUMENT (NULL), or
 * PTO_RUNTIME_ERR_DEVICE when the free failed (the slot is unchanged so a
 * retry can finish it). */
int retained_temp_release(retained_temp *slot, const platform_ops *ops);

#endif
