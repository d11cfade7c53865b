/* The memory helpers: device memory on the context's device,
 * outside the arena bank. */
#include "common/error.h"
#include "context/context.h"

void *device_malloc_ctx(DeviceContextHandle handle, size_t size)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    void *dev = NULL;
    if (ctx == NULL) {
        (void)simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
        return NULL;
    }
    if (size == 0)
        (void)simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "size = 0: at least 1 byte");
    else if (!context_holds_resources(ctx))
        (void)simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: not initialized (no device to allocate on)");
    else if (context_select_device(ctx) == 0) {
        int code = ctx->ops->mem_alloc(ctx->ops->user, &dev, size);
        if (context_device_status(ctx, "mem_alloc", code) != 0)
            dev = NULL;
    }
    context_unlock(ctx);
    return dev;
}

void device_free_ctx(DeviceContextHandle handle, void *dev_ptr)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return;
    if (dev_ptr != NULL && context_holds_resources(ctx) && context_select_device(ctx) == 0)
        (void)context_device_status(ctx, "mem_free", ctx->ops->mem_free(ctx->ops->user, dev_ptr));
    context_unlock(ctx);
}

static int copy_sync(DeviceContextHandle handle, void *dst, const void *src, size_t size, const char *dst_name,
                     const char *src_name)
{
    simpler_context *ctx = context_lock(handle);
    int rc;
    if (ctx == NULL || dst == NULL || src == NULL)
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "%s: NULL",
                          ctx == NULL ? "ctx" : dst == NULL ? dst_name : src_name);
    else if (!context_holds_resources(ctx))
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: not initialized (no device memory to copy %s)",
                          dst_name[0] == 'd' ? "to" : "from");
    else
        rc = context_select_device(ctx);
    if (rc == 0 && size > 0)
        rc = context_device_status(ctx, "memcpy_sync", ctx->ops->memcpy_sync(ctx->ops->user, dst, src, size));
    context_unlock(ctx);
    return rc;
}

int copy_to_device_ctx(DeviceContextHandle handle, void *dev, const void *host, size_t size)
{
    simpler_error_clear();
    return copy_sync(handle, dev, host, size, "dev", "host");
}

int copy_from_device_ctx(DeviceContextHandle handle, void *host, const void *dev, size_t size)
{
    simpler_error_clear();
    return copy_sync(handle, host, dev, size, "host", "dev");
}

size_t committed_device_memory_ctx(DeviceContextHandle handle)
{
    simpler_context *ctx = context_lock(handle);
    size_t bytes;
    if (ctx == NULL)
        return 0;
    bytes = arena_bank_committed_bytes(&ctx->bank) + ctx->temp.size + ctx->trace.bytes + ctx->arg_slots.bytes;
    context_unlock(ctx);
    return bytes;
}
