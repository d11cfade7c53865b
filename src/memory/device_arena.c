/* One device allocation with a bump cursor. */
#include "memory/device_arena.h"

#include "platform/platform_status.h"

int device_arena_commit(device_arena *arena, size_t bytes, const platform_ops *ops)
{
    void *base = NULL;
    int rc;

    if (arena == NULL || ops == NULL || bytes == 0)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if (arena->base != NULL)
        return PTO_RUNTIME_ERR_INVALID_STATE;
    rc = ops->mem_alloc(ops->user, &base, bytes);
    if (rc != 0 || base == NULL)
        return PTO_RUNTIME_ERR_OUT_OF_MEMORY;
    if ((uintptr_t)base % DEVICE_ARENA_ALIGN != 0) {
        /* The platform broke its alignment promise: hold nothing. */
        (void)ops->mem_free(ops->user, base);
        return PTO_RUNTIME_ERR_INTERNAL;
    }
    arena->base = base;
    arena->bytes = bytes;
    arena->used = 0;
    return 0;
}

int device_arena_release(device_arena *arena, const platform_ops *ops)
{
    if (arena == NULL || ops == NULL)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if (arena->base == NULL)
        return 0;
    if (ops->mem_free(ops->user, arena->base) != 0)
        return PTO_RUNTIME_ERR_DEVICE;
    arena->base = NULL;
    arena->bytes = 0;
    arena->used = 0;
    return 0;
}

void *device_arena_carve(device_arena *arena, size_t bytes, size_t align)
{
    size_t start;

    if (align == 0)
        align = DEVICE_ARENA_ALIGN;
    if (arena == NULL || arena->base == NULL || align > DEVICE_ARENA_ALIGN || (align & (align - 1)) != 0)
        return NULL;
    /* The base is DEVICE_ARENA_ALIGN-aligned, so aligning the offset
     * aligns the address. used <= bytes, so start cannot wrap. */
    start = (arena->used + align - 1) & ~(align - 1);
    if (start > arena->bytes || bytes > arena->bytes - start)
        return NULL;
    arena->used = start + bytes;
    return (char *)arena->base + start;
}

void device_arena_rewind(device_arena *arena)
{
    if (arena != NULL)
        arena->used = 0;
}

int device_arena_check(const device_arena *arena)
{
    if (arena->base == NULL)
        return arena->bytes == 0 && arena->used == 0;
    return arena->bytes > 0 && arena->used <= arena->bytes && (uintptr_t)arena->base % DEVICE_ARENA_ALIGN == 0;
}
