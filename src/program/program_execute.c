/* The device half of a program-mode run: the run descriptor, the chain on
 * the context's own streams, the wait and the status word. */
#include <string.h>

#include "common/error.h"
#include "common/log.h"
#include "context/context.h"
#include "program/program_limits.h"
#include "memory/runtime_pool.h"
#include "program/program_run.h"
#include "device/device_chain.h"
#include "device/device_core_plan.h"
#include "device/device_handshake.h"
#include "device/device_slot.h"
#include "platform/platform_launch_ops.h"

/* Written into the status word before a run: positive, so no device
 * status (0 or -1..-999) equals it; it survives when no scheduler ran. */
#define PROGRAM_STATUS_UNWRITTEN_BYTE 0x7f

void program_cores_split(const simpler_context *ctx, const CallConfig *config, uint32_t *aic, uint32_t *aiv)
{
    context_cores_split(ctx, config->aicore_count, aic, aiv);
}

int program_desc_fill(simpler_context *ctx, const SimplerGraphRequirements *req, const device_kernel_table *table,
                      const CallConfig *config, size_t image_bytes, device_run_desc *desc)
{
    SimplerKernelLayout pool;
    const device_arena *rp = arena_bank_region(&ctx->bank, ARENA_REGION_RUNTIME_POOL);
    const device_arena *heap = arena_bank_region(&ctx->bank, ARENA_REGION_GM_HEAP);
    const device_arena *sm = arena_bank_region(&ctx->bank, ARENA_REGION_GM_SM);
    if (runtime_pool_pack(req->runtime_arena_bytes, req->graph_definition_bytes, req->scheduler_state_bytes, &pool) != 0 ||
        rp->bytes < pool.runtime_pool_bytes || image_bytes > pool.definition_bytes || sm->bytes < sizeof(int32_t))
        return simpler_fail(PTO_RUNTIME_ERR_INTERNAL, "committed capacity does not hold the graph it was sized for");
    uint64_t pool_base = (uint64_t)(uintptr_t)rp->base;
    memset(desc, 0, sizeof(*desc));
    desc->version = DEVICE_RUN_DESC_VERSION;
    desc->desc_bytes = sizeof(*desc);
    program_cores_split(ctx, config, &desc->aic_count, &desc->aiv_count);
    desc->task_count = (uint32_t)req->task_count;
    desc->image_bytes = image_bytes;
    desc->generation = table->generation;
    desc->heap_base = (uint64_t)(uintptr_t)heap->base;
    desc->heap_bytes = heap->bytes;
    desc->temp_base = (uint64_t)(uintptr_t)ctx->temp.addr;
    desc->temp_bytes = ctx->temp.size;
    desc->runtime_base = pool_base + pool.runtime_offset;
    desc->runtime_bytes = pool.runtime_bytes;
    desc->definition_base = pool_base + pool.definition_offset;
    desc->definition_bytes = pool.definition_bytes;
    desc->scheduler_base = pool_base + pool.scheduler_offset;
    desc->scheduler_bytes = pool.scheduler_bytes;
    if (config->trace) {
        desc->trace_base = (uint64_t)(uintptr_t)ctx->trace.base;
        desc->trace_bytes = ctx->trace.bytes;
    }
    /* gm_sm's first word is the status word (docs/program-mode.md). */
    desc->status_addr = (uint64_t)(uintptr_t)sm->base;
    desc->kernels = table;
    /* Program mode reads the status word, so the scheduler need not fault
     * its stream (which would stay faulted for the next run). */
    desc->report_fault = NULL;
    return 0;
}

static int sync_stream(simpler_context *ctx, int which)
{
    platform_stream *s = ctx->streams[which];
    return ctx->ops->stream_synchronize(ctx->ops->user, s);
}

/* After a failed enqueue the chain may be half built: the executor can be
 * running with no scheduler to dismiss it. Let the AICPU stream finish,
 * then tell every core to quit through its handshake slot, and drain the
 * other streams, so the streams are idle again. The slots are signalled
 * through the platform (mem_signal). */
