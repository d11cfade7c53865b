#include "common/error.h"
#include "context/context.h"

#include <string.h>

#include "common/host_alloc.h"
#include "common/log.h"
#include "device/device_run_desc.h"
#include "platform/platform_status.h"

DeviceContextHandle create_device_context(void)
{
    simpler_error_clear();
    simpler_context *ctx = host_calloc(1, sizeof(*ctx));
    if (ctx == NULL)
        return NULL;
    if (pthread_mutex_init(&ctx->lock, NULL) != 0) {
        host_free(ctx);
        return NULL;
    }
    ctx->device_id = -1;
    ctx->ops = platform_ops_simdev();
    return ctx;
}

simpler_context *context_lock(DeviceContextHandle handle)
{
    simpler_context *ctx = handle;
    if (ctx != NULL)
        pthread_mutex_lock(&ctx->lock);
    return ctx;
}

/* Puts the calling thread back on the device it was on before
 * context_select_device switched it, if it did. */
static void caller_device_restore(simpler_context *ctx)
{
    if (ctx->caller_device_saved) {
        int code = ctx->ops->set_device(ctx->ops->user, ctx->caller_device);
        if (code != 0)
            simpler_log(SIMPLER_LOG_WARN, "could not restore the caller's device %d (code %d)", ctx->caller_device,
                        code);
        ctx->caller_device_saved = 0;
    }
}

void context_unlock(simpler_context *ctx)
{
    if (ctx == NULL)
        return;
    caller_device_restore(ctx);
    pthread_mutex_unlock(&ctx->lock);
}

int context_latch(simpler_context *ctx, const context_mode_ops *mode)
{
    if (ctx->mode == mode)
        return 0;
    if (ctx->mode != NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: latched to %s mode; it never changes mode",
                            ctx->mode->mode == CONTEXT_MODE_KERNEL ? "kernel" : "program");
    ctx->mode = mode;
    return 0;
}

int context_is_kernel(const simpler_context *ctx)
{
    return ctx->mode != NULL && ctx->mode->mode == CONTEXT_MODE_KERNEL;
}

int context_is_program(const simpler_context *ctx)
{
    return ctx->mode != NULL && ctx->mode->mode == CONTEXT_MODE_PROGRAM;
}

void *context_mode_state(const simpler_context *ctx, int mode)
{
    return ctx->mode != NULL && ctx->mode->mode == mode ? ctx->mode_state : NULL;
}

int context_device_status(simpler_context *ctx, const char *what, int device_code)
{
    int rc = platform_status_keep(&ctx->last_device_error, device_code);
    if (rc != 0)
        return simpler_fail(rc, "device call %s failed: %s (device code %d)", what, platform_error_name(device_code),
                            device_code);
    return 0;
}

int context_select_device(simpler_context *ctx)
{
    if (!ctx->caller_device_saved) {
        int current;
        int rc = context_device_status(ctx, "get_device", ctx->ops->get_device(ctx->ops->user, &current));
        if (rc != 0)
            return rc;
        ctx->caller_device = current;
        ctx->caller_device_saved = current != ctx->device_id;
    }
    return context_device_status(ctx, "set_device", ctx->ops->set_device(ctx->ops->user, ctx->device_id));
}

int context_holds_resources(const simpler_context *ctx)
{
    return ctx->mode != NULL && ctx->mode->holds_resources(ctx);
}

int context_set_platform_ops(DeviceContextHandle handle, const platform_ops *ops)
{
    simpler_context *ctx = context_lock(handle);
    int rc = 0;
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    if (context_holds_resources(ctx))
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: holds device resources; set the platform before init");
    else
        ctx->ops = ops != NULL ? ops : platform_ops_simdev();
    context_unlock(ctx);
    return rc;
}

int context_last_device_error(DeviceContextHandle handle)
{
    simpler_context *ctx = context_lock(handle);
    int code = ctx != NULL ? ctx->last_device_error : 0;
    context_unlock(ctx);
    return code;
}

int finalize_device(DeviceContextHandle handle)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    int rc = ctx->mode != NULL ? ctx->mode->finalize(ctx)
                               : simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: never initialized: nothing to close");
    context_unlock(ctx);
    return rc;
}

void destroy_device_context(DeviceContextHandle handle)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return;
    if (ctx->mode != NULL && ctx->mode->blocks_destroy(ctx)) {
        simpler_log(SIMPLER_LOG_WARN, "destroy_device_context refused: kernel context is not closed");
        context_unlock(ctx);
        return;
    }
    context_unlock(ctx);
    if (ctx->mode != NULL)
        ctx->mode->destroy(ctx);
    caller_device_restore(ctx); /* the destroy may have selected the context's device */
    pthread_mutex_destroy(&ctx->lock);
    host_free(ctx);
}

static uint32_t at_most(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

void context_cores_split(const simpler_context *ctx, uint32_t aicore_count, uint32_t *aic, uint32_t *aiv)
{
    const platform_device_info *info = &ctx->device_info;
    uint32_t total = info->aic_cores + info->aiv_cores;
    *aic = info->aic_cores;
    *aiv = info->aiv_cores;
    if (aicore_count != 0 && aicore_count < total) {
        uint32_t want_aic = (uint32_t)((uint64_t)aicore_count * info->aic_cores / total);
        if (want_aic == 0 && info->aic_cores > 0)
            want_aic = 1;
        *aic = at_most(want_aic, aicore_count);
        *aiv = at_most(info->aiv_cores, aicore_count - *aic);
    }
    *aic = at_most(*aic, DEVICE_CORE_MAX);
    *aiv = at_most(*aiv, DEVICE_CORE_MAX - *aic);
}
