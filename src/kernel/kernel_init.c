/* simpler_kernel_mode_init: validate, latch
 * KERNEL, borrow the current device, create the streams and events,
 * commit the configured capacity once. A creation failure unwinds to a
 * reusable New (or to Closing when the unwind itself fails). */
#include <string.h>

#include "common/error.h"
#include "common/host_alloc.h"
#include "common/log.h"
#include "common/task_args_check.h"
#include "context/context.h"
#include "context/context_streams.h"
#include "kernel/kernel_state.h"
#include "memory/runtime_pool.h"
#include "platform/platform_limits.h"
#include "device/trace_record.h"
#include "graph/graph_build.h"
#include "graph/requirements.h"

/* Fills every 0 ("platform default") of the recorded CONFIGURE. */
static int capacity_resolve(const simpler_context *ctx, const CallConfig *config, SimplerKernelCtxControl *c)
{
    SimplerGraphRequirements dflt;
    if (ctx->control_configured)
        *c = ctx->control;
    else
        memset(c, 0, sizeof(*c));
    uint32_t w = c->task_window;
    if (w == 0)
        w = config != NULL && config->task_window != 0 ? config->task_window : GRAPH_DEFAULT_TASK_WINDOW;
    if (w > GRAPH_TASK_WINDOW_MAX)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "task_window = %u: at most %u", w,
                            (unsigned)GRAPH_TASK_WINDOW_MAX);
    c->task_window = w;
    graph_requirements_for_window(w, &dflt);
    if (c->runtime_arena_bytes == 0)
        c->runtime_arena_bytes = dflt.runtime_arena_bytes;
    if (c->graph_definition_bytes == 0)
        c->graph_definition_bytes = dflt.graph_definition_bytes;
    if (c->scheduler_state_bytes == 0)
        c->scheduler_state_bytes = dflt.scheduler_state_bytes;
    if (c->gm_heap_bytes == 0)
        c->gm_heap_bytes = config != NULL && config->heap_bytes != 0 ? config->heap_bytes : KERNEL_DEFAULT_HEAP_BYTES;
    if (c->trace_records == 0 && config != NULL && config->trace)
        c->trace_records = w;
    if (c->gm_heap_bytes > SIZE_MAX || c->retained_temp_bytes > SIZE_MAX)
        return simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED, "gm_heap_bytes or retained_temp_bytes exceeds SIZE_MAX");
    return 0;
}

/* One argument slot: its header and the largest packet the capacity
 * admits, rounded up to the region alignment so every slot base is
 * aligned like the first. */
static uint64_t arg_slot_stride(const SimplerKernelCtxControl *c)
{
    uint64_t bytes = sizeof(kernel_arg_slot_header) +
                     kernel_packet_args_bytes(c->graph_definition_bytes, c->retained_temp_bytes);
    return (bytes + SIMPLER_KERNEL_REGION_ALIGN - 1) & ~(uint64_t)(SIMPLER_KERNEL_REGION_ALIGN - 1);
}

/* Every slot together (the packet size is bounded by
 * PLATFORM_KERNEL_ARGS_MAX first, so this cannot overflow 64 bits). */
static uint64_t arg_slots_bytes(const SimplerKernelCtxControl *c)
{
    return (uint64_t)c->arg_slot_count * arg_slot_stride(c);
}

