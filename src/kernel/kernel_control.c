/* simpler_kernel_mode_ctx_control: structural checks, then
 * the CONFIGURE/FREEZE ordering; a refused control records nothing. */
#include <string.h>

#include "context/context.h"
#include "kernel/kernel_state.h"

static int reserved_zero(const SimplerKernelCtxControl *c)
{
    for (size_t i = 0; i < sizeof(c->reserved) / sizeof(c->reserved[0]); i++) {
        if (c->reserved[i] != 0)
            return 0;
    }
    return 1;
}

static int payload_zero(const SimplerKernelCtxControl *c)
{
    return c->mode == 0 && c->gm_heap_bytes == 0 && c->runtime_arena_bytes == 0 && c->graph_definition_bytes == 0 &&
           c->scheduler_state_bytes == 0 && c->retained_temp_bytes == 0 && c->task_window == 0 &&
           c->trace_records == 0 && c->arg_slot_count == 0;
}

/* Rule 1: everything that makes the block malformed, whatever the
 * context's state. */
static int structure_check(const SimplerKernelCtxControl *c)
{
    if (c == NULL || c->abi_version != SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION || c->struct_size != sizeof(*c))
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if (!reserved_zero(c) || c->arg_slot_count > SIMPLER_KERNEL_MAX_ARG_SLOTS)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if (c->action == SIMPLER_KERNEL_CTX_CONFIGURE)
        return c->mode == SIMPLER_MODE_PROGRAM || c->mode == SIMPLER_MODE_KERNEL ? 0
                                                                                   : PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if (c->action == SIMPLER_KERNEL_CTX_FREEZE)
        return payload_zero(c) ? 0 : PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
}

/* CONFIGURE: only before any init; the same tuple again is a no-op. */
static int configure(simpler_context *ctx, const SimplerKernelCtxControl *c)
{
    if (context_holds_resources(ctx) || kernel_phase(ctx) != KERNEL_PHASE_NEW)
        return PTO_RUNTIME_ERR_INVALID_STATE;
    if (ctx->control_configured)
        return memcmp(&ctx->control, c, sizeof(*c)) == 0 ? 0 : PTO_RUNTIME_ERR_INVALID_STATE;
    ctx->control = *c;
    ctx->control_configured = 1;
    return 0;
}

/* FREEZE: after a kernel init established capacity from a kernel-mode
 * CONFIGURE, once. */
static int freeze(simpler_context *ctx)
{
    kernel_state *ks = kernel_state_of(ctx);
    if (!context_is_kernel(ctx) || ks == NULL || ks->phase != KERNEL_PHASE_COLLECTING)
        return PTO_RUNTIME_ERR_INVALID_STATE;
    if (!ctx->control_configured || ctx->control.mode != SIMPLER_MODE_KERNEL)
        return PTO_RUNTIME_ERR_INVALID_STATE;
    ks->phase = KERNEL_PHASE_READY_ENQUEUED;
    return 0;
}

int simpler_kernel_mode_ctx_control(DeviceContextHandle handle, const SimplerKernelCtxControl *control)
{
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    int rc = structure_check(control);
    if (rc == 0)
        rc = control->action == SIMPLER_KERNEL_CTX_CONFIGURE ? configure(ctx, control) : freeze(ctx);
    context_unlock(ctx);
    return rc;
}
