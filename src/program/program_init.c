/* Program-mode simpler_init, its finalize_device and destroy, and the
 * mode table that plugs them into the shared context. */
#include "common/error.h"
#include "common/host_alloc.h"
#include "common/log.h"
#include "common/task_args_check.h"
#include "context/context.h"
#include "context/context_streams.h"
#include "program/program.h"
#include "program/program_limits.h"

static int device_id_check(simpler_context *ctx, int device_id)
{
    platform_device_info info;
    int rc = context_device_status(ctx, "device_info", ctx->ops->device_info(ctx->ops->user, &info));
    if (rc != 0)
        return rc;
    if (device_id < 0 || (uint32_t)device_id >= info.device_count)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "device_id = %d: must be in 0..%u", device_id,
                            info.device_count - 1);
    ctx->device_info = info;
    return 0;
}

/* The host-side state: the residency table and the build scratch. */
static int host_state_create(simpler_context *ctx, const CallConfig *prewarm)
{
    uint32_t window = GRAPH_DEFAULT_TASK_WINDOW;
    if (prewarm != NULL && prewarm->task_window > window)
        window = prewarm->task_window;
    if (window > GRAPH_TASK_WINDOW_MAX)
        window = GRAPH_TASK_WINDOW_MAX;
    int rc = residency_init(&ctx->residency, SIMPLER_MAX_CALLABLES_PROGRAM);
    if (rc != 0)
        return rc;
    graph_scratch *scratch = ctx->scratch;
    rc = program_scratch_reserve(&scratch, window);
    if (rc != 0) {
        residency_deinit(&ctx->residency);
        return rc;
    }
    if (scratch != ctx->scratch) {
        graph_scratch_destroy(ctx->scratch);
        ctx->scratch = scratch;
    }
    return 0;
}

/* The state struct outlives finalize (a later init reuses it); *fresh
 * says this call created it, so that its failure can drop it again. */
static int state_get(simpler_context *ctx, program_state **out, int *fresh)
{
    *fresh = ctx->mode_state == NULL;
    if (*fresh && (ctx->mode_state = host_calloc(1, sizeof(program_state))) == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "host allocation of the program-mode state failed");
    *out = ctx->mode_state;
    return 0;
}

static void state_drop(simpler_context *ctx)
{
    host_free(ctx->mode_state);
    ctx->mode_state = NULL;
}

static int init_locked(simpler_context *ctx, int device_id, const CallConfig *prewarm)
{
    program_state *ps = NULL;
    int fresh = 0;
    /* The latch comes first: a program init attempt fixes the context's
     * identity even when it fails later. */
    int rc = context_latch(ctx, &program_mode_ops);
    if (rc != 0)
        return rc;
    if (program_initialized(ctx))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: already initialized (finalize_device first)");
    rc = prewarm != NULL ? call_config_check(prewarm) : 0;
    rc = rc ? rc : device_id_check(ctx, device_id);
    if (rc != 0)
        return rc;
    ctx->device_id = device_id;
    rc = context_select_device(ctx);
    if (rc != 0)
        return rc;
    rc = state_get(ctx, &ps, &fresh);
    if (rc != 0)
        return rc;
    rc = host_state_create(ctx, prewarm);
    if (rc != 0)
        goto err_drop_state;
    arena_bank_init(&ctx->bank, ctx->ops);
    rc = context_streams_create(ctx, 0);
    if (rc != 0)
        goto err_release_host;
    if (prewarm != NULL) {
        SimplerGraphRequirements req;
        program_requirements_of_config(prewarm, &req);
        rc = program_capacity_commit(ctx, &req);
        if (rc != 0)
            goto err_release_device;
    }
    ps->initialized = 1;
    return 0;

err_release_device:
    if (program_release_device(ctx) != 0)
        simpler_log(SIMPLER_LOG_WARN, "simpler_init: unwinding after failure could not release everything");
err_release_host:
    program_release_host(ctx);
err_drop_state:
    if (fresh)
        state_drop(ctx);
    return rc;
}

int simpler_init(DeviceContextHandle handle, int device_id, const CallConfig *prewarm_config)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    int rc = init_locked(ctx, device_id, prewarm_config);
    context_unlock(ctx);
    return rc;
}

int program_initialized(const simpler_context *ctx)
{
    const program_state *ps = program_state_of(ctx);
    return ps != NULL && ps->initialized;
}

static int program_finalize(simpler_context *ctx)
{
    program_state *ps = program_state_of(ctx);
    if (ps == NULL || !ps->initialized)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: not initialized: nothing to finalize");
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
    ps->initialized = 0;
    return 0;
}

static int program_holds_resources(const simpler_context *ctx)
{
    return program_initialized(ctx);
}

static int program_blocks_destroy(const simpler_context *ctx)
{
    (void)ctx;
    return 0;
}

/* A program context the caller did not finalize is finalized here; a
 * failure there cannot be reported, so it is only logged. */
static void program_destroy(simpler_context *ctx)
{
    if (program_initialized(ctx) && program_finalize(ctx) != 0)
        simpler_log(SIMPLER_LOG_WARN, "destroy_device_context: finalize failed; device memory may leak");
    program_release_host(ctx);
    state_drop(ctx);
}

const context_mode_ops program_mode_ops = {
    .mode = CONTEXT_MODE_PROGRAM,
    .finalize = program_finalize,
    .holds_resources = program_holds_resources,
    .blocks_destroy = program_blocks_destroy,
    .destroy = program_destroy,
};
