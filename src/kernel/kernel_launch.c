/* simpler_kernel_mode_launch: validate, build against the
 * frozen capacity, serialize the invocation packet into storage reserved
 * at init, enqueue the chain. Allocates, frees, synchronizes, creates and
 * capture-queries nothing: past launch_check the only device vocabulary
 * in reach is the restricted platform_launch_ops table. */
#include <string.h>

#include "common/clock.h"
#include "common/error.h"
#include "context/context.h"
#include "kernel/kernel_launch.h"
#include "kernel/kernel_state.h"
#include "device/device_chain.h"
#include "device/device_core_plan.h"
#include "device/device_kernels.h"
#include "graph/graph_build.h"
#include "graph/graph_kernels.h"
#include "graph/requirements.h"

/* Stream switch: the same caller stream needs no query. A different
 * one is refused while the previous SerialTail is pending, and also
 * while any execution of this context holds the gate: a replay of a
 * captured launch never re-records SerialTail, so only the gate (read
 * with mem_peek, no synchronization) shows that one is running. A
 * replay queued but not yet started is not visible to the host at all;
 * the gate refuses whichever of the two starts second on the device. */
int kernel_stream_switch_check(const platform_launch_ops *ops, simpler_context *ctx, kernel_state *ks,
                               platform_stream *caller)
{
    uint64_t owner = 0;
    if (!ks->launched || caller == ks->last_caller)
        return 0;
    if (ops->event_query(ops->user, ctx->events[CONTEXT_EVENT_SERIAL_TAIL]) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_PREPARED_INCOMPATIBLE,
                            "caller_stream: another stream than the last launch's, whose chain is still pending");
    int rc = kernel_gate_observe(ctx, ks, &owner);
    if (rc != 0)
        return rc;
    if (owner != 0)
        return simpler_fail(PTO_RUNTIME_ERR_PREPARED_INCOMPATIBLE,
                            "caller_stream: another stream than the last launch's, while an execution of this "
                            "context (a replay) is running");
    return 0;
}

int kernel_launch_check(simpler_context *ctx, int32_t id, const ChipStorageTaskArgs *args, void *caller,
                        launch_call *call)
{
    kernel_state *ks = kernel_state_of(ctx);
    if (!context_is_kernel(ctx) || ks == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE,
                            "ctx: not an initialized kernel-mode context (call simpler_kernel_mode_init first)");
    if (args == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "args: NULL");
    if (caller == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "caller_stream: NULL");
    if (id < 0 || id >= SIMPLER_KERNEL_MAX_CALLABLES)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable_id = %d: must be in 0..%d", id,
                            SIMPLER_KERNEL_MAX_CALLABLES - 1);
    int rc = kernel_status_observe(ctx, ks);
    if (rc != 0)
        return rc;
    if (ks->phase != KERNEL_PHASE_READY_ENQUEUED)
        return ks->phase == KERNEL_PHASE_POISONED
                   ? kernel_poisoned_fail(ks)
                   : simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: phase %s: launch needs ReadyEnqueued (FREEZE "
                                                                 "after init)",
                                  kernel_phase_name(ks->phase));
    /* The one check of the arguments: the build trusts them. */
    rc = graph_call_args_check(args);
    if (rc != 0)
        return rc;
    rc = residency_lookup(&ctx->residency, id, &call->callable, &call->generation);
    if (rc != 0)
        return rc;
    if ((uint32_t)args->tensor_count != call->callable->tensor_count ||
        (uint32_t)args->scalar_count != call->callable->scalar_count)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "args: %d tensors and %d scalars, but callable %d's signature takes %u and %u",
                            args->tensor_count, args->scalar_count, id, call->callable->tensor_count,
                            call->callable->scalar_count);
    call->slot = ks->slots[id];
    return 0;
}

/* Every region the graph needs within its frozen capacity: an excess in
 * any one is refused even if another has room. */
