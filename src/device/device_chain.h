/*
 * device_chain — enqueue one execution's chain over streams, with the
 * restricted launch vocabulary only. Kernel mode runs the whole chain on
 * the caller's stream (device_chain_enqueue_launch, then its own work on
 * the caller stream, then device_chain_enqueue_tail):
 *
 *   caller: record Start
 *   AICPU:  wait Start, memset the runtime arena (header, task state,
 *           handshake slots) to zero, record AicoreStart
 *   AICore: wait AicoreStart, launch the executor, record AicoreDone
 *   AICPU:  launch the scheduler with its argument block, wait
 *           AicoreDone, record AicpuDone
 *   caller: wait AicpuDone
 *   ... (kernel mode: the status check, HOST copy-backs)
 *   caller: record SerialTail                      (device_chain_enqueue_tail)
 *
 * Program mode, which waits on the host anyway, clears the runtime
 * arena's header and slots with a synchronous memset before it enqueues
 * only the engine part (device_chain_enqueue_program):
 *
 *   AICore: launch the executor
 *   AICPU:  launch the scheduler with desc
 *
 * and synchronizes the AICPU and AICore streams itself: no caller stream
 * and no joins, so a run pays two fewer hand-offs between device threads
 * at its start (caller -> AICPU) and two fewer at its end (AICore ->
 * AICPU -> caller); and no event between the engine streams, so the
 * executor's launch does not wait for the AICPU stream thread to clear
 * the arena and record it (one hand-off fewer at the start, and two
 * stream operations instead of five).
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

/* Enqueues the chain above up to the caller's wait for AicpuDone (11
 * operations, 3 of them device work: the memset and the two launches).
 * `sched_fn` (device_scheduler_kernel, or a body that checks and
 * restores its own packet and then runs the scheduler, as kernel mode's
 * does) receives `sched_bytes` at `sched_args` (8-aligned), which begin
 * with the device_run_desc the executor receives; the platform copies
 * them at enqueue, so they may be reused on return. Allocates nothing,
 * never synchronizes. *enqueued (may be NULL) is set to 1 once the first
 * operation is enqueued, else left 0.
 *
 * Returns 0, or a device status code in the platform's numbering:
 *   PLATFORM_ERROR_INVALID_PARAM for NULL arguments, sched_bytes shorter
 *   than the descriptor, misaligned arguments, or a descriptor that
 *   cannot place the handshake slots: nothing is enqueued;
 *   the first failing enqueue's code: the operations before it stay
 *   enqueued (the caller poisons its context; the chain's streams must
 *   not run another chain, since a half chain can leave the executor
 *   waiting for a scheduler that never comes).
 * Not thread-safe for the same streams and events. */
int device_chain_enqueue_launch(const platform_launch_ops *ops, const device_streams *streams,
                                const device_events *events, platform_kernel_fn sched_fn, const void *sched_args,
                                size_t sched_bytes, int *enqueued);

/* A gate for the chain (kernel mode): a one-block AICPU kernel enqueued on
 * the caller stream before Start, which either claims the context's
 * working regions and clears the runtime arena itself, or fails its
 * launch (kernel_gate_kernel). */
typedef struct device_gate {
    platform_kernel_fn fn;
    const void *args;
    size_t bytes;
    /* The AICore body, launched with the descriptor in place of
     * device_executor_kernel (kernel mode: kernel_executor_kernel, which
     * verifies the descriptor's seal first); NULL: device_executor_kernel. */
    platform_kernel_fn executor;
    /* An AICPU body launched with the descriptor right after the
     * scheduler, before the AICPU stream waits for the executor (kernel
     * mode: kernel_dismiss_kernel, which ends an execution the scheduler
     * refused without a word to its cores); NULL: none. */
    platform_kernel_fn dismiss;
} device_gate;

/* device_chain_enqueue_launch behind a gate: the gate kernel first on the
 * caller stream (12 operations; 13 with a dismiss body, launched on the
 * AICPU stream after the scheduler), and no arena memset on the AICPU stream
 * (the gate clears the arena only when it claims the regions). Same
 * arguments, returns and partial-enqueue rule; `gate` and its fields
 * non-NULL. */
int device_chain_enqueue_gated(const platform_launch_ops *ops, const device_streams *streams,
                               const device_events *events, const device_gate *gate, platform_kernel_fn sched_fn,
                               const void *sched_args, size_t sched_bytes, int *enqueued);

/* Records SerialTail on the caller stream: the chain's last operation,
 * after whatever the caller put on its stream behind the join. Returns 0,
 * PLATFORM_ERROR_INVALID_PARAM for NULL arguments (nothing enqueued), or
 * the enqueue's code. */
int device_chain_enqueue_tail(const platform_launch_ops *ops, const device_streams *streams,
                              const device_events *events);

/* The program-mode chain above (2 operations: the two launches) for
 * `desc` without an inline image (inline_bytes 0); the scheduler's
 * argument is assembled in `scratch` (8-aligned, >= sizeof(device_run_desc)).
 * The caller has cleared device_run_desc_clear_bytes(desc) bytes at the
 * runtime base, and no earlier work of either stream still touches the
 * execution's regions (program mode synchronizes both streams after every
 * run). Returns PLATFORM_ERROR_INVALID_PARAM for NULL arguments, an
 * inline image, short or misaligned scratch or a descriptor that cannot
 * place the handshake slots (nothing enqueued); else 0 or the first
 * failing enqueue's code, the executor launch staying enqueued when the
 * scheduler's fails (the caller dismisses a half-started executor through
 * the slots). */
int device_chain_enqueue_program(const platform_launch_ops *ops, platform_stream *aicpu, platform_stream *aicore,
                                 const device_run_desc *desc, void *scratch, size_t scratch_bytes);

#endif