static void chain_abort(simpler_context *ctx, const device_run_desc *desc)
{
    (void)sync_stream(ctx, CONTEXT_STREAM_AICPU);
    (void)context_device_status(ctx, "mem_signal (dismiss cores)", device_slots_dismiss(ctx->ops, desc));
    (void)sync_stream(ctx, CONTEXT_STREAM_AICORE);
}

/* A stream whose work faulted stays faulted (simdev: sticky); replace it
 * so the next run starts clean. A replacement that cannot be created
 * leaves the slot NULL, which program_streams_ready reports. */
static void streams_renew_faulted(simpler_context *ctx)
{
    for (int s = 0; s < CONTEXT_STREAM_COUNT; s++) {
        if (ctx->streams[s] == NULL || sync_stream(ctx, s) == 0)
            continue;
        if (ctx->ops->stream_destroy(ctx->ops->user, ctx->streams[s]) != 0)
            continue;
        ctx->streams[s] = NULL;
        platform_stream *fresh = NULL;
        if (ctx->ops->stream_create(ctx->ops->user, &fresh) == 0)
            ctx->streams[s] = fresh;
    }
}

static int streams_ready(simpler_context *ctx)
{
    for (int s = 0; s < CONTEXT_STREAM_COUNT; s++) {
        if (ctx->streams[s] != NULL)
            continue;
        platform_stream *fresh = NULL;
        int rc = context_device_status(ctx, "stream_create", ctx->ops->stream_create(ctx->ops->user, &fresh));
        if (rc != 0)
            return rc;
        ctx->streams[s] = fresh;
    }
    return 0;
}

/* The program-mode chain (device_chain.h): the engine streams only.
 * The host holds the head of the image it uploaded (program_image_write:
 * the header, whose chain heads are all device_core_plan reads), so only
 * the cores the graph can use start (device_core_plan.h). */
static int chain_enqueue(simpler_context *ctx, const device_run_desc *desc, const void *image)
{
    platform_launch_ops launch;
    uint64_t scratch[(sizeof(device_run_desc) + 7) / 8];
    device_run_desc planned = *desc;
    (void)device_core_plan(&planned, image, desc->image_bytes);
    platform_launch_ops_derive(ctx->ops, &launch);
    return device_chain_enqueue_program(&launch, ctx->streams[CONTEXT_STREAM_AICPU],
                                        ctx->streams[CONTEXT_STREAM_AICORE], &planned, scratch, sizeof(scratch));
}

/* Waits for the scheduler (AICPU stream) and the executor (AICore
 * stream), which the scheduler dismissed before it returned, in one call
 * so that the platform picks the cheaper order (simdev: the stream that
 * finishes beside the calling thread first; a host thread beside the
 * AICore cores that waited for the AICPU stream first was woken across
 * vCPUs, which costs more than the rest of a small run). Both are synchronized even
 * when one faulted, so both are idle after: a faulted stream skips all
 * later work (the next run's executor would wait for a scheduler that is
 * skipped). Returns 0 or the first device code, the AICPU stream's
 * first. */
static int chain_wait(simpler_context *ctx)
{
    platform_stream *const both[2] = {ctx->streams[CONTEXT_STREAM_AICPU], ctx->streams[CONTEXT_STREAM_AICORE]};
    return ctx->ops->streams_synchronize(ctx->ops->user, both, 2);
}

/* The status word: 0 or a device error; anything else means no scheduler
 * finished, which a failed device call explains. */
static int status_word_read(simpler_context *ctx, const device_run_desc *desc, int32_t *word)
{
    return context_device_status(ctx, "memcpy_sync",
                                 ctx->ops->memcpy_sync(ctx->ops->user, word, (const void *)(uintptr_t)desc->status_addr,
                                                       sizeof(*word)));
}

static int device_error_range(int32_t word)
{
    return word >= SIMPLER_DEVICE_ERROR_MIN && word <= SIMPLER_DEVICE_ERROR_MAX;
}