static int admits(const simpler_context *ctx, const kernel_state *ks, const SimplerGraphRequirements *req,
                  size_t image_bytes)
{
    const int over = PTO_RUNTIME_ERR_CAPACITY_EXCEEDED;
    const char *fmt = "the graph needs %s = %llu; the frozen capacity is %llu";
    if (req->task_count > ks->capacity.task_window)
        return simpler_fail(over, fmt, "task_count", (unsigned long long)req->task_count,
                            (unsigned long long)ks->capacity.task_window);
    if (req->runtime_arena_bytes > ks->layout.runtime_bytes)
        return simpler_fail(over, fmt, "runtime_arena_bytes", (unsigned long long)req->runtime_arena_bytes,
                            (unsigned long long)ks->layout.runtime_bytes);
    if (req->graph_definition_bytes > ks->layout.definition_bytes || image_bytes > ks->layout.definition_bytes)
        return simpler_fail(over, fmt, "graph_definition_bytes",
                            (unsigned long long)(image_bytes > req->graph_definition_bytes ? image_bytes
                                                                                          : req->graph_definition_bytes),
                            (unsigned long long)ks->layout.definition_bytes);
    if (req->scheduler_state_bytes > ks->layout.scheduler_bytes)
        return simpler_fail(over, fmt, "scheduler_state_bytes", (unsigned long long)req->scheduler_state_bytes,
                            (unsigned long long)ks->layout.scheduler_bytes);
    if (req->gm_heap_bytes > ks->frozen.heap_bytes)
        return simpler_fail(over, fmt, "gm_heap_bytes", (unsigned long long)req->gm_heap_bytes,
                            (unsigned long long)ks->frozen.heap_bytes);
    if (req->retained_temp_bytes > ctx->temp.size)
        return simpler_fail(over, fmt, "retained_temp_bytes", (unsigned long long)req->retained_temp_bytes,
                            (unsigned long long)ctx->temp.size);
    return 0;
}

int kernel_launch_build(simpler_context *ctx, kernel_state *ks, const ChipStorageTaskArgs *args, launch_call *call,
                        int (*graph_check)(const launch_call *call))
{
    SimplerGraphRequirements req;
    int rc = graph_build_from_checked(ctx->scratch, call->callable->orch_entry, args, &call->g);
    /* A graph the device would refuse is refused here, before any effect. */
    rc = rc ? rc : graph_kernels_check(call->callable, call->g, ks->aic_count, ks->aiv_count);
    rc = rc ? rc : graph_requirements_of(call->g, &req);
    if (rc == 0 && graph_check != NULL)
        rc = graph_check(call);
    if (rc != 0)
        return rc;
    call->image_bytes = graph_image_size(call->g);
    if (call->image_bytes == 0)
        return simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                            "the graph of %u tasks: its image exceeds 4 GiB of offsets", call->g->task_count);
    call->staged_bytes = call->g->staged_count != 0 ? (size_t)call->g->temp_bytes : 0;
    return admits(ctx, ks, &req, call->image_bytes);
}

void kernel_desc_frozen_fill(const kernel_state *ks, device_run_desc *d)
{
    const kernel_frozen_regions *f = &ks->frozen;
    memset(d, 0, sizeof(*d));
    d->version = DEVICE_RUN_DESC_VERSION;
    d->desc_bytes = sizeof(*d);
    d->aic_count = ks->aic_count;
    d->aiv_count = ks->aiv_count;
    d->heap_base = f->heap_base;
    d->heap_bytes = f->heap_bytes;
    d->temp_base = f->temp_base;
    d->temp_bytes = f->temp_bytes;
    d->runtime_base = f->runtime_base;
    d->runtime_bytes = f->runtime_bytes;
    d->definition_base = f->definition_base;
    d->definition_bytes = f->definition_bytes;
    d->scheduler_base = f->scheduler_base;
    d->scheduler_bytes = f->scheduler_bytes;
    d->trace_base = f->trace_base;
    d->trace_bytes = f->trace_bytes;
    d->status_addr = (uint64_t)(uintptr_t)&ks->status->run;
}

static void desc_fill(const kernel_state *ks, const launch_call *call, device_run_desc *d)
{
    kernel_desc_frozen_fill(ks, d);
    d->task_count = call->g->task_count;
    d->image_bytes = call->image_bytes;
    d->generation = call->generation;
    d->kernels = &call->slot->table;
    d->report_fault = NULL; /* kernel_status_kernel faults the caller stream instead */
}

static void header_fill(int32_t id, const launch_call *call, const ChipStorageTaskArgs *args,
                        SimplerKernelInvocationHeader *h)
{
    memset(h, 0, sizeof(*h));
    h->abi_version = SIMPLER_KERNEL_INVOCATION_ABI_VERSION;
    h->header_size = sizeof(*h);
    h->mode = SIMPLER_MODE_KERNEL;
    h->callable_id = id;
    h->generation = call->generation;
    h->tensor_count = args->tensor_count;
    h->scalar_count = args->scalar_count;
    h->host_copy_tensor_count = (int32_t)call->g->staged_count;
    h->payload_bytes = kernel_packet_payload_bytes(call->image_bytes, call->staged_bytes);
}

