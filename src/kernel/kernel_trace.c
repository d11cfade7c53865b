/* simpler_kernel_mode_trace_export: the trace of a kernel context's last
 * completed execution, read through the platform (trace/trace_device.h).
 * Kernel mode sizes the trace buffer once at init, so it never re-bases;
 * every execution, eager or replayed, plain or from an argument slot,
 * overwrites it. The graph comes back from the frozen definition region,
 * the kernel names from the slot whose kernel table the execution used
 * (when its generation is still resident), and the host spans from the
 * log the launches keep (trace/trace_host.h). */
#include "common/error.h"
#include "context/context.h"
#include "kernel/kernel_state.h"
#include "trace/trace_device.h"

/* The resolver's state: the slot found for the stamps, looked up once. */
typedef struct kernel_names {
    const simpler_context *ctx;
    int looked;
    const loaded_callable *lc;
} kernel_names;

static const loaded_callable *callable_of(const simpler_context *ctx, uint64_t kernels_addr, uint64_t generation)
{
    const kernel_state *ks = kernel_state_of(ctx);
    for (int32_t id = 0; id < SIMPLER_KERNEL_MAX_CALLABLES; id++) {
        const loaded_callable *lc = NULL;
        uint64_t resident = 0;
        if (ks->slots[id] == NULL || (uint64_t)(uintptr_t)&ks->slots[id]->table != kernels_addr)
            continue;
        if (residency_lookup(&ctx->residency, id, &lc, &resident) == 0 && resident == generation)
            return lc;
    }
    return NULL;
}

static const char *kernel_name(void *user, uint64_t kernels_addr, uint64_t generation, int32_t func_id)
{
    kernel_names *n = user;
    if (!n->looked) {
        n->lc = callable_of(n->ctx, kernels_addr, generation);
        n->looked = 1;
    }
    const callable_kernel *k = n->lc != NULL ? callable_kernel_find(n->lc, func_id) : NULL;
    return k != NULL ? k->name : NULL;
}

static int export_locked(simpler_context *ctx, const char *path)
{
    int phase = kernel_phase(ctx);
    if (!context_is_kernel(ctx) || phase == KERNEL_PHASE_NEW || phase >= KERNEL_PHASE_CLOSING)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: %s",
                            context_is_kernel(ctx) ? "phase has no execution to export (initialize it; not after "
                                                     "finalize_device)"
                                                   : "not a kernel-mode context");
    if (ctx->trace.base == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: no trace buffer (CONFIGURE trace_records or "
                                                           "CallConfig.trace at init)");
    const kernel_state *ks = kernel_state_of(ctx);
    kernel_names names = {ctx, 0, NULL};
    trace_device_source src = {
        .trace_base = ctx->trace.base,
        .trace_bytes = ctx->trace.bytes,
        .definition_base = (const void *)(uintptr_t)ks->frozen.definition_base,
        .definition_bytes = (size_t)ks->frozen.definition_bytes,
        .device_id = ctx->device_id,
        .kernel_name = kernel_name,
        .user = &names,
        .host = &ctx->trace_host,
    };
    int rc = context_select_device(ctx);
    return rc ? rc : trace_device_export_source(ctx->ops, &src, path, &ctx->last_device_error);
}

int simpler_kernel_mode_trace_export(DeviceContextHandle handle, const char *path)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL || path == NULL) {
        context_unlock(ctx);
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "%s: NULL", ctx == NULL ? "ctx" : "path");
    }
    int rc = export_locked(ctx, path);
    context_unlock(ctx);
    return rc;
}
