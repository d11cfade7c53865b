/* simpler_kernel_mode_write_args and simpler_kernel_mode_launch_slot:
 * a packet stored by value into a frozen argument slot on the caller
 * stream, and a chain whose scheduler reads the slot when the execution
 * runs, so one capture of launch_slot replays each step's arguments.
 * Both use only the restricted launch vocabulary: no allocation, free,
 * synchronization, creation or capture query. */
#include <string.h>

#include "common/clock.h"
#include "common/error.h"
#include "context/context.h"
#include "device/kernel_packet.h"
#include "graph/graph_build.h"
#include "kernel/kernel_launch.h"
#include "kernel/kernel_state.h"

/* Slot launches write DEVICE tensors only: a copy-back to a HOST
 * address would have to be enqueued by launch_slot, which names no
 * arguments, so a captured one could not follow the step's address. */
static int host_outputs_refused(const launch_call *call)
{
    const graph *g = call->g;
    for (uint32_t i = 0; i < g->staged_count; i++) {
        if ((g->staged[i].flags & GRAPH_STAGED_WRITTEN) != 0)
            return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                "args.tensors[%u]: a HOST tensor the graph writes; slot launches write DEVICE "
                                "tensors only",
                                g->staged[i].caller_index);
    }
    return 0;
}

/* The same rule for a HOST tensor the callable's signature declares an
 * output, checked before the build: its staging would otherwise run out
 * of retained temp bytes first (-1004) in a context sized for DEVICE
 * tensors, and the caller would be told to grow the wrong thing. */
static int host_outputs_declared(const launch_call *call, const ChipStorageTaskArgs *args)
{
    const loaded_callable *lc = call->callable;
    for (int32_t i = 0; i < args->tensor_count && (uint32_t)i < lc->signature_count; i++) {
        uint8_t dir = lc->signature[i];
        if (args->tensors[i].address_space == SIMPLER_ADDRESS_SPACE_HOST &&
            (dir == SIMPLER_ARG_OUT || dir == SIMPLER_ARG_INOUT))
            return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                "args.tensors[%d]: a HOST tensor the signature declares %s; slot launches write "
                                "DEVICE tensors only",
                                i, dir == SIMPLER_ARG_OUT ? "out" : "inout");
    }
    return 0;
}

static int slot_check(const simpler_context *ctx, uint32_t slot)
{
    const kernel_state *ks = kernel_state_of(ctx);
    if (slot >= ks->arg_slot_count)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "slot = %u: the context has %u argument slots", slot,
                            ks->arg_slot_count);
    return 0;
}

static int store_enqueue(simpler_context *ctx, kernel_state *ks, uint32_t slot, size_t packet_bytes,
                         platform_stream *caller)
{
    platform_launch_ops ops;
    kernel_arg_store_args *a = ks->packet;
    platform_launch_ops_derive(ctx->ops, &ops);
    a->slot_addr = kernel_arg_slot_addr(ctx, ks, slot);
    a->slot_bytes = ks->arg_slot_stride;
    a->header.magic = KERNEL_ARG_SLOT_MAGIC;
    a->header.reserved = 0;
    a->header.packet_bytes = packet_bytes;
    /* Last: the store verifies it before it reads a field. */
    a->seal = kernel_arg_store_args_seal_of(a);
    int code = ops.launch_kernel(ops.user, caller, PLATFORM_ENGINE_AICPU, kernel_arg_store_kernel, 1, a,
                                 sizeof(*a) + packet_bytes);
    return code == 0 ? 0 : context_device_status(ctx, "write_args enqueue", code);
}

