/* Program-mode simpler_init and the shared closing entry finalize_device
 * (SPEC §6, §7.1). */
#include "common/log.h"
#include "common/task_args_check.h"
#include "context/context.h"
#include "context/context_limits.h"
#include "context/context_streams.h"
#include "context/program.h"

static int device_id_check(simpler_context *ctx, int device_id)
{
    platform_device_info info;
    int rc = context_device_status(ctx, "device_info", ctx->ops->device_info(ctx->ops->user, &info));
    if (rc != 0)
        return rc;
    if (device_id < 0 || (uint32_t)device_id >= info.device_count)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    ctx->device_info = info;
    return 0;
}

/* The host-side state: the residency table and the build scratch. */
static int host_state_create(simpler_context *ctx, const CallConfig *prewarm)
{
    uint32_t window = CONTEXT_DEFAULT_TASK_WINDOW;
    if (prewarm != NULL && prewarm->task_window > window)
        window = prewarm->task_window;
    if (window > GRAPH_TASK_WINDOW_MAX)
        window = GRAPH_TASK_WINDOW_MAX;
    int rc = residency_init(&ctx->residency, SIMPLER_MAX_CALLABLES_PROGRAM);
    if (rc != 0)
        return rc;
    rc = program_scratch_reserve(ctx, window);
    if (rc != 0)
        residency_deinit(&ctx->residency);
    return rc;
}

static int init_locked(simpler_context *ctx, int device_id, const CallConfig *prewarm)
{
    /* The latch comes first (SPEC §7.1): a program init attempt fixes the
     * context's identity even when it fails later. */
    int rc = context_latch(ctx, CONTEXT_MODE_PROGRAM);
    if (rc != 0)
        return rc;
    if (ctx->initialized)
        return PTO_RUNTIME_ERR_INVALID_STATE;
    if (prewarm != NULL && call_config_check(prewarm) != 0)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    rc = device_id_check(ctx, device_id);
    if (rc != 0)
        return rc;
    ctx->device_id = device_id;
    rc = context_select_device(ctx);
    if (rc != 0)
        return rc;
    rc = host_state_create(ctx, prewarm);
    if (rc != 0)
        return rc;
    arena_bank_init(&ctx->bank, ctx->ops);
    rc = context_streams_create(ctx, 1);
    if (rc != 0)
        goto err_release_host;
    if (prewarm != NULL) {
        graph_requirements req;
        program_requirements_of_config(prewarm, &req);
        rc = program_capacity_commit(ctx, &req);
        if (rc != 0)
            goto err_release_device;
    }
    ctx->initialized = 1;
    return 0;

err_release_device:
    if (program_release_device(ctx) != 0)
        simpler_log(SIMPLER_LOG_WARN, "simpler_init: unwinding after failure could not release everything");
err_release_host:
    program_release_host(ctx);
    return rc;
}

int simpler_init(DeviceContextHandle handle, int device_id, const CallConfig *prewarm_config)
{
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    int rc = init_locked(ctx, device_id, prewarm_config);
    context_unlock(ctx);
    return rc;
}

static int finalize_program(simpler_context *ctx)
{
    if (!ctx->initialized)
        return PTO_RUNTIME_ERR_INVALID_STATE;
    int rc = context_select_device(ctx);
    rc = rc ? rc : program_release_device(ctx);
    if (rc != 0)
        return rc;
    /* The device is the context's own (program mode owns it): its reset
     * drops anything device_malloc_ctx handed out that was not freed. */
    rc = context_device_status(ctx, "reset_device", ctx->ops->reset_device(ctx->ops->user, ctx->device_id));
    if (rc != 0)
        return rc;
    program_release_host(ctx);
    ctx->initialized = 0;
    return 0;
}

int finalize_device(DeviceContextHandle handle)
{
    simpler_context *ctx = context_lock(handle);
    int rc;
    if (ctx == NULL)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if (context_is_kernel(ctx))
        rc = ctx->kernel_hooks != NULL ? ctx->kernel_hooks->finalize(ctx) : PTO_RUNTIME_ERR_INVALID_STATE;
    else
        rc = finalize_program(ctx);
    context_unlock(ctx);
    return rc;
}
