/*
 * kernel_state — kernel mode's private state behind ctx->kernel_state
 * (SPEC §7), shared by the kernel_*.c files of src/context/.
 *
 * Phases (SPEC §7.3):
 *   New -> Collecting (init) -> ReadyEnqueued (FREEZE)
 *   Collecting <-> ReadyEnqueued: prepare_callable works in both
 *   any of them -> Poisoned (a launch failed after its first enqueue, or
 *                  the device reported an execution error)
 *   any -> Closing (finalize_device's first destructive step, or an init
 *          whose unwind failed) -> Closed (everything released)
 * A context with no kernel_state is New (an init that unwound cleanly
 * frees it again). Every entry point runs under the context lock.
 */
#ifndef SIMPLER_CONTEXT_KERNEL_STATE_H
#define SIMPLER_CONTEXT_KERNEL_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "context/context_internal.h"
#include "device/kernel_packet.h"
#include "platform/platform_launch_ops.h"

enum {
    KERNEL_PHASE_NEW = 0,
    KERNEL_PHASE_COLLECTING = 1,
    KERNEL_PHASE_READY_ENQUEUED = 2,
    KERNEL_PHASE_POISONED = 3,
    KERNEL_PHASE_CLOSING = 4,
    KERNEL_PHASE_CLOSED = 5
};

/* Defaults for a CONFIGURE field of 0 ("platform default"), and for a
 * context initialized without any CONFIGURE. The window matches program
 * mode's default; the heap holds 256 float32 intermediates of 4 KiB. */
#define KERNEL_DEFAULT_TASK_WINDOW 256u
#define KERNEL_DEFAULT_HEAP_BYTES ((uint64_t)1 << 20)

typedef struct kernel_state {
    int phase;                    /* KERNEL_PHASE_* */
    int last_runtime_error;       /* first runtime error, 0 = none */
    int teardown_error;           /* first teardown error, 0 = none */
    uint64_t context_generation;  /* the caller's tag from init */
    SimplerKernelCtxControl capacity; /* the committed tuple, defaults filled in */
    SimplerKernelLayout layout;   /* the runtime pool's packing of it */
    uint32_t aic_count, aiv_count;
    platform_event *registered;   /* prepare's own: the last registration, waited by the caller stream */
    platform_stream *last_caller; /* the caller stream of the last launch */
    int launched;                 /* a launch was enqueued since init */
    int half_chain;               /* a launch's enqueue failed midway: close must dismiss the cores */
    kernel_status_words *status;  /* at the gm_sm base */
    kernel_frozen_regions frozen; /* host copy of status->frozen */
    kernel_slot_record *slots[SIMPLER_KERNEL_MAX_CALLABLES]; /* per id, or NULL */
    void *packet;                 /* AICPU argument block storage, 8-aligned */
    size_t packet_capacity;
} kernel_state;

/* The state of a kernel context (NULL when New). */
static inline kernel_state *kernel_state_of(const simpler_context *ctx)
{
    return (kernel_state *)ctx->kernel_state;
}

/* The phase: KERNEL_PHASE_NEW without state. */
int kernel_phase(const simpler_context *ctx);

/* Keeps `status` (nonzero) as the runtime error if none is kept yet and
 * moves a live context to Poisoned. */
void kernel_poison(kernel_state *ks, int status);

/* Reads the device's sticky status word with a plain load (simdev device
 * memory is host memory; no synchronization, no device call) and poisons
 * the context when the device latched an error. */
void kernel_status_observe(kernel_state *ks);

/* The hooks init installs (kernel_close.c). */
extern const context_kernel_hooks kernel_hooks;

/* Releases device capacity, slot records' callables, events and streams
 * (kernel_close.c); 0 or the first failure, what failed stays held. */
int kernel_release_device(simpler_context *ctx);
/* Frees the host state and empties ctx->kernel_state. */
void kernel_release_host(simpler_context *ctx);

/* The chain of SPEC §7.4 on the caller stream (kernel_chain.c), through
 * the restricted launch vocabulary only, up to the caller's join and the
 * status check; kernel_chain_tail records SerialTail after whatever the
 * caller stream must still do (HOST copy-backs). `args` is the AICPU
 * argument block of `args_bytes`, starting with the descriptor the
 * executor gets too. Return 0 or the first failing enqueue's device
 * code; the chain's first enqueue is its first operation, so a failure
 * of it has enqueued nothing (*enqueued says which). */
int kernel_chain_enqueue(const platform_launch_ops *ops, simpler_context *ctx, platform_stream *caller,
                         const void *args, size_t args_bytes, int *enqueued);
int kernel_chain_tail(const platform_launch_ops *ops, simpler_context *ctx, platform_stream *caller);

#endif