static int write_args_locked(simpler_context *ctx, uint32_t slot, int32_t id, const ChipStorageTaskArgs *args,
                             void *caller_stream)
{
    launch_call call;
    memset(&call, 0, sizeof(call));
    int rc = kernel_launch_check(ctx, id, args, caller_stream, &call);
    rc = rc ? rc : slot_check(ctx, slot);
    rc = rc ? rc : host_outputs_declared(&call, args);
    if (rc != 0)
        return rc;
    kernel_state *ks = kernel_state_of(ctx);
    int traced = ctx->trace.base != NULL;
    uint64_t t0 = traced ? clock_now_ns() : 0;
    rc = kernel_launch_build(ctx, ks, args, &call, host_outputs_refused);
    if (rc != 0)
        return rc;
    uint64_t t1 = traced ? clock_now_ns() : 0;
    /* The packet goes after the store's own arguments, in the storage
     * init reserved for both. */
    uint8_t *packet = (uint8_t *)ks->packet + sizeof(kernel_arg_store_args);
    size_t bytes = kernel_packet_write(ctx, ks, id, &call, args, packet);
    rc = store_enqueue(ctx, ks, slot, bytes, caller_stream);
    if (rc == 0 && traced) {
        trace_host_add(&ctx->trace_host, "build", t0, t1);
        trace_host_add(&ctx->trace_host, "write args", t1, clock_now_ns());
    }
    return rc;
}

int simpler_kernel_mode_write_args(DeviceContextHandle handle, uint32_t slot, int32_t callable_id, const void *args,
                                   void *caller_stream)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    int rc = write_args_locked(ctx, slot, callable_id, args, caller_stream);
    context_unlock(ctx);
    return rc;
}

/* The executor's descriptor of a slot launch: the frozen regions and
 * cores, no task count or kernel table yet (deferred). */
static void slot_launch_fill(const simpler_context *ctx, const kernel_state *ks, uint32_t slot,
                             kernel_slot_launch_args *a)
{
    device_run_desc *d = &a->desc;
    memset(a, 0, sizeof(*a));
    kernel_desc_frozen_fill(ks, d);
    d->task_count = 1; /* the smallest valid count; the executor learns the real one */
    d->deferred = 1;
    a->slot_addr = kernel_arg_slot_addr(ctx, ks, slot);
    a->slot_bytes = ks->arg_slot_stride;
    a->status_words_addr = (uint64_t)(uintptr_t)ks->status;
    /* Last: the scheduler verifies it before it reads any of the three. */
    a->seal = kernel_slot_launch_args_seal_of(a);
}

static int launch_slot_check(simpler_context *ctx, uint32_t slot, void *caller_stream)
{
    kernel_state *ks = kernel_state_of(ctx);
    if (!context_is_kernel(ctx) || ks == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "launch_slot: not an initialized kernel context");
    if (caller_stream == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "caller_stream: NULL");
    int rc = kernel_status_observe(ctx, ks);
    if (rc != 0)
        return rc;
    if (ks->phase == KERNEL_PHASE_POISONED)
        return kernel_poisoned_fail(ks);
    if (ks->phase != KERNEL_PHASE_READY_ENQUEUED)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "launch_slot: the context is not ReadyEnqueued (phase %d)",
                            ks->phase);
    return slot_check(ctx, slot);
}

static int launch_slot_locked(simpler_context *ctx, uint32_t slot, void *caller_stream)
{
    platform_launch_ops ops;
    int rc = launch_slot_check(ctx, slot, caller_stream);
    if (rc != 0)
        return rc;
    kernel_state *ks = kernel_state_of(ctx);
    platform_launch_ops_derive(ctx->ops, &ops);
    rc = kernel_stream_switch_check(&ops, ctx, ks, caller_stream);
    if (rc != 0)
        return rc;
    int traced = ctx->trace.base != NULL;
    uint64_t t0 = traced ? clock_now_ns() : 0;
    slot_launch_fill(ctx, ks, slot, ks->packet);
    rc = kernel_chain_enqueue(ctx, ks, &ops, kernel_slot_scheduler_kernel, sizeof(kernel_slot_launch_args), NULL,
                              NULL, caller_stream);
    if (rc == 0 && traced) {
        trace_host_add(&ctx->trace_host, "enqueue", t0, clock_now_ns());
        trace_host_close(&ctx->trace_host, ks->serial, 0);
    }
    return rc;
}

int simpler_kernel_mode_launch_slot(DeviceContextHandle handle, uint32_t slot, void *caller_stream)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    int rc = launch_slot_locked(ctx, slot, caller_stream);
    context_unlock(ctx);
    return rc;
}
