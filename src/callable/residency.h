/*
 * residency — the table of callable slots of one context.
 *
 * Ids are chosen by the caller: 0 <= id < slot_count, where slot_count is
 * SIMPLER_MAX_CALLABLES_PROGRAM (64) for a program context and
 * SIMPLER_KERNEL_MAX_CALLABLES (1024) for a kernel context. Each slot holds
 * at most one loaded callable and a generation that counts its
 * occupancies: the first preparation gives 1, unregister + register again
 * gives 2, a replacing preparation also bumps it. A launch carries (id,
 * generation); the device refuses a packet whose generation differs.
 *
 * Every call either succeeds or has no effect. Not internally locked: the
 * owning context serializes calls on one table.
 */
#ifndef SIMPLER_CALLABLE_RESIDENCY_H
#define SIMPLER_CALLABLE_RESIDENCY_H

#include <stddef.h>
#include <stdint.h>

#include "callable/loader.h"

typedef struct residency_slot {
    loaded_callable *callable; /* NULL = empty */
    uint64_t generation;       /* occupancies so far; 0 = never occupied */
} residency_slot;

typedef struct residency_table {
    uint32_t slot_count;
    residency_slot *slots;
} residency_table;

/* Allocates `slot_count` empty slots (1..SIMPLER_KERNEL_MAX_CALLABLES).
 * Returns 0; -1005 for NULL or a count out of range; -1007 when host
 * memory runs out (the table is then left empty, slots NULL). */
int residency_init(residency_table *t, uint32_t slot_count);

/* Unloads every resident callable and frees the slots. Safe on a table
 * whose init failed or that was already deinitialized. */
void residency_deinit(residency_table *t);

/* Validates and loads `image` (callable_load) into slot `id` and bumps the
 * slot's generation, writing it to *generation_out (may be NULL). When the
 * slot is occupied: with `replace` the new callable is loaded first and
 * the old one unloaded only after; without it the call is refused.
 * Returns 0; -1005 for NULL t, an id out of range, a malformed image or a
 * binary that does not load; -1003 for an occupied slot without `replace`;
 * -1007 when memory runs out. On failure the slot, its generation and
 * `counts` are unchanged. */
int residency_prepare(residency_table *t, int32_t id, const void *image, size_t size, callable_dlopen_counts *counts,
                      int replace, uint64_t *generation_out);

/* Two-phase form of residency_prepare, for callers with a step that may
 * fail between load and publish (e.g. enqueuing a device registration):
 * callable_load the image, learn the generation the slot will get with
 * residency_next_generation, do the step, then residency_install; if the
 * step fails, callable_unload and nothing changed. */

/* The generation slot `id` gets at its next install. Returns 0; -1005 for
 * NULL t or out, or an id out of range; -1003 when the slot is occupied
 * and `replace` is 0. */
int residency_next_generation(const residency_table *t, int32_t id, int replace, uint64_t *out);

/* Installs `lc` (from callable_load; ownership passes to the table on
 * success) into slot `id`, unloading a previous occupant when `replace`,
 * and bumps the generation (written to *generation_out, may be NULL).
 * Returns 0; -1005 for NULL t or lc, or an id out of range; -1003 for an
 * occupied slot without `replace`. On failure the caller still owns `lc`
 * and the slot is unchanged. */
int residency_install(residency_table *t, int32_t id, loaded_callable *lc, int replace, uint64_t *generation_out);

/* Unloads the callable in slot `id`; the generation is kept (the next
 * occupancy continues from it). Returns 0; -1005 for NULL t or an id out
 * of range; -1006 (CALLABLE_NOT_RESIDENT) for an empty slot. */
int residency_remove(residency_table *t, int32_t id);

/* The callable in slot `id` and its generation (either output may be
 * NULL). Returns 0; -1005 for NULL t or an id out of range; -1006 for an
 * empty slot. */
int residency_lookup(const residency_table *t, int32_t id, const loaded_callable **callable,
                     uint64_t *generation);

#endif
