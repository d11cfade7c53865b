/* The kernel-mode phase machine's shared steps and the entries that only
 * read it: simpler_kernel_mode_supported and simpler_kernel_mode_errors. */
#include <stdatomic.h>

#include "common/host_alloc.h"
#include "context/context.h"
#include "kernel/kernel_state.h"

int kernel_phase(const simpler_context *ctx)
{
    const kernel_state *ks = kernel_state_of(ctx);
    return ks != NULL ? ks->phase : KERNEL_PHASE_NEW;
}

void kernel_poison(kernel_state *ks, int status)
{
    if (ks->last_runtime_error == 0)
        ks->last_runtime_error = status;
    if (ks->phase == KERNEL_PHASE_COLLECTING || ks->phase == KERNEL_PHASE_READY_ENQUEUED)
        ks->phase = KERNEL_PHASE_POISONED;
}

void kernel_status_observe(kernel_state *ks)
{
    if (ks->status == NULL)
        return;
    int32_t word = atomic_load_explicit(&ks->status->sticky, memory_order_acquire);
    if (word != 0)
        kernel_poison(ks, word);
}

int simpler_kernel_mode_supported(DeviceContextHandle handle)
{
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    /* simdev has everything kernel mode needs: caller streams, events and
     * capture. A program context can never become a kernel one. */
    int supported = !context_is_program(ctx);
    context_unlock(ctx);
    return supported;
}

int simpler_kernel_mode_errors(DeviceContextHandle handle, int *last_runtime_error, int *teardown_error)
{
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    kernel_state *ks = kernel_state_of(ctx);
    int rc = 0;
    if (!context_is_kernel(ctx)) {
        rc = PTO_RUNTIME_ERR_INVALID_STATE;
    } else if (ks != NULL) {
        if (ks->phase != KERNEL_PHASE_CLOSED)
            kernel_status_observe(ks);
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
