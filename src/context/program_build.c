/* The host half of a program-mode run: build the graph, write its image. */
#include "common/host_alloc.h"
#include "common/log.h"
#include "context/context_limits.h"
#include "context/program.h"
#include "context/program_run.h"
#include "graph/graph_build.h"

static uint32_t window_doubled(uint32_t window)
{
    return window >= CONTEXT_REGROW_WINDOW_MAX / 2 ? CONTEXT_REGROW_WINDOW_MAX : window * 2;
}

int program_build(simpler_context *ctx, SimplerOrchEntryFn entry, const ChipStorageTaskArgs *args,
                  uint32_t task_window, const graph **out)
{
    int rc = program_scratch_reserve(ctx, task_window);
    if (rc != 0)
        return rc;
    /* Program mode grows between runs (SPEC §0): a build that runs out of
     * room is retried on a scratch twice the size, up to
     * CONTEXT_REGROW_WINDOW_MAX. The orchestration runs again from the
     * start, so it must describe the same graph each time. */
    for (;;) {
        rc = graph_build_run(ctx->scratch, entry, args, out);
        uint32_t window = graph_scratch_limits(ctx->scratch)->task_max;
        if (rc != PTO_RUNTIME_ERR_CAPACITY_EXCEEDED || window >= CONTEXT_REGROW_WINDOW_MAX)
            return rc;
        rc = program_scratch_reserve(ctx, window_doubled(window));
        if (rc != 0)
            return rc;
    }
}

int program_image_write(simpler_context *ctx, const graph *g, size_t *bytes)
{
    size_t size = graph_image_size(g);
    if (size == 0) {
        simpler_log(SIMPLER_LOG_ERROR, "simpler_run: a built graph of %u tasks does not fit the image format",
                    g->task_count);
        return PTO_RUNTIME_ERR_INTERNAL;
    }
    if (size > ctx->image_capacity) {
        /* malloc'd storage is aligned enough for the writer (8 bytes);
         * the old image is dropped, not copied. */
        void *fresh = host_alloc(size);
        if (fresh == NULL)
            return PTO_RUNTIME_ERR_OUT_OF_MEMORY;
        host_free(ctx->image);
        ctx->image = fresh;
        ctx->image_capacity = size;
    }
    if (graph_image_write(g, ctx->image, size) != 0) {
        simpler_log(SIMPLER_LOG_ERROR, "simpler_run: graph_image_write refused a graph it sized");
        return PTO_RUNTIME_ERR_INTERNAL;
    }
    *bytes = size;
    return 0;
}
