/* Pointer vectors and node-id sets: the only growable containers simdev uses. */
#include <string.h>

#include "common/host_alloc.h"
#include "simdev/sd_internal.h"

int sd_vec_reserve(struct sd_vec *v, size_t extra)
{
    if (v->count + extra <= v->cap)
        return 0;
    size_t cap = v->cap ? v->cap * 2 : 8;
    while (cap < v->count + extra)
        cap *= 2;
    void **items = host_realloc(v->items, cap * sizeof(*items));
    if (items == NULL)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    v->items = items;
    v->cap = cap;
    return 0;
}

void sd_vec_push(struct sd_vec *v, void *item)
{
    v->items[v->count++] = item;
}

int sd_vec_has(const struct sd_vec *v, const void *item)
{
    for (size_t i = 0; i < v->count; i++)
        if (v->items[i] == item)
            return 1;
    return 0;
}

/* Keeps the order: members' indexes are lanes and registries are walked
 * in creation order. */
void sd_vec_remove(struct sd_vec *v, const void *item)
{
    for (size_t i = 0; i < v->count; i++) {
        if (v->items[i] != item)
            continue;
        memmove(&v->items[i], &v->items[i + 1], (v->count - i - 1) * sizeof(void *));
        v->count--;
        return;
    }
}

void sd_vec_deinit(struct sd_vec *v)
{
    host_free(v->items);
    v->items = NULL;
    v->count = v->cap = 0;
}

static int ids_has(const struct sd_ids *set, uint32_t id)
{
    for (uint32_t i = 0; i < set->count; i++)
        if (set->ids[i] == id)
            return 1;
    return 0;
}

static int ids_reserve(struct sd_ids *set, uint32_t extra)
{
    if (set->count + extra <= set->cap)
        return 0;
    uint32_t cap = set->cap ? set->cap * 2 : 4;
    while (cap < set->count + extra)
        cap *= 2;
    uint32_t *ids = host_realloc(set->ids, (size_t)cap * sizeof(*ids));
    if (ids == NULL)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    set->ids = ids;
    set->cap = cap;
    return 0;
}

int sd_ids_add(struct sd_ids *set, uint32_t id)
{
    if (ids_has(set, id))
        return 0;
    if (ids_reserve(set, 1) != 0)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    set->ids[set->count++] = id;
    return 0;
}

/* Reserves first so that a failure leaves `set` unchanged. */
int sd_ids_union(struct sd_ids *set, const struct sd_ids *other)
{
    if (ids_reserve(set, other->count) != 0)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    for (uint32_t i = 0; i < other->count; i++)
        if (!ids_has(set, other->ids[i]))
            set->ids[set->count++] = other->ids[i];
    return 0;
}

int sd_ids_copy(struct sd_ids *dst, const struct sd_ids *src)
{
    struct sd_ids fresh = {0};
    if (sd_ids_union(&fresh, src) != 0)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    sd_ids_deinit(dst);
    *dst = fresh;
    return 0;
}

void sd_ids_deinit(struct sd_ids *set)
{
    host_free(set->ids);
    set->ids = NULL;
    set->count = set->cap = 0;
}
