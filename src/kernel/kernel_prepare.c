/* simpler_kernel_mode_prepare_callable: outside capture only
 * (the one capture query of kernel mode), validate and load the image,
 * enqueue the slot's device-side registration for the next generation on
 * the context's AICPU stream, then install the callable. Touches the
 * caller stream only with that query and one event wait. */
#include <stdatomic.h>
#include <string.h>

#include "common/error.h"
#include "common/host_alloc.h"
#include "context/context.h"
#include "kernel/kernel_state.h"

static int prepare_check(simpler_context *ctx, int32_t id, const void *callable, void *caller_stream)
{
    int status = PLATFORM_CAPTURE_STATUS_NONE;
    if (!context_is_kernel(ctx))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: not a kernel-mode context (call "
                                                           "simpler_kernel_mode_init first)");
    int phase = kernel_phase(ctx);
    if (phase != KERNEL_PHASE_COLLECTING && phase != KERNEL_PHASE_READY_ENQUEUED)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: phase %s: prepare needs Collecting or ReadyEnqueued",
                            kernel_phase_name(phase));
    if (id < 0 || id >= SIMPLER_KERNEL_MAX_CALLABLES)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable_id = %d: must be in 0..%d", id,
                            SIMPLER_KERNEL_MAX_CALLABLES - 1);
    if (callable == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable: NULL");
    if (caller_stream == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "caller_stream: NULL");
    int rc = context_device_status(ctx, "capture_get_info",
                                   ctx->ops->capture_get_info(ctx->ops->user, caller_stream, &status));
    if (rc != 0)
        return rc;
    if (status != PLATFORM_CAPTURE_STATUS_NONE)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE,
                            "caller_stream is capturing: prepare_callable runs outside capture only");
    return 0;
}

static void record_fill(kernel_slot_record *r, int32_t id, const loaded_callable *lc, uint64_t generation)
{
    memset(r, 0, sizeof(*r));
    r->callable_id = id;
    r->tensor_count = (int32_t)lc->tensor_count;
    r->scalar_count = (int32_t)lc->scalar_count;
    device_kernel_table_fill(&r->table, lc, generation);
}

/* The registration runs on the AICPU stream, after every scheduler
 * already enqueued there, so a launch enqueued before this prepare still
 * finds the generation it was built for. The caller stream then waits
 * for it (an enqueue, not a synchronization): work the caller puts on
 * that stream later, a replay of a captured launch included, runs after
 * the registration. *launched says whether the registration itself was
 * enqueued (the device will then apply it). */
static int registration_enqueue(simpler_context *ctx, kernel_slot_record *slot, int32_t id, const loaded_callable *lc,
                                uint64_t generation, platform_stream *caller, int *launched)
{
    kernel_state *ks = kernel_state_of(ctx);
    kernel_register_args *args = host_alloc(sizeof(*args));
    *launched = 0;
    if (args == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "host allocation of the registration arguments failed");
    args->slot_addr = (uint64_t)(uintptr_t)slot;
    record_fill(&args->record, id, lc, generation);
    int code = ctx->ops->launch_kernel(ctx->ops->user, ctx->streams[CONTEXT_STREAM_AICPU], PLATFORM_ENGINE_AICPU,
                                       kernel_register_kernel, 1, args, sizeof(*args));
    host_free(args);
    *launched = code == 0;
    if (code == 0)
        code = ctx->ops->event_record(ctx->ops->user, ks->registered, ctx->streams[CONTEXT_STREAM_AICPU]);
    if (code == 0)
        code = ctx->ops->stream_wait_event(ctx->ops->user, caller, ks->registered);
    return context_device_status(ctx, "registration enqueue", code);
}

static void counts_add(callable_dlopen_counts *to, const callable_dlopen_counts *from)
{
    atomic_fetch_add(&to->host, atomic_load(&from->host));
    atomic_fetch_add(&to->aicpu, atomic_load(&from->aicpu));
}

/* Two phases (residency.h): load and learn the next generation, enqueue
 * the registration, and only then install; a failure before the
 * registration reached the device unloads the new callable, so the slot
 * keeps what it had. */
static int prepare_locked(simpler_context *ctx, int32_t id, const void *callable, size_t size, void *caller_stream)
{
    kernel_state *ks = kernel_state_of(ctx);
    callable_dlopen_counts loaded = {0};
    loaded_callable *lc = NULL;
    uint64_t generation = 0;
    int launched = 0;
    int rc = prepare_check(ctx, id, callable, caller_stream);
    rc = rc ? rc : residency_next_generation(&ctx->residency, id, 1, &generation);
    if (rc != 0)
        return rc;
    /* The slot record exists before the load, so that its allocation
     * failing leaves the slot as it was. */
    kernel_slot_record *slot = ks->slots[id];
    if (slot == NULL && (slot = host_calloc(1, sizeof(*slot))) == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "host allocation of callable_id %d's slot record failed",
                            id);
    rc = callable_load(callable, size, &loaded, &lc);
    rc = rc ? rc : registration_enqueue(ctx, slot, id, lc, generation, caller_stream, &launched);
    if (rc != 0 && !launched) {
        callable_unload(lc);
        if (ks->slots[id] == NULL)
            host_free(slot);
        return rc;
    }
    /* Installed, also when only the caller's wait after a registration
     * already on the AICPU stream failed: the device applies the new
     * record, so the host must name the same generation. */
    ks->slots[id] = slot;
    (void)residency_install(&ctx->residency, id, lc, 1, NULL);
    counts_add(&ctx->dlopen_counts, &loaded);
    return rc;
}

int simpler_kernel_mode_prepare_callable(DeviceContextHandle handle, int32_t callable_id, const void *callable,
                                         size_t callable_size, void *caller_stream)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    int rc = prepare_locked(ctx, callable_id, callable, callable_size, caller_stream);
    context_unlock(ctx);
    return rc;
}
