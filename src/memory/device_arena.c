/* One device allocation with a remembered size. */
#include "memory/device_arena.h"

#include "common/error.h"
#include "platform/platform_status.h"

int device_arena_commit(device_arena *arena, size_t bytes, const platform_ops *ops)
{
    void *base = NULL;
    int rc;

    if (arena == NULL || ops == NULL || bytes == 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "device arena commit: %s",
                            arena == NULL ? "arena NULL" : ops == NULL ? "ops NULL" : "bytes = 0");
    if (arena->base != NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "device arena commit: already holds %zu bytes",
                            arena->bytes);
    rc = ops->mem_alloc(ops->user, &base, bytes);
    if (rc != 0 || base == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "device allocation of %zu bytes failed: %s (device code %d)",
                            bytes, platform_error_name(rc), rc);
    if ((uintptr_t)base % DEVICE_ARENA_ALIGN != 0) {
        /* The platform broke its alignment promise: hold nothing. */
        (void)ops->mem_free(ops->user, base);
        return simpler_fail(PTO_RUNTIME_ERR_INTERNAL, "device allocation returned %p: not %d-byte aligned", base,
                            DEVICE_ARENA_ALIGN);
    }
    arena->base = base;
    arena->bytes = bytes;
    return 0;
}

int device_arena_release(device_arena *arena, const platform_ops *ops)
{
    if (arena == NULL || ops == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "device arena release: %s NULL",
                            arena == NULL ? "arena" : "ops");
    if (arena->base == NULL)
        return 0;
    int code = ops->mem_free(ops->user, arena->base);
    if (code != 0)
        return simpler_fail(PTO_RUNTIME_ERR_DEVICE, "device free of %zu bytes at %p failed: %s (device code %d)",
                            arena->bytes, arena->base, platform_error_name(code), code);
    arena->base = NULL;
    arena->bytes = 0;
    return 0;
}
