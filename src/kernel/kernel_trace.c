/* simpler_kernel_mode_trace_export: the trace of a kernel context's last
 * execution, read through the platform (trace/trace_device.h). Kernel
 * mode sizes the trace buffer once at init, so it never re-bases; every
 * execution, eager or replayed, overwrites it. */
#include "common/error.h"
#include "context/context.h"
#include "kernel/kernel_state.h"
#include "trace/trace_device.h"

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
    int rc = context_select_device(ctx);
    return rc ? rc
              : trace_device_export(ctx->ops, ctx->trace.base, ctx->trace.bytes, path, ctx->device_id,
                                    &ctx->last_device_error);
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
