#include "common/error.h"
#include "program/program.h"

#include "common/host_alloc.h"
#include "common/log.h"
#include "context/context.h"
#include "program/program_limits.h"
#include "context/context_streams.h"
#include "memory/runtime_pool.h"
#include "graph/graph_image.h"

int program_scratch_reserve(graph_scratch **scratch, uint32_t task_window)
{
    graph_limits limits;
    graph_scratch *fresh = NULL;
    if (*scratch != NULL && graph_scratch_limits(*scratch)->task_max >= task_window)
        return 0;
    int rc = graph_limits_for_window(task_window, PROGRAM_BUILD_BYTES_MAX, PROGRAM_BUILD_BYTES_MAX, &limits);
    rc = rc ? rc : graph_scratch_create(&limits, &fresh);
    if (rc != 0)
        return rc;
    *scratch = fresh;
    return 0;
}

int program_bank_request(const SimplerGraphRequirements *req, arena_bank_request *out)
{
    SimplerKernelLayout pool;
    int rc = runtime_pool_pack(req->runtime_arena_bytes, req->graph_definition_bytes, req->scheduler_state_bytes, &pool);
    if (rc != 0)
        return rc;
    if (req->gm_heap_bytes > SIZE_MAX || pool.runtime_pool_bytes > SIZE_MAX)
        return simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                            "gm_heap_bytes %llu, runtime pool %llu bytes: more than this process can address",
                            (unsigned long long)req->gm_heap_bytes, (unsigned long long)pool.runtime_pool_bytes);
    out->bytes[ARENA_REGION_GM_HEAP] = (size_t)req->gm_heap_bytes;
    out->bytes[ARENA_REGION_GM_SM] = ARENA_GM_SM_BYTES;
    out->bytes[ARENA_REGION_RUNTIME_POOL] = (size_t)pool.runtime_pool_bytes;
    return 0;
}

int program_capacity_commit(simpler_context *ctx, const SimplerGraphRequirements *req)
{
    arena_bank_request bank_req;
    int rc = program_bank_request(req, &bank_req);
    if (rc != 0)
        return rc;
    /* A graph without intermediates needs no heap, but a committed heap is
     * kept rather than released: the next run will likely want it again. */
    if (bank_req.bytes[ARENA_REGION_GM_HEAP] == 0)
        bank_req.bytes[ARENA_REGION_GM_HEAP] = ctx->bank.regions[ARENA_REGION_GM_HEAP].bytes;
    if (bank_req.bytes[ARENA_REGION_GM_HEAP] == 0)
        bank_req.bytes[ARENA_REGION_GM_HEAP] = DEVICE_ARENA_ALIGN;
    rc = arena_bank_commit(&ctx->bank, &bank_req, 0, NULL);
    if (rc == PTO_RUNTIME_ERR_INTERNAL)
        simpler_log(SIMPLER_LOG_ERROR, "program mode: the arena bank refused a commit (misaligned device base?)");
    if (rc != 0)
        return rc;
    if (req->retained_temp_bytes > SIZE_MAX)
        return simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                            "retained_temp_bytes = %llu: more than this process can address",
                            (unsigned long long)req->retained_temp_bytes);
    rc = retained_temp_begin(&ctx->temp, (size_t)req->retained_temp_bytes, 0, ctx->ops);
    if (rc == PTO_RUNTIME_ERR_INTERNAL)
        simpler_log(SIMPLER_LOG_ERROR, "program mode: the retained temp buffer got a misaligned device base");
    return rc;
}

void program_requirements_of_config(const CallConfig *config, SimplerGraphRequirements *out)
{
    uint32_t window = config->task_window != 0 ? config->task_window : GRAPH_DEFAULT_TASK_WINDOW;
    if (window > GRAPH_TASK_WINDOW_MAX)
        window = GRAPH_TASK_WINDOW_MAX;
    graph_requirements_for_window(window, out);
    out->gm_heap_bytes = config->heap_bytes;
}

int program_release_device(simpler_context *ctx)
{
    program_state *ps = program_state_of(ctx);
    if (ps != NULL)
        ps->last_runtime_base = 0;
    int first = arena_bank_release(&ctx->bank);
    int rc = retained_temp_release(&ctx->temp, ctx->ops);
    first = first ? first : rc;
    rc = device_arena_release(&ctx->trace, ctx->ops);
    first = first ? first : rc;
    rc = context_streams_release(ctx);
    return first ? first : rc;
}

void program_release_host(simpler_context *ctx)
{
    program_state *ps = program_state_of(ctx);
    for (int i = 0; ps != NULL && i < SIMPLER_MAX_CALLABLES_PROGRAM; i++) {
        host_free(ps->kernel_tables[i]);
        ps->kernel_tables[i] = NULL;
    }
    residency_deinit(&ctx->residency);
    graph_scratch_destroy(ctx->scratch);
    ctx->scratch = NULL;
    if (ps != NULL) {
        host_free(ps->image);
        ps->image = NULL;
        ps->image_capacity = 0;
    }
}
