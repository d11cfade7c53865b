/* The kernel-mode phase machine's shared steps and the entries that only
 * read it: simpler_kernel_mode_supported and simpler_kernel_mode_errors. */
#include "common/error.h"
#include "common/host_alloc.h"
#include "context/context.h"
#include "kernel/kernel_state.h"

int kernel_phase(const simpler_context *ctx)
{
    const kernel_state *ks = kernel_state_of(ctx);
    return ks != NULL ? ks->phase : KERNEL_PHASE_NEW;
}

const char *kernel_phase_name(int phase)
{
    static const char *const names[] = {"New", "Collecting", "ReadyEnqueued", "Poisoned", "Closing", "Closed"};
    return phase >= 0 && phase <= KERNEL_PHASE_CLOSED ? names[phase] : "unknown";
}

void kernel_poison(kernel_state *ks, int status)
{
    if (ks->last_runtime_error == 0)
        ks->last_runtime_error = status;
    if (ks->phase == KERNEL_PHASE_COLLECTING || ks->phase == KERNEL_PHASE_READY_ENQUEUED)
        ks->phase = KERNEL_PHASE_POISONED;
}

int kernel_status_observe(simpler_context *ctx, kernel_state *ks)
{
    int32_t word = 0;
    if (ks->status == NULL)
        return 0;
    int rc = context_device_status(
        ctx, "mem_peek", ctx->ops->mem_peek(ctx->ops->user, &word, (const void *)&ks->status->sticky, sizeof(word)));
    if (rc == 0 && word != 0)
        kernel_poison(ks, word);
    if (rc != 0 || word == 0 || ks->store_refused)
        return rc;
    /* Only once poisoned: the word is raised with the sticky status. */
    uint32_t refused = 0;
    rc = context_device_status(ctx, "mem_peek", ctx->ops->mem_peek(ctx->ops->user, &refused,
                                                                   (const void *)&ks->status->store_refused,
                                                                   sizeof(refused)));
    ks->store_refused = rc == 0 && refused != 0;
    return rc;
}

int kernel_poisoned_fail(const kernel_state *ks)
{
    if (ks->store_refused)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE,
                            "ctx: Poisoned by device error %d (%s): a write_args store refused its arguments (their "
                            "seal failed), so an argument slot may hold an older packet and every launch_slot is "
                            "refused on the device; finalize_device and init again",
                            ks->last_runtime_error, simpler_strerror(ks->last_runtime_error));
    return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE,
                        "ctx: Poisoned by device error %d (%s); finalize_device and init again", ks->last_runtime_error, simpler_strerror(ks->last_runtime_error));
}

int kernel_gate_observe(simpler_context *ctx, kernel_state *ks, uint64_t *owner)
{
    uint64_t word = 0;
    *owner = 0;
    if (ks->status == NULL)
        return 0;
    int rc = context_device_status(
        ctx, "mem_peek", ctx->ops->mem_peek(ctx->ops->user, &word, (const void *)&ks->status->owner, sizeof(word)));
    if (rc == 0)
        *owner = word;
    return rc;
}

int simpler_kernel_mode_supported(DeviceContextHandle handle)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    /* simdev has everything kernel mode needs: caller streams, events and
     * capture. A program context can never become a kernel one. */
    int supported = !context_is_program(ctx);
    context_unlock(ctx);
    return supported;
}

int simpler_kernel_mode_errors(DeviceContextHandle handle, int *last_runtime_error, int *teardown_error)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    kernel_state *ks = kernel_state_of(ctx);
    int rc = 0;
    if (!context_is_kernel(ctx)) {
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: not a kernel-mode context");
    } else if (ks != NULL) {
        /* A status word that cannot be read leaves the errors as last
         * seen, and no reason behind a call that succeeds. */
        if (ks->phase != KERNEL_PHASE_CLOSED && kernel_status_observe(ctx, ks) != 0)
            simpler_error_clear();
        if (last_runtime_error != NULL)
            *last_runtime_error = ks->last_runtime_error;
        if (teardown_error != NULL)
            *teardown_error = ks->teardown_error;
    } else {
        if (last_runtime_error != NULL)
            *last_runtime_error = 0;
        if (teardown_error != NULL)
            *teardown_error = 0;
    }
    context_unlock(ctx);
    return rc;
}