int program_execute(simpler_context *ctx, const graph *g, const device_run_desc *desc)
{
    const platform_ops *ops = ctx->ops;
    program_state *ps = program_state_of(ctx);
    SimplerRunTimes *t = &ps->run_times;
    int32_t word = 0;
    uint64_t start = clock_now_ns();
    int rc = streams_ready(ctx);
    rc = rc ? rc : program_image_upload(ctx, g, desc->definition_base);
    rc = rc ? rc
            : context_device_status(ctx, "memset_sync",
                                    ops->memset_sync(ops->user, (void *)(uintptr_t)desc->status_addr,
                                                     PROGRAM_STATUS_UNWRITTEN_BYTE, sizeof(int32_t)));
    /* The runtime arena's header and slots start zeroed (device_chain.h):
     * both engine streams are idle since the last run, so a synchronous
     * clear orders itself before the launches without an event. */
    rc = rc ? rc
            : context_device_status(ctx, "memset_sync",
                                    ops->memset_sync(ops->user, (void *)(uintptr_t)desc->runtime_base, 0,
                                                     (size_t)device_run_desc_clear_bytes(desc)));
    if (rc != 0)
        return rc;
    uint64_t uploaded = clock_now_ns();
    int code = chain_enqueue(ctx, desc, ps->image);
    if (code != 0) {
        chain_abort(ctx, desc);
        streams_renew_faulted(ctx);
        return context_device_status(ctx, "device_chain_enqueue", code);
    }
    uint64_t launched = clock_now_ns();
    code = chain_wait(ctx);
    uint64_t waited = clock_now_ns();
    ps->exec_marks[0] = uploaded;
    ps->exec_marks[1] = launched;
    ps->exec_marks[2] = waited;
    if (code != 0)
        streams_renew_faulted(ctx);
    rc = status_word_read(ctx, desc, &word);
    t->upload_ns = uploaded - start;
    t->launch_ns = launched - uploaded;
    t->wait_ns = waited - launched;
    t->finish_ns = clock_now_ns() - waited;
    if (rc == 0 && (word == 0 || device_error_range(word)) && (code == 0 || word != 0)) {
        if (word == 0) {
            ps->last_runtime_base = desc->runtime_base;
            return 0;
        }
        return simpler_fail(word, "the device latched error %d during the run: %s", (int)word,
                            simpler_strerror((int)word));
    }
    if (code != 0)
        return context_device_status(ctx, "streams_synchronize", code);
    if (rc != 0)
        return rc;
    return simpler_fail(PTO_RUNTIME_ERR_INTERNAL, "the device scheduler left status word %d", (int)word);
}

int simpler_run_times(DeviceContextHandle handle, SimplerRunTimes *out)
{
    simpler_error_clear();
    if (out == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "out: NULL");
    if (out->struct_size != sizeof(*out))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "out->struct_size = %u: expected sizeof(SimplerRunTimes) = %zu", out->struct_size,
                            sizeof(*out));
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    int rc;
    device_runtime_header h;
    program_state *ps = program_state_of(ctx);
    SimplerRunTimes t = {0};
    if (!program_initialized(ctx))
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: not an initialized program-mode context");
    else if (ps->last_runtime_base == 0)
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE,
                          "ctx: no run has completed since init or since the last failed run");
    else {
        t = ps->run_times;
        rc = context_select_device(ctx);
        rc = rc ? rc
                : context_device_status(ctx, "memcpy_sync",
                                        ctx->ops->memcpy_sync(ctx->ops->user, &h,
                                                              (const void *)(uintptr_t)ps->last_runtime_base,
                                                              sizeof(h)));
    }
    context_unlock(ctx);
    if (rc == 0) {
        t.struct_size = (uint32_t)sizeof(t);
        t.reserved = 0;
        t.device_prepare_ns = h.prepare_ns;
        t.device_graph_ns = h.graph_ns;
        *out = t;
    }
    return rc;
}