/* Everything that needs no creation: arguments, latch, phase, device. */
static int init_check(simpler_context *ctx, int device_id, const CallConfig *config, SimplerKernelCtxControl *cap,
                      SimplerKernelLayout *layout)
{
    int current = -1;
    if (device_id < 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "device_id = %d: must be >= 0", device_id);
    int rc = config != NULL ? call_config_check(config) : 0;
    if (rc != 0)
        return rc;
    /* New, or Closed: the same mode latches again after finalize (the
     * recorded CONFIGURE still applies). */
    int phase = kernel_phase(ctx);
    if (context_is_program(ctx))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: latched to program mode; it never changes mode");
    if (phase != KERNEL_PHASE_NEW && phase != KERNEL_PHASE_CLOSED)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: phase %s: init needs New or Closed",
                            kernel_phase_name(phase));
    rc = capacity_resolve(ctx, config, cap);
    rc = rc ? rc : runtime_pool_pack(cap->runtime_arena_bytes, cap->graph_definition_bytes, cap->scheduler_state_bytes,
                               layout);
    if (rc == 0 && layout->runtime_pool_bytes > SIZE_MAX)
        rc = simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED, "the runtime pool (%llu bytes) exceeds SIZE_MAX",
                          (unsigned long long)layout->runtime_pool_bytes);
    /* Each part bounded first, so that the packet's sum cannot wrap. */
    const uint64_t packet_max = PLATFORM_KERNEL_ARGS_MAX - sizeof(kernel_arg_store_args);
    if (rc == 0 && (cap->graph_definition_bytes > packet_max || cap->retained_temp_bytes > packet_max ||
                    kernel_packet_args_bytes(cap->graph_definition_bytes, cap->retained_temp_bytes) > packet_max))
        rc = simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                          "graph_definition_bytes %llu + retained_temp_bytes %llu: the launch packet exceeds the "
                          "%llu-byte kernel argument limit (less the slot store's own arguments)",
                          (unsigned long long)cap->graph_definition_bytes,
                          (unsigned long long)cap->retained_temp_bytes, (unsigned long long)PLATFORM_KERNEL_ARGS_MAX);
    if (rc == 0 && arg_slots_bytes(cap) > SIZE_MAX)
        rc = simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED, "arg_slot_count %u: the argument slots exceed SIZE_MAX",
                          cap->arg_slot_count);
    if (rc != 0)
        return rc;
    /* Kernel mode borrows the caller's current device: it must be the
     * one named, and nothing is created when it is not. */
    rc = context_device_status(ctx, "get_device", ctx->ops->get_device(ctx->ops->user, &current));
    rc = rc ? rc : context_device_status(ctx, "device_info", ctx->ops->device_info(ctx->ops->user, &ctx->device_info));
    if (rc == 0 && current != device_id)
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE,
                          "device_id = %d: the calling thread's current device is %d (kernel mode borrows it)",
                          device_id, current);
    return rc;
}

static int host_state_create(simpler_context *ctx, const SimplerKernelCtxControl *cap)
{
    graph_limits limits;
    kernel_state *ks = host_calloc(1, sizeof(*ks));
    if (ks == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "host allocation of the kernel-mode state failed");
    ctx->mode_state = ks;
    ks->packet_capacity = (size_t)kernel_packet_args_bytes(cap->graph_definition_bytes, cap->retained_temp_bytes);
    /* Room before the packet for write_args' store arguments. */
    ks->packet = host_alloc(ks->packet_capacity + sizeof(kernel_arg_store_args));
    if (ks->packet == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "host allocation of the %zu-byte launch packet failed",
                            ks->packet_capacity + sizeof(kernel_arg_store_args));
    int rc = residency_init(&ctx->residency, SIMPLER_KERNEL_MAX_CALLABLES);
    if (rc != 0)
        return rc;
    rc = graph_limits_for_window(cap->task_window, cap->gm_heap_bytes, cap->retained_temp_bytes, &limits);
    return rc ? rc : graph_scratch_create(&limits, &ctx->scratch);
}

static void frozen_fill(simpler_context *ctx, const kernel_state *ks, kernel_frozen_regions *f)
{
    uint64_t pool = (uint64_t)(uintptr_t)arena_bank_base(&ctx->bank, ARENA_REGION_RUNTIME_POOL);
    memset(f, 0, sizeof(*f));
    f->heap_base = (uint64_t)(uintptr_t)arena_bank_base(&ctx->bank, ARENA_REGION_GM_HEAP);
    f->heap_bytes = ks->capacity.gm_heap_bytes;
    f->temp_base = (uint64_t)(uintptr_t)ctx->temp.addr;
    f->temp_bytes = ctx->temp.size;
    f->runtime_base = pool + ks->layout.runtime_offset;
    f->runtime_bytes = ks->layout.runtime_bytes;
    f->definition_base = pool + ks->layout.definition_offset;
    f->definition_bytes = ks->layout.definition_bytes;
    f->scheduler_base = pool + ks->layout.scheduler_offset;
    f->scheduler_bytes = ks->layout.scheduler_bytes;
    f->trace_base = (uint64_t)(uintptr_t)ctx->trace.base;
    f->trace_bytes = ctx->trace.bytes;
}

/* The status words at the gm_sm base: zero, then the frozen regions. */
static int status_words_write(simpler_context *ctx, kernel_state *ks)
{
    kernel_status_words words;
    void *sm = arena_bank_base(&ctx->bank, ARENA_REGION_GM_SM);
    memset(&words, 0, sizeof(words));
    frozen_fill(ctx, ks, &words.frozen);
    int rc = context_device_status(ctx, "memcpy_sync", ctx->ops->memcpy_sync(ctx->ops->user, sm, &words,
                                                                              sizeof(words)));
    if (rc == 0) {
        ks->status = sm;
        ks->frozen = words.frozen;
    }
    return rc;
}

_Static_assert(sizeof(kernel_status_words) <= ARENA_GM_SM_BYTES, "the status words fit gm_sm");

/* The argument slots, one allocation for all, zeroed: every slot starts
 * empty (its header's magic is 0), whatever the allocator's fill. */
