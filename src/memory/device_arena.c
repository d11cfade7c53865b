/* One device allocation with a remembered size. */
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
    return 0;
}
