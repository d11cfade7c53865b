/* The kernel-mode chain over the caller, AICPU and AICore streams (SPEC
 * §7.4 step 4), written with the restricted launch vocabulary: this file
 * cannot synchronize, allocate, create or ask about capture. */
#include "context/kernel_state.h"

#include "device/device_kernels.h"
#include "graph/requirements.h"

static int enqueue_front(const platform_launch_ops *ops, simpler_context *ctx, platform_stream *caller,
                         const device_run_desc *desc, int *enqueued)
{
    platform_stream *aicpu = ctx->streams[CONTEXT_STREAM_AICPU], *aicore = ctx->streams[CONTEXT_STREAM_AICORE];
    void *arena = (void *)(uintptr_t)desc->runtime_base;
    int rc = ops->event_record(ops->user, ctx->events[CONTEXT_EVENT_START], caller);
    if (rc != 0)
        return rc;
    *enqueued = 1;
    if ((rc = ops->stream_wait_event(ops->user, aicpu, ctx->events[CONTEXT_EVENT_START])) != 0 ||
        (rc = ops->memset_async(ops->user, arena, 0, device_run_desc_clear_bytes(desc), aicpu)) != 0 ||
        (rc = ops->event_record(ops->user, ctx->events[CONTEXT_EVENT_AICORE_START], aicpu)) != 0 ||
        (rc = ops->stream_wait_event(ops->user, aicore, ctx->events[CONTEXT_EVENT_AICORE_START])) != 0 ||
        (rc = ops->launch_kernel(ops->user, aicore, PLATFORM_ENGINE_AICORE, device_executor_kernel,
                                 desc->aic_count + desc->aiv_count, desc, sizeof(*desc))) != 0)
        return rc;
    return ops->event_record(ops->user, ctx->events[CONTEXT_EVENT_AICORE_DONE], aicore);
}

int kernel_chain_enqueue(const platform_launch_ops *ops, simpler_context *ctx, platform_stream *caller,
                         const void *args, size_t args_bytes, int *enqueued)
{
    const kernel_state *ks = kernel_state_of(ctx);
    platform_stream *aicpu = ctx->streams[CONTEXT_STREAM_AICPU];
    kernel_status_args status = {(uint64_t)(uintptr_t)ks->status, platform_kernel_report_fault};
    *enqueued = 0;
    int rc = enqueue_front(ops, ctx, caller, args, enqueued);
    if (rc != 0)
        return rc;
    if ((rc = ops->launch_kernel(ops->user, aicpu, PLATFORM_ENGINE_AICPU, kernel_packet_scheduler_kernel, 1, args,
                                 args_bytes)) != 0 ||
        (rc = ops->stream_wait_event(ops->user, aicpu, ctx->events[CONTEXT_EVENT_AICORE_DONE])) != 0 ||
        (rc = ops->event_record(ops->user, ctx->events[CONTEXT_EVENT_AICPU_DONE], aicpu)) != 0 ||
        (rc = ops->stream_wait_event(ops->user, caller, ctx->events[CONTEXT_EVENT_AICPU_DONE])) != 0)
        return rc;
    /* The caller's stream reports a device error of this execution. */
    return ops->launch_kernel(ops->user, caller, PLATFORM_ENGINE_AICPU, kernel_status_kernel, 1, &status,
                              sizeof(status));
}

int kernel_chain_tail(const platform_launch_ops *ops, simpler_context *ctx, platform_stream *caller)
{
    return ops->event_record(ops->user, ctx->events[CONTEXT_EVENT_SERIAL_TAIL], caller);
}