static void packet_fill(const kernel_state *ks, const launch_call *call, kernel_graph_packet *p)
{
    memset(p, 0, sizeof(*p));
    p->format_version = KERNEL_PACKET_FORMAT_VERSION;
    p->packet_bytes = sizeof(*p);
    p->task_count = call->g->task_count;
    p->staged_count = call->g->staged_count;
    p->image_bytes = call->image_bytes;
    p->staged_bytes = call->staged_bytes;
    p->slot_addr = (uint64_t)(uintptr_t)call->slot;
    p->status_addr = (uint64_t)(uintptr_t)ks->status;
    p->regions = ks->frozen;
}

/* HOST tensors travel by value inside the packet, at their temp offsets:
 * a captured launch replays the bytes it was captured with. */
static void staged_fill(const launch_call *call, const ChipStorageTaskArgs *args, uint8_t *staged)
{
    const graph *g = call->g;
    memset(staged, 0, call->staged_bytes);
    for (uint32_t i = 0; i < g->staged_count; i++) {
        const graph_image_staged *st = &g->staged[i];
        const void *host = (const void *)(uintptr_t)args->tensors[st->caller_index].buffer_addr;
        if (st->bytes != 0)
            memcpy(staged + st->temp_offset, host, (size_t)st->bytes);
    }
}

size_t kernel_packet_write(const simpler_context *ctx, const kernel_state *ks, int32_t id, const launch_call *call,
                           const ChipStorageTaskArgs *args, void *dst)
{
    device_run_desc *d = dst;
    SimplerKernelInvocationHeader *h = (SimplerKernelInvocationHeader *)(d + 1);
    kernel_graph_packet *p = (kernel_graph_packet *)(h + 1);
    uint8_t *image = (uint8_t *)(p + 1);
    uint8_t *staged = image + kernel_packet_pad8(call->image_bytes);
    (void)ctx;
    desc_fill(ks, call, d);
    header_fill(id, call, args, h);
    packet_fill(ks, call, p);
    (void)graph_image_write(call->g, image, call->image_bytes);
    memset(image + call->image_bytes, 0, (size_t)(kernel_packet_pad8(call->image_bytes) - call->image_bytes));
    staged_fill(call, args, staged);
    p->head_checksum = kernel_packet_head_checksum(h, p);
    p->checksum = kernel_packet_checksum(h, p, image, staged);
    return (size_t)kernel_packet_args_bytes(call->image_bytes, call->staged_bytes);
}

/* HOST tensors the graph writes go back to the caller's memory on the
 * caller stream, after the join (a captured launch replays these copies
 * to the same host addresses). */
