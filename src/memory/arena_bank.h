/*
 * arena_bank — the static arena bank: three device regions that a context
 * commits before a run and keeps across runs.
 *
 * Regions, committed in this order: gm_heap (the graph heap a run carves),
 * gm_sm (shared memory), runtime_pool (runtime header, graph definition,
 * scheduler state, slot registry). Each is one device allocation with a
 * 1024-aligned base and a remembered size (device_arena.h).
 *
 * arena_bank_commit() applies one request of three sizes, region by region:
 * - request 0 on a committed region releases it (program mode);
 *   on an uncommitted region it does nothing;
 * - request <= remembered size is served in place: no allocator call, the
 *   remembered size is not shrunk;
 * - otherwise the region is re-based: released, then allocated at the
 *   requested size.
 * Kernel mode freezes committed regions: growing or releasing one is
 * refused with PTO_RUNTIME_ERR_INTERNAL (an invariant break: kernel capacity
 * is committed once at init from the CONFIGURE, and launches never ask for
 * more) and the refusal has no side effects, because every region is
 * checked before any is touched. A first commit of an uncommitted region is
 * allowed in kernel mode: that is how a kernel context reaches its size.
 * An allocation failure rolls the whole bank back (every region released,
 * every remembered size zero) in both modes: a setup that never completed
 * published no address that a captured graph could hold.
 *
 * Not thread-safe: a bank belongs to one context, under its lock.
 */
#ifndef SIMPLER_MEMORY_ARENA_BANK_H
#define SIMPLER_MEMORY_ARENA_BANK_H

#include <stddef.h>
#include <stdint.h>

#include "memory/device_arena.h"
#include "platform/platform_ops.h"

enum {
    ARENA_REGION_GM_HEAP = 0,
    ARENA_REGION_GM_SM = 1,
    ARENA_REGION_RUNTIME_POOL = 2,
    ARENA_REGION_COUNT = 3
};

typedef struct arena_bank {
    const platform_ops *ops; /* the allocator; borrowed, outlives the bank */
    device_arena regions[ARENA_REGION_COUNT];
} arena_bank;

/* Requested bytes per region, indexed by ARENA_REGION_*. */
typedef struct arena_bank_request {
    size_t bytes[ARENA_REGION_COUNT];
} arena_bank_request;

/* What a commit did. A region "changed" when it was released or allocated
 * (its base and contents can no longer be assumed); callers drop anything
 * cached about a bank whose bases_changed is set. */
typedef struct arena_bank_outcome {
    int bases_changed;                      /* any region_changed */
    int region_changed[ARENA_REGION_COUNT];
} arena_bank_outcome;

/* An empty bank over `ops` (both non-NULL). Touches no device. */
void arena_bank_init(arena_bank *bank, const platform_ops *ops);

/* Applies `req` as described above. `out` may be NULL; when given it is
 * always written (all zero on a refusal or an invalid argument).
 * Returns:
 * 0 — every region now holds at least its request (0-requested regions are
 *   released, program mode);
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT — bank or req NULL; nothing changed;
 * PTO_RUNTIME_ERR_INTERNAL — kernel mode, a committed region would grow or
 *   be released; nothing changed, no allocator call;
 * PTO_RUNTIME_ERR_OUT_OF_MEMORY — an allocation failed (or
 *   PTO_RUNTIME_ERR_INTERNAL: the platform returned a misaligned base); the
 *   whole bank was rolled back (a region whose free failed during the rollback is the one
 *   exception: it stays committed so arena_bank_release can retry it);
 * PTO_RUNTIME_ERR_DEVICE — freeing a region before its re-base or release
 *   failed; that region and the ones after it are unchanged, earlier ones
 *   keep what this call did to them (reported in `out`). */
int arena_bank_commit(arena_bank *bank, const arena_bank_request *req, int kernel_mode,
                      arena_bank_outcome *out);

/* Would `req` be refused in kernel mode? Pure; nonzero when some committed
 * region would grow or be released. */
int arena_bank_kernel_refuses(const arena_bank *bank, const arena_bank_request *req);

/* Releases every region. Returns 0, or PTO_RUNTIME_ERR_DEVICE when a free
 * failed: that region stays committed (the others are released) and a
 * retry frees only what remains. NULL bank -> INVALID_ARGUMENT. */
int arena_bank_release(arena_bank *bank);

/* Base of a region (NULL when uncommitted or out of range). */
void *arena_bank_base(const arena_bank *bank, int region);

/* The region's arena, for carving (NULL when out of range). */
device_arena *arena_bank_region(arena_bank *bank, int region);

/* Sum of the remembered sizes (committed device bytes held by the bank). */
size_t arena_bank_committed_bytes(const arena_bank *bank);

#endif