static int arg_slots_commit(simpler_context *ctx, kernel_state *ks)
{
    ks->arg_slot_count = ks->capacity.arg_slot_count;
    ks->arg_slot_stride = (size_t)arg_slot_stride(&ks->capacity);
    if (ks->arg_slot_count == 0)
        return 0;
    size_t bytes = (size_t)arg_slots_bytes(&ks->capacity);
    int rc = device_arena_commit(&ctx->arg_slots, bytes, ctx->ops);
    if (rc != 0)
        return rc;
    return context_device_status(ctx, "memset_sync",
                                 ctx->ops->memset_sync(ctx->ops->user, ctx->arg_slots.base, 0, bytes));
}

static int capacity_commit(simpler_context *ctx, kernel_state *ks)
{
    arena_bank_request req;
    req.bytes[ARENA_REGION_GM_HEAP] = (size_t)ks->capacity.gm_heap_bytes;
    req.bytes[ARENA_REGION_GM_SM] = ARENA_GM_SM_BYTES;
    req.bytes[ARENA_REGION_RUNTIME_POOL] = (size_t)ks->layout.runtime_pool_bytes;
    int rc = arena_bank_commit(&ctx->bank, &req, 1, NULL);
    rc = rc ? rc : retained_temp_begin(&ctx->temp, (size_t)ks->capacity.retained_temp_bytes, 1, ctx->ops);
    if (rc == 0 && ks->capacity.trace_records != 0)
        rc = device_arena_commit(&ctx->trace, (size_t)device_trace_bytes(ks->capacity.trace_records), ctx->ops);
    rc = rc ? rc : arg_slots_commit(ctx, ks);
    return rc ? rc : status_words_write(ctx, ks);
}

static void cores_pick(simpler_context *ctx, kernel_state *ks, const CallConfig *config)
{
    uint32_t aic, aiv;
    context_cores_split(ctx, config != NULL ? config->aicore_count : 0, &aic, &aiv);
    ks->aic_count = aic;
    ks->aiv_count = aiv;
}

/* After a creation failure: New again when everything could be released,
 * else Closing with the teardown error kept, for finalize to retry. */
static void init_unwind(simpler_context *ctx)
{
    kernel_state *ks = kernel_state_of(ctx);
    int rc = kernel_release_device(ctx);
    if (rc == 0) {
        kernel_release_host(ctx);
        return;
    }
    simpler_log(SIMPLER_LOG_WARN, "simpler_kernel_mode_init: unwind failed; the context is Closing");
    ks->phase = KERNEL_PHASE_CLOSING;
    ks->teardown_error = rc;
}

static int init_locked(simpler_context *ctx, int device_id, const CallConfig *config, uint64_t generation)
{
    SimplerKernelCtxControl cap;
    SimplerKernelLayout layout;
    int rc = init_check(ctx, device_id, config, &cap, &layout);
    if (rc != 0)
        return rc;
    /* A failed init that could release everything leaves the context as
     * it found it: unlatched again when it was, on its old device. */
    const context_mode_ops *was_mode = ctx->mode;
    int was_device = ctx->device_id;
    rc = context_latch(ctx, &kernel_mode_ops);
    if (rc != 0)
        return rc;
    ctx->device_id = device_id;
    kernel_release_host(ctx); /* a Closed life's state struct, if any */
    arena_bank_init(&ctx->bank, ctx->ops);
    rc = host_state_create(ctx, &cap);
    if (rc != 0)
        goto err_unwind;
    kernel_state *ks = kernel_state_of(ctx);
    ks->capacity = cap;
    ks->layout = layout;
    ks->context_generation = generation;
    cores_pick(ctx, ks, config);
    rc = context_streams_create(ctx, 1);
    rc = rc ? rc : context_device_status(ctx, "event_create", ctx->ops->event_create(ctx->ops->user, &ks->registered));
    rc = rc ? rc : capacity_commit(ctx, ks);
    if (rc != 0)
        goto err_unwind;
    ks->phase = KERNEL_PHASE_COLLECTING;
    return 0;

err_unwind:
    init_unwind(ctx);
    if (kernel_phase(ctx) == KERNEL_PHASE_NEW) {
        ctx->mode = was_mode;
        ctx->device_id = was_device;
    }
    return rc;
}

int simpler_kernel_mode_init(DeviceContextHandle handle, int device_id, const CallConfig *config,
                             uint64_t context_generation)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    int rc = init_locked(ctx, device_id, config, context_generation);
    /* Refused and still New: the recorded CONFIGURE may be corrected. */
    ctx->control_replaceable = rc != 0 && kernel_phase(ctx) == KERNEL_PHASE_NEW;
    context_unlock(ctx);
    return rc;
}
