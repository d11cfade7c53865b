/* Residency slots: which callable each id names, and its generation. */
#include "callable/residency.h"

#include "common/error.h"
#include "common/host_alloc.h"
#include "simpler/runtime_c_api.h"

static int id_valid(const residency_table *t, int32_t id)
{
    return t != NULL && t->slots != NULL && id >= 0 && (uint32_t)id < t->slot_count;
}

/* The reason for an id id_valid refuses; returns -1005. */
static int id_refuse(const residency_table *t, int32_t id)
{
    if (t == NULL || t->slots == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable_id = %d: the context has no callable slots",
                            id);
    return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable_id = %d: must be in 0..%u", id,
                        t->slot_count - 1);
}

static int occupied(int32_t id)
{
    return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE,
                        "callable_id = %d: the slot already holds a callable (unregister it first)", id);
}

static int empty(int32_t id)
{
    return simpler_fail(PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT, "callable_id = %d: no callable is resident there",
                        id);
}

int residency_init(residency_table *t, uint32_t slot_count)
{
    if (t == NULL || slot_count == 0 || slot_count > SIMPLER_KERNEL_MAX_CALLABLES)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "residency: slot_count = %u: must be 1..%d", slot_count,
                            SIMPLER_KERNEL_MAX_CALLABLES);
    residency_slot *slots = host_calloc(slot_count, sizeof *slots);
    if (slots == NULL) {
        t->slot_count = 0;
        t->slots = NULL;
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "host allocation of the %u-slot callable table failed",
                            slot_count);
    }
    t->slot_count = slot_count;
    t->slots = slots;
    return 0;
}

void residency_deinit(residency_table *t)
{
    if (t == NULL || t->slots == NULL)
        return;
    for (uint32_t i = 0; i < t->slot_count; i++)
        callable_unload(t->slots[i].callable);
    host_free(t->slots);
    t->slots = NULL;
    t->slot_count = 0;
}

int residency_next_generation(const residency_table *t, int32_t id, int replace, uint64_t *out)
{
    if (!id_valid(t, id) || out == NULL)
        return id_refuse(t, id);
    if (t->slots[id].callable != NULL && !replace)
        return occupied(id);
    *out = t->slots[id].generation + 1;
    return 0;
}

int residency_install(residency_table *t, int32_t id, loaded_callable *lc, int replace, uint64_t *generation_out)
{
    if (!id_valid(t, id) || lc == NULL)
        return id_refuse(t, id);
    residency_slot *slot = &t->slots[id];
    if (slot->callable != NULL && !replace)
        return occupied(id);
    /* Publish: the new callable is in place before the old one goes. */
    loaded_callable *old = slot->callable;
    slot->callable = lc;
    slot->generation++;
    callable_unload(old);
    if (generation_out != NULL)
        *generation_out = slot->generation;
    return 0;
}

int residency_prepare(residency_table *t, int32_t id, const void *image, size_t size, callable_dlopen_counts *counts,
                      int replace, uint64_t *generation_out)
{
    uint64_t next;
    int rc = residency_next_generation(t, id, replace, &next);
    if (rc != 0)
        return rc;
    loaded_callable *lc;
    rc = callable_load(image, size, counts, &lc);
    if (rc != 0)
        return rc;
    rc = residency_install(t, id, lc, replace, generation_out);
    if (rc != 0) /* not reachable: the slot was checked above */
        callable_unload(lc);
    return rc;
}

int residency_remove(residency_table *t, int32_t id)
{
    if (!id_valid(t, id))
        return id_refuse(t, id);
    residency_slot *slot = &t->slots[id];
    if (slot->callable == NULL)
        return empty(id);
    callable_unload(slot->callable);
    slot->callable = NULL;
    return 0;
}

int residency_lookup(const residency_table *t, int32_t id, const loaded_callable **callable, uint64_t *generation)
{
    if (!id_valid(t, id))
        return id_refuse(t, id);
    const residency_slot *slot = &t->slots[id];
    if (slot->callable == NULL)
        return empty(id);
    if (callable != NULL)
        *callable = slot->callable;
    if (generation != NULL)
        *generation = slot->generation;
    return 0;
}
