/* The enqueue of one execution's chain over the caller, AICPU and AICore
 * streams. */
#include "device/device_chain.h"

#include <string.h>

#include "device/device_kernels.h"
#include "device/device_status.h"
#include "device/device_validate.h"
#include "platform/platform_status.h"

/* The one code of "bad arguments" in the platform numbering. */
#define CHAIN_INVALID_PARAM PLATFORM_ERROR_INVALID_PARAM

static int check_handles(const platform_launch_ops *ops, const device_streams *streams,
                         const device_events *events)
{
    if (ops == NULL || streams == NULL || events == NULL)
        return CHAIN_INVALID_PARAM;
    if (streams->caller == NULL || streams->aicpu == NULL || streams->aicore == NULL ||
        events->start == NULL || events->aicore_start == NULL || events->aicore_done == NULL ||
        events->aicpu_done == NULL || events->serial_tail == NULL)
        return CHAIN_INVALID_PARAM;
    return 0;
}

/* The device refuses other errors itself (status word and fault), but a
 * descriptor that cannot place the handshake slots would let the
 * executor wander off its arena. */
static int check_desc(const device_run_desc *desc)
{
    return device_validate_desc(desc) == DEVICE_ERR_PACKET_INVALID ? CHAIN_INVALID_PARAM : 0;
}

/* The arena clear on the AICPU stream and the executor launch on the
 * AICore stream after it. */
static int enqueue_engines(const platform_launch_ops *ops, platform_stream *aicpu, platform_stream *aicore,
                           platform_event *aicore_start, const device_run_desc *desc, int clear,
                           platform_kernel_fn executor)
{
    void *arena = (void *)(uintptr_t)desc->runtime_base;
    uint32_t cores = device_run_desc_blocks(desc);
    int rc;

    if ((clear && (rc = ops->memset_async(ops->user, arena, 0, device_run_desc_clear_bytes(desc), aicpu)) != 0) ||
        (rc = ops->event_record(ops->user, aicore_start, aicpu)) != 0 ||
        (rc = ops->stream_wait_event(ops->user, aicore, aicore_start)) != 0)
        return rc;
    return ops->launch_kernel(ops->user, aicore, PLATFORM_ENGINE_AICORE, executor, cores, desc, sizeof(*desc));
}

/* The AICPU stream's prologue and the AICore stream's launch. */
static int enqueue_front(const platform_launch_ops *ops, const device_streams *st, const device_events *ev,
                         const device_run_desc *desc, const device_gate *gate, int *enqueued)
{
    int rc;

    if (gate != NULL) {
        rc = ops->launch_kernel(ops->user, st->caller, PLATFORM_ENGINE_AICPU, gate->fn, 1, gate->args, gate->bytes);
        if (rc != 0)
            return rc;
        *enqueued = 1;
    }
    rc = ops->event_record(ops->user, ev->start, st->caller);
    if (rc != 0)
        return rc;
    *enqueued = 1;
    if ((rc = ops->stream_wait_event(ops->user, st->aicpu, ev->start)) != 0 ||
        (rc = enqueue_engines(ops, st->aicpu, st->aicore, ev->aicore_start, desc, gate == NULL,
                              gate != NULL && gate->executor != NULL ? gate->executor : device_executor_kernel)) != 0)
        return rc;
    return ops->event_record(ops->user, ev->aicore_done, st->aicore);
}

/* The scheduler launch, the gate's dismiss body behind it, and the join
 * back into the caller stream. */
