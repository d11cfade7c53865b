/*
 * kernel_state — kernel mode's private state behind ctx->mode_state,
 * shared by the files of src/kernel/. Kernel mode borrows the caller's
 * device and stream and enqueues a whole graph as one asynchronous
 * operator; every buffer it owns is committed once at init and frozen.
 *
 * Phases:
 *   New -> Collecting (init) -> ReadyEnqueued (FREEZE)
 *   Collecting <-> ReadyEnqueued: prepare_callable works in both
 *   any of them -> Poisoned (a launch failed after its first enqueue, or
 *                  the device reported an execution error)
 *   any -> Closing (finalize_device's first destructive step, or an init
 *          whose unwind failed) -> Closed (everything released)
 * A context with no kernel_state is New (an init that unwound cleanly
 * frees it again). Every entry point runs under the context lock.
 */
#ifndef SIMPLER_KERNEL_KERNEL_STATE_H
#define SIMPLER_KERNEL_KERNEL_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "context/context.h"
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

/* The heap for a CONFIGURE gm_heap_bytes of 0 ("platform default"), and
 * for a context initialized without any CONFIGURE (the window is
 * GRAPH_DEFAULT_TASK_WINDOW): 256 float32 intermediates of 4 KiB. */
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
    int store_refused;            /* status->store_refused was seen raised (kernel_status_observe) */
    kernel_frozen_regions frozen; /* host copy of status->frozen */
    kernel_slot_record *slots[SIMPLER_KERNEL_MAX_CALLABLES]; /* per id, or NULL */
    void *packet;                 /* AICPU argument block storage, 8-aligned */
    size_t packet_capacity;
    uint64_t serial;              /* the last execution token handed out (the gate's owner value) */
    device_run_desc chain_desc;   /* the last chain's executor descriptor (close's rescue of a half chain) */
    uint32_t arg_slot_count;      /* argument slots committed at init (ctx->arg_slots) */
    size_t arg_slot_stride;       /* bytes per slot: header + packet_capacity, 1024-aligned */
} kernel_state;

/* The device address of argument slot `slot` (< arg_slot_count). */
static inline uint64_t kernel_arg_slot_addr(const simpler_context *ctx, const kernel_state *ks, uint32_t slot)
{
    return (uint64_t)(uintptr_t)ctx->arg_slots.base + (uint64_t)slot * ks->arg_slot_stride;
}

/* The state of a kernel context (NULL when New, or when the context is
 * not a kernel context). */
static inline kernel_state *kernel_state_of(const simpler_context *ctx)
{
    return (kernel_state *)context_mode_state(ctx, CONTEXT_MODE_KERNEL);
}

/* The phase: KERNEL_PHASE_NEW without state. */
int kernel_phase(const simpler_context *ctx);

/* The phase's name as docs/kernel-mode.md writes it ("ReadyEnqueued"). */
const char *kernel_phase_name(int phase);

/* Keeps `status` (nonzero) as the runtime error if none is kept yet and
 * moves a live context to Poisoned. */
void kernel_poison(kernel_state *ks, int status);

/* Reads the device's sticky status word with the platform's mem_peek
 * (no stream, no synchronization, allowed while capturing) and poisons
 * the context when the device latched an error; then also peeks the
 * store_refused word (so only on the poisoned path). Returns 0, or the
 * peek's status (-1008) with nothing changed. */
int kernel_status_observe(simpler_context *ctx, kernel_state *ks);

/* Fails with PTO_RUNTIME_ERR_INVALID_STATE and a message naming the
 * device error that poisoned the context (and, when a write_args store
 * was refused on the device, that and its consequence). */
int kernel_poisoned_fail(const kernel_state *ks);

/* Reads the gate's owner word with mem_peek (no stream, no
 * synchronization) into *owner. Returns 0 or -1008 with *owner 0. */
int kernel_gate_observe(simpler_context *ctx, kernel_state *ks, uint64_t *owner);

/* The table init latches (kernel_close.c). */
extern const context_mode_ops kernel_mode_ops;

/* Releases device capacity, slot records' callables, events and streams
 * (kernel_close.c); 0 or the first failure, what failed stays held. */
int kernel_release_device(simpler_context *ctx);
/* Frees the host state and empties ctx->mode_state. */
void kernel_release_host(simpler_context *ctx);

#endif
