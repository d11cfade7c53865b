/* simpler_kernel_mode_prepare_callable (SPEC §7.3): outside capture only
 * (the one capture query of kernel mode), validate and load the image,
 * bump the slot generation, and enqueue the slot's device-side
 * registration on the context's AICPU stream. Never touches the caller
 * stream beyond that one query. */
#include <string.h>

#include "common/host_alloc.h"
#include "context/context.h"
#include "context/kernel_state.h"

static int prepare_check(simpler_context *ctx, int32_t id, const void *callable, void *caller_stream)
{
    int status = PLATFORM_CAPTURE_STATUS_NONE;
    if (!context_is_kernel(ctx))
        return PTO_RUNTIME_ERR_INVALID_STATE;
    int phase = kernel_phase(ctx);
    if (phase != KERNEL_PHASE_COLLECTING && phase != KERNEL_PHASE_READY_ENQUEUED)
        return PTO_RUNTIME_ERR_INVALID_STATE;
    if (id < 0 || id >= SIMPLER_KERNEL_MAX_CALLABLES || callable == NULL || caller_stream == NULL)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    int rc = context_device_status(ctx, "capture_get_info",
                                   ctx->ops->capture_get_info(ctx->ops->user, caller_stream, &status));
    if (rc != 0)
        return rc;
    return status == PLATFORM_CAPTURE_STATUS_NONE ? 0 : PTO_RUNTIME_ERR_INVALID_STATE;
}

static void record_fill(kernel_slot_record *r, int32_t id, const loaded_callable *lc, uint64_t generation)
{
    memset(r, 0, sizeof(*r));
    r->callable_id = id;
    r->tensor_count = (int32_t)lc->tensor_count;
    r->scalar_count = (int32_t)lc->scalar_count;
    r->table.generation = generation;
    for (uint32_t i = 0; i < lc->kernel_count; i++) {
        const callable_kernel *k = &lc->kernels[i];
        device_kernel_entry *e = &r->table.entries[k->func_id];
        /* dlsym hands out object pointers; POSIX guarantees a function's
         * address converts back. */
        e->fn = (SimplerKernelEntryFn)k->entry;
        e->core_type = k->core_type;
    }
}

/* The registration runs on the AICPU stream, after every scheduler
 * already enqueued there, so a launch enqueued before this prepare still
 * finds the generation it was built for. The caller stream then waits
 * for it (an enqueue, not a synchronization): work the caller puts on
 * that stream later, a replay of a captured launch included, runs after
 * the registration. */
static int registration_enqueue(simpler_context *ctx, kernel_slot_record *slot, int32_t id, uint64_t generation,
                                platform_stream *caller)
{
    kernel_state *ks = kernel_state_of(ctx);
    const loaded_callable *lc = NULL;
    kernel_register_args *args = host_alloc(sizeof(*args));
    if (args == NULL)
        return PTO_RUNTIME_ERR_OUT_OF_MEMORY;
    (void)residency_lookup(&ctx->residency, id, &lc, NULL);
    args->slot_addr = (uint64_t)(uintptr_t)slot;
    record_fill(&args->record, id, lc, generation);
    int code = ctx->ops->launch_kernel(ctx->ops->user, ctx->streams[CONTEXT_STREAM_AICPU], PLATFORM_ENGINE_AICPU,
                                       kernel_register_kernel, 1, args, sizeof(*args));
    host_free(args);
    if (code == 0)
        code = ctx->ops->event_record(ctx->ops->user, ks->registered, ctx->streams[CONTEXT_STREAM_AICPU]);
    if (code == 0)
        code = ctx->ops->stream_wait_event(ctx->ops->user, caller, ks->registered);
    return context_device_status(ctx, "registration enqueue", code);
}

static int prepare_locked(simpler_context *ctx, int32_t id, const void *callable, size_t size, void *caller_stream)
{
    kernel_state *ks = kernel_state_of(ctx);
    uint64_t generation = 0;
    int rc = prepare_check(ctx, id, callable, caller_stream);
    if (rc != 0)
        return rc;
    /* The slot record exists before the load, so that its allocation
     * failing leaves the slot as it was. */
    kernel_slot_record *slot = ks->slots[id];
    if (slot == NULL && (slot = host_calloc(1, sizeof(*slot))) == NULL)
        return PTO_RUNTIME_ERR_OUT_OF_MEMORY;
    rc = residency_prepare(&ctx->residency, id, callable, size, &ctx->dlopen_counts, 1, &generation);
    if (rc != 0) {
        if (ks->slots[id] == NULL)
            host_free(slot);
        return rc;
    }
    ks->slots[id] = slot;
    rc = registration_enqueue(ctx, slot, id, generation, caller_stream);
    if (rc != 0) {
        /* The device never learns this generation: empty the slot so no
         * launch can name it (the generation stays advanced). */
        (void)residency_remove(&ctx->residency, id);
    }
    return rc;
}

int simpler_kernel_mode_prepare_callable(DeviceContextHandle handle, int32_t callable_id, const void *callable,
                                         size_t callable_size, void *caller_stream)
{
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    int rc = prepare_locked(ctx, callable_id, callable, callable_size, caller_stream);
    context_unlock(ctx);
    return rc;
}