static int enqueue_back(const platform_launch_ops *ops, const device_streams *st, const device_events *ev,
                        const device_gate *gate, platform_kernel_fn sched_fn, const void *sched_args,
                        size_t sched_bytes)
{
    int rc;

    if ((rc = ops->launch_kernel(ops->user, st->aicpu, PLATFORM_ENGINE_AICPU, sched_fn, 1,
                                 sched_args, sched_bytes)) != 0 ||
        (gate != NULL && gate->dismiss != NULL &&
         (rc = ops->launch_kernel(ops->user, st->aicpu, PLATFORM_ENGINE_AICPU, gate->dismiss, 1, sched_args,
                                  sizeof(device_run_desc))) != 0) ||
        (rc = ops->stream_wait_event(ops->user, st->aicpu, ev->aicore_done)) != 0 ||
        (rc = ops->event_record(ops->user, ev->aicpu_done, st->aicpu)) != 0)
        return rc;
    return ops->stream_wait_event(ops->user, st->caller, ev->aicpu_done);
}

static int enqueue_launch(const platform_launch_ops *ops, const device_streams *streams, const device_events *events,
                          const device_gate *gate, platform_kernel_fn sched_fn, const void *sched_args,
                          size_t sched_bytes, int *enqueued)
{
    const device_run_desc *desc = sched_args;
    int ignored = 0;
    int rc = check_handles(ops, streams, events);

    if (enqueued == NULL)
        enqueued = &ignored;
    *enqueued = 0;
    if (rc != 0)
        return rc;
    if (sched_fn == NULL || desc == NULL || sched_bytes < sizeof(*desc) || ((uintptr_t)desc & 7u) != 0 ||
        desc->inline_bytes > sched_bytes - sizeof(*desc) || check_desc(desc) != 0)
        return CHAIN_INVALID_PARAM;
    rc = enqueue_front(ops, streams, events, desc, gate, enqueued);
    if (rc != 0)
        return rc;
    return enqueue_back(ops, streams, events, gate, sched_fn, sched_args, sched_bytes);
}

int device_chain_enqueue_launch(const platform_launch_ops *ops, const device_streams *streams,
                                const device_events *events, platform_kernel_fn sched_fn, const void *sched_args,
                                size_t sched_bytes, int *enqueued)
{
    return enqueue_launch(ops, streams, events, NULL, sched_fn, sched_args, sched_bytes, enqueued);
}

int device_chain_enqueue_gated(const platform_launch_ops *ops, const device_streams *streams,
                               const device_events *events, const device_gate *gate, platform_kernel_fn sched_fn,
                               const void *sched_args, size_t sched_bytes, int *enqueued)
{
    int ignored = 0;
    if (enqueued == NULL)
        enqueued = &ignored;
    *enqueued = 0;
    if (gate == NULL || gate->fn == NULL || gate->args == NULL || gate->bytes == 0)
        return CHAIN_INVALID_PARAM;
    return enqueue_launch(ops, streams, events, gate, sched_fn, sched_args, sched_bytes, enqueued);
}

int device_chain_enqueue_tail(const platform_launch_ops *ops, const device_streams *streams,
                              const device_events *events)
{
    int rc = check_handles(ops, streams, events);

    return rc != 0 ? rc : ops->event_record(ops->user, events->serial_tail, streams->caller);
}

int device_chain_enqueue_program(const platform_launch_ops *ops, platform_stream *aicpu, platform_stream *aicore,
                                 const device_run_desc *desc, void *scratch, size_t scratch_bytes)
{
    if (ops == NULL || aicpu == NULL || aicore == NULL || desc == NULL || scratch == NULL ||
        desc->inline_bytes != 0 || scratch_bytes < sizeof(*desc) || ((uintptr_t)scratch & 7u) != 0 ||
        check_desc(desc) != 0)
        return CHAIN_INVALID_PARAM;
    memcpy(scratch, desc, sizeof(*desc));
    int rc = ops->launch_kernel(ops->user, aicore, PLATFORM_ENGINE_AICORE, device_executor_kernel,
                                device_run_desc_blocks(desc), desc, sizeof(*desc));
    if (rc != 0)
        return rc;
    return ops->launch_kernel(ops->user, aicpu, PLATFORM_ENGINE_AICPU, device_scheduler_kernel, 1, scratch,
                              sizeof(*desc));
}
