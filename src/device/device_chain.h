/*
 * device_chain — enqueue one execution's chain over streams (SPEC §7.4
 * step 4), with the restricted launch vocabulary only:
 *
 *   caller: record Start
 *   AICPU:  wait Start, memset the runtime arena (header, task state,
 *           handshake slots) to zero, record AicoreStart
 *   AICore: wait AicoreStart, launch the executor, record AicoreDone
 *   AICPU:  launch the scheduler with desc + inline image, wait
 *           AicoreDone, record AicpuDone
 *   caller: wait AicpuDone, record SerialTail
 *
 * Kernel mode calls it from launch on the user's stream.
 *
 * Program mode, which waits on the host anyway, enqueues only the engine
 * part (device_chain_enqueue_program):
 *
 *   AICPU:  memset the runtime arena, record AicoreStart
 *   AICore: wait AicoreStart, launch the executor
 *   AICPU:  launch the scheduler with desc
 *
 * and synchronizes the AICPU and AICore streams itself: no caller stream
 * and no joins, so a run pays two fewer hand-offs between simdev threads
 * at its start (caller -> AICPU) and two fewer at its end (AICore ->
 * AICPU -> caller).
 */
#ifndef SIMPLER_DEVICE_CHAIN_H
#define SIMPLER_DEVICE_CHAIN_H

#include <stddef.h>

#include "device/device_run_desc.h"
#include "platform/platform_launch_ops.h"

typedef struct device_streams {
    platform_stream *caller;
    platform_stream *aicpu;
    platform_stream *aicore;
} device_streams;

typedef struct device_events {
    platform_event *start;
    platform_event *aicore_start;
    platform_event *aicore_done;
    platform_event *aicpu_done;
    platform_event *serial_tail;
} device_events;

/* Scratch bytes device_chain_enqueue needs for an inline image of
 * `inline_bytes`: the scheduler's argument block. */
static inline size_t device_chain_scratch_bytes(size_t inline_bytes)
{
    return sizeof(device_run_desc) + inline_bytes;
}

/* Enqueues the chain above for `desc`, whose inline_bytes must equal
 * `inline_bytes` (the image at `inline_image`, NULL when 0). The
 * scheduler's arguments are assembled in `scratch` (8-aligned,
 * >= device_chain_scratch_bytes(inline_bytes)); the platform copies them
 * at enqueue, so scratch, desc and the image may be reused on return.
 * Allocates nothing, never synchronizes, enqueues 12 operations (3 of
 * them device work: the memset and the two launches).
 *
 * Returns 0, or a device status code (simdev numbering):
 *   SIMDEV_ERROR_INVALID_PARAM (107000) for NULL arguments, a descriptor
 *   device_validate_desc refuses as malformed, mismatched inline bytes or
 *   short scratch: nothing is enqueued;
 *   the first failing enqueue's code: the operations before it stay
 *   enqueued (the caller poisons its context; the chain's streams must
 *   not run another chain, since a half chain can leave the executor
 *   waiting for a scheduler that never comes).
 * Not thread-safe for the same streams and events. */
int device_chain_enqueue(const platform_launch_ops *ops, const device_streams *streams,
                         const device_events *events, const device_run_desc *desc, const void *inline_image,
                         size_t inline_bytes, void *scratch, size_t scratch_bytes);

/* The program-mode chain above (5 operations: the memset, the record,
 * the wait and the two launches) for `desc` without an inline image
 * (inline_bytes 0); the scheduler's argument is assembled in `scratch`
 * (8-aligned, >= device_chain_scratch_bytes(0)). Same returns as
 * device_chain_enqueue: SIMDEV_ERROR_INVALID_PARAM for NULL arguments, an
 * inline image, short or misaligned scratch or a descriptor that cannot
 * place the handshake slots (nothing enqueued); else 0 or the first
 * failing enqueue's code, the operations before it staying enqueued (the
 * caller dismisses a half-started executor through the slots). */
int device_chain_enqueue_program(const platform_launch_ops *ops, platform_stream *aicpu, platform_stream *aicore,
                                 platform_event *aicore_start, const device_run_desc *desc, void *scratch,
                                 size_t scratch_bytes);

/* The same chain with a scheduler launch the caller assembled: `sched_fn`
 * (device_scheduler_kernel, or a body that checks and restores its own
 * packet and then calls device_scheduler_kernel, as kernel mode does)
 * receives `sched_bytes` at `sched_args` (8-aligned), which begin with
 * the device_run_desc the executor receives. Same rules and returns as
 * device_chain_enqueue: SIMDEV_ERROR_INVALID_PARAM for NULL arguments,
 * sched_bytes shorter than the descriptor or a descriptor that cannot
 * place the handshake slots (nothing enqueued). */
int device_chain_enqueue_launch(const platform_launch_ops *ops, const device_streams *streams,
                                const device_events *events, platform_kernel_fn sched_fn, const void *sched_args,
                                size_t sched_bytes);

#endif
