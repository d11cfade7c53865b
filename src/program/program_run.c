/* Program-mode simpler_run: validate everything, then build on
 * the host, commit capacity, stage, execute, copy back. */
#include "common/error.h"
#include "common/task_args_check.h"
#include "context/context.h"
#include "program/program_limits.h"
#include "program/program.h"
#include "program/program_run.h"
#include "device/device_kernel_table.h"
#include "graph/graph_kernels.h"

typedef struct run_request {
    const loaded_callable *callable;
    const device_kernel_table *table;
    CallConfig config;
} run_request;

/* Every check that needs no device: on failure nothing has happened. */
static int run_check(simpler_context *ctx, int32_t id, const ChipStorageTaskArgs *args, const CallConfig *config,
                     run_request *req)
{
    if (!program_initialized(ctx))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: %s", context_is_kernel(ctx)
                                                                          ? "a kernel-mode context (simpler_run is program mode)"
                                                                          : "not initialized (call simpler_init first)");
    /* The one check of the arguments: the build trusts them. */
    if (id < 0 || id >= SIMPLER_MAX_CALLABLES_PROGRAM)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable_id = %d: must be in 0..%d", id,
                            SIMPLER_MAX_CALLABLES_PROGRAM - 1);
    int rc = graph_call_args_check(args);
    rc = rc == 0 && config != NULL ? call_config_check(config) : rc;
    /* The trace file is written after the run: whether it can be is
     * checked now, so a run that would fail there has no effect. */
    rc = rc == 0 && config != NULL && config->trace ? program_trace_path_check(config) : rc;
    rc = rc ? rc : residency_lookup(&ctx->residency, id, &req->callable, NULL);
    if (rc != 0)
        return rc;
    if ((uint32_t)args->tensor_count != req->callable->tensor_count ||
        (uint32_t)args->scalar_count != req->callable->scalar_count)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "args: %d tensors and %d scalars, but callable %d's signature takes %u and %u",
                            args->tensor_count, args->scalar_count, id, req->callable->tensor_count,
                            req->callable->scalar_count);
    req->table = program_state_of(ctx)->kernel_tables[id];
    if (config != NULL)
        req->config = *config;
    else
        (void)simpler_call_config_default(&req->config);
    return 0;
}

/* Build and commit: everything before the first device copy. */
static int run_prepare(simpler_context *ctx, const run_request *rq, const ChipStorageTaskArgs *args,
                       const graph **g, device_run_desc *desc)
{
    SimplerGraphRequirements req;
    size_t image_bytes = 0;
    uint32_t window = rq->config.task_window ? rq->config.task_window : GRAPH_DEFAULT_TASK_WINDOW;
    uint32_t aic, aiv;
    program_cores_split(ctx, &rq->config, &aic, &aiv);
    int rc = program_build(ctx, rq->callable->orch_entry, args, window, g);
    /* A graph the device would refuse is refused here, before any effect. */
    rc = rc ? rc : graph_kernels_check(rq->callable, *g, aic, aiv);
    rc = rc ? rc : graph_requirements_of(*g, &req);
    if (rc == 0 && rq->config.heap_bytes > req.gm_heap_bytes)
        req.gm_heap_bytes = rq->config.heap_bytes;
    rc = rc ? rc : program_capacity_commit(ctx, &req);
    rc = rc ? rc : program_image_write(ctx, *g, &image_bytes);
    if (rc == 0 && rq->config.trace)
        rc = program_trace_reserve(ctx, (*g)->task_count);
    return rc ? rc : program_desc_fill(ctx, &req, rq->table, &rq->config, image_bytes, desc);
}

static int run_locked(simpler_context *ctx, int32_t id, const ChipStorageTaskArgs *args, const CallConfig *config)
{
    run_request rq;
    device_run_desc desc;
    const graph *g = NULL;
    program_state *ps = program_state_of(ctx);
    int rc = run_check(ctx, id, args, config, &rq);
    if (rc == 0)
        ps->last_runtime_base = 0; /* the commit below may re-base the arena */
    rc = rc ? rc : context_select_device(ctx);
    uint64_t start = clock_now_ns();
    rc = rc ? rc : run_prepare(ctx, &rq, args, &g, &desc);
    uint64_t built = clock_now_ns();
    rc = rc ? rc : program_stage_in(ctx, g, args);
    uint64_t staged = clock_now_ns();
    rc = rc ? rc : program_execute(ctx, g, &desc);
    uint64_t executed = clock_now_ns();
    rc = rc ? rc : program_stage_out(ctx, g, args);
    if (rc == 0 && rq.config.trace) {
        program_trace_spans(ctx, start, built, clock_now_ns());
        rc = program_trace_export(ctx, &rq.config, &desc, id);
    }
    if (rc != 0) {
        if (ps != NULL)
            ps->last_runtime_base = 0; /* nothing to report after a failure */
        return rc;
    }
    ps->run_times.host_build_ns = built - start;
    ps->run_times.upload_ns += staged - built;
    ps->run_times.finish_ns += clock_now_ns() - executed;
    return 0;
}

int simpler_run(DeviceContextHandle handle, int32_t callable_id, const ChipStorageTaskArgs *args,
                const CallConfig *config)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    int rc = run_locked(ctx, callable_id, args, config);
    context_unlock(ctx);
    return rc;
}