static int copy_back_enqueue(const platform_launch_ops *ops, simpler_context *ctx, const launch_call *call,
                             const ChipStorageTaskArgs *args, platform_stream *caller)
{
    const graph *g = call->g;
    for (uint32_t i = 0; i < g->staged_count; i++) {
        const graph_image_staged *st = &g->staged[i];
        if ((st->flags & GRAPH_STAGED_WRITTEN) == 0 || st->bytes == 0)
            continue;
        void *host = (void *)(uintptr_t)args->tensors[st->caller_index].buffer_addr;
        const char *dev = (const char *)ctx->temp.addr + st->temp_offset;
        int rc = ops->memcpy_async(ops->user, host, dev, (size_t)st->bytes, caller);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The caller's stream reports a device error of this execution, after
 * the join (kernel_status_kernel faults the stream on a nonzero word). */
static int status_check_enqueue(const platform_launch_ops *ops, const kernel_state *ks, platform_stream *caller)
{
    kernel_status_args status = {(uint64_t)(uintptr_t)ks->status, platform_kernel_report_fault, ks->serial, 0};
    status.seal = kernel_status_args_seal_of(&status);
    return ops->launch_kernel(ops->user, caller, PLATFORM_ENGINE_AICPU, kernel_status_kernel, 1, &status,
                              sizeof(status));
}

int kernel_chain_enqueue(simpler_context *ctx, kernel_state *ks, const platform_launch_ops *ops,
                         platform_kernel_fn sched_fn, size_t sched_bytes, const launch_call *call,
                         const ChipStorageTaskArgs *args, platform_stream *caller)
{
    device_streams streams = {caller, ctx->streams[CONTEXT_STREAM_AICPU], ctx->streams[CONTEXT_STREAM_AICORE]};
    device_events events = {ctx->events[CONTEXT_EVENT_START], ctx->events[CONTEXT_EVENT_AICORE_START],
                            ctx->events[CONTEXT_EVENT_AICORE_DONE], ctx->events[CONTEXT_EVENT_AICPU_DONE],
                            ctx->events[CONTEXT_EVENT_SERIAL_TAIL]};
    int enqueued = 0;
    device_run_desc *d = ks->packet;
    /* A token no other execution in flight holds: replays of one
     * captured chain share theirs, and simdev serializes them. */
    d->gate_addr = (uint64_t)(uintptr_t)&ks->status->owner;
    d->serial = ++ks->serial;
    /* An eager launch carries its graph: only the cores it can use start. */
    if (call != NULL)
        (void)device_core_plan(d, kernel_packet_image_of(ks->packet), d->image_bytes);
    /* Last: the scheduler's and the executor's copies are verified
     * against it before either reads a field. */
    d->seal = device_run_desc_seal_of(d);
    kernel_gate_args gate_args = {(uint64_t)(uintptr_t)ks->status, d->serial, d->runtime_base,
                                  device_run_desc_clear_bytes(d), platform_kernel_report_fault, 0};
    gate_args.seal = kernel_gate_args_seal_of(&gate_args);
    device_gate gate = {kernel_gate_kernel, &gate_args, sizeof(gate_args), kernel_executor_kernel,
                        kernel_dismiss_kernel};
    memcpy(&ks->chain_desc, d, sizeof(ks->chain_desc));
    int code = device_chain_enqueue_gated(ops, &streams, &events, &gate, sched_fn, ks->packet, sched_bytes,
                                          &enqueued);
    /* The copy-backs read the temp buffer, so they come before the status
     * check, which hands the gate back. */
    if (code == 0 && call != NULL)
        code = copy_back_enqueue(ops, ctx, call, args, caller);
    code = code ? code : status_check_enqueue(ops, ks, caller);
    code = code ? code : device_chain_enqueue_tail(ops, &streams, &events);
    if (code == 0) {
        ks->last_caller = caller;
        ks->launched = 1;
        return 0;
    }
    int rc = context_device_status(ctx, "kernel launch enqueue", code);
    if (enqueued) {
        kernel_poison(ks, rc); /* a half chain is on the streams */
        ks->half_chain = 1;
    }
    return rc;
}

static int launch_locked(simpler_context *ctx, int32_t id, const ChipStorageTaskArgs *args, void *caller_stream)
{
    platform_launch_ops ops;
    launch_call call;
    kernel_state *ks = kernel_state_of(ctx);
    platform_stream *caller = caller_stream;
    memset(&call, 0, sizeof(call));
    int rc = kernel_launch_check(ctx, id, args, caller_stream, &call);
    if (rc != 0)
        return rc;
    /* Traced contexts log the host spans; untraced ones pay one branch. */
    int traced = ctx->trace.base != NULL;
    uint64_t t0 = traced ? clock_now_ns() : 0;
    platform_launch_ops_derive(ctx->ops, &ops);
    rc = kernel_stream_switch_check(&ops, ctx, ks, caller);
    rc = rc ? rc : kernel_launch_build(ctx, ks, args, &call, NULL);
    if (rc != 0)
        return rc;
    uint64_t t1 = traced ? clock_now_ns() : 0;
    size_t args_bytes = kernel_packet_write(ctx, ks, id, &call, args, ks->packet);
    rc = kernel_chain_enqueue(ctx, ks, &ops, kernel_packet_scheduler_kernel, args_bytes, &call, args, caller);
    if (rc == 0 && traced) {
        trace_host_add(&ctx->trace_host, "build", t0, t1);
        trace_host_add(&ctx->trace_host, "enqueue", t1, clock_now_ns());
        trace_host_close(&ctx->trace_host, ks->serial, 0);
    }
    return rc;
}

int simpler_kernel_mode_launch(DeviceContextHandle handle, int32_t callable_id, const void *args,
                               void *caller_stream)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    int rc = launch_locked(ctx, callable_id, args, caller_stream);
    context_unlock(ctx);
    return rc;
}
