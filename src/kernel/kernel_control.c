/* simpler_kernel_mode_ctx_control: structural checks, then
 * the CONFIGURE/FREEZE ordering; a refused control records nothing. */
#include <string.h>

#include "common/error.h"
#include "context/context.h"
#include "graph/graph_limits.h"
#include "kernel/kernel_state.h"

/* The index of the first nonzero reserved word, or -1. */
static int reserved_nonzero(const SimplerKernelCtxControl *c)
{
    for (size_t i = 0; i < sizeof(c->reserved) / sizeof(c->reserved[0]); i++) {
        if (c->reserved[i] != 0)
            return (int)i;
    }
    return -1;
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
    const int bad = PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if (c == NULL)
        return simpler_fail(bad, "control: NULL");
    if (c->abi_version != SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION)
        return simpler_fail(bad, "control.abi_version = %u: expected %u", c->abi_version,
                            SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION);
    if (c->struct_size != sizeof(*c))
        return simpler_fail(bad, "control.struct_size = %u: expected sizeof(SimplerKernelCtxControl) = %zu",
                            c->struct_size, sizeof(*c));
    int r = reserved_nonzero(c);
    if (r >= 0)
        return simpler_fail(bad, "control.reserved[%d] = %llu: must be 0", r, (unsigned long long)c->reserved[r]);
    if (c->arg_slot_count > SIMPLER_KERNEL_MAX_ARG_SLOTS)
        return simpler_fail(bad, "control.arg_slot_count = %u: at most SIMPLER_KERNEL_MAX_ARG_SLOTS (%d)",
                            c->arg_slot_count, SIMPLER_KERNEL_MAX_ARG_SLOTS);
    if (c->action == SIMPLER_KERNEL_CTX_CONFIGURE) {
        if (c->mode != SIMPLER_MODE_PROGRAM && c->mode != SIMPLER_MODE_KERNEL)
            return simpler_fail(bad, "control.mode = %u: not a SIMPLER_MODE_*", c->mode);
        if (c->task_window > GRAPH_TASK_WINDOW_MAX)
            return simpler_fail(bad, "control.task_window = %u: at most %u", c->task_window,
                                (unsigned)GRAPH_TASK_WINDOW_MAX);
        return 0;
    }
    if (c->action == SIMPLER_KERNEL_CTX_FREEZE) {
        if (!payload_zero(c))
            return simpler_fail(bad, "control: a FREEZE carries no payload (mode, every size and arg_slot_count must be 0)");
        return 0;
    }
    return simpler_fail(bad, "control.action = %u: not SIMPLER_KERNEL_CTX_CONFIGURE (1) or _FREEZE (2)", c->action);
}

/* CONFIGURE: only before any init; the same tuple again is a no-op, a
 * different one replaces it only after an init refused it. */
static int configure(simpler_context *ctx, const SimplerKernelCtxControl *c)
{
    if (context_holds_resources(ctx) || kernel_phase(ctx) != KERNEL_PHASE_NEW)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "CONFIGURE after init: configure a context while it is New");
    if (ctx->control_configured && !ctx->control_replaceable && memcmp(&ctx->control, c, sizeof(*c)) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE,
                            "CONFIGURE with a tuple other than the one recorded: a context is configured once "
                            "(another tuple is taken only after an init refused this one)");
    ctx->control = *c;
    ctx->control_configured = 1;
    ctx->control_replaceable = 0;
    return 0;
}

/* FREEZE: after a kernel init established capacity from a kernel-mode
 * CONFIGURE, once. */
static int freeze(simpler_context *ctx)
{
    kernel_state *ks = kernel_state_of(ctx);
    if (!context_is_kernel(ctx) || ks == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "FREEZE before simpler_kernel_mode_init");
    if (ks->phase != KERNEL_PHASE_COLLECTING)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "FREEZE while not Collecting (frozen already?)");
    if (!ctx->control_configured || ctx->control.mode != SIMPLER_MODE_KERNEL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE,
                            "FREEZE without a CONFIGURE of mode SIMPLER_MODE_KERNEL before init");
    ks->phase = KERNEL_PHASE_READY_ENQUEUED;
    return 0;
}

int simpler_kernel_mode_ctx_control(DeviceContextHandle handle, const SimplerKernelCtxControl *control)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    int rc = structure_check(control);
    if (rc == 0)
        rc = control->action == SIMPLER_KERNEL_CTX_CONFIGURE ? configure(ctx, control) : freeze(ctx);
    context_unlock(ctx);
    return rc;
}

int simpler_kernel_mode_freeze(DeviceContextHandle handle)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    int rc = freeze(ctx);
    context_unlock(ctx);
    return rc;
}
