/* The host half of a program-mode run: build the graph, write its image. */
#include "common/error.h"
#include "common/host_alloc.h"
#include "common/log.h"
#include "program/program_limits.h"
#include "program/program.h"
#include "program/program_run.h"
#include "graph/graph_build.h"

static uint32_t window_doubled(uint32_t window)
{
    return window >= PROGRAM_REGROW_WINDOW_MAX / 2 ? PROGRAM_REGROW_WINDOW_MAX : window * 2;
}

int program_build(simpler_context *ctx, SimplerOrchEntryFn entry, const ChipStorageTaskArgs *args,
                  uint32_t task_window, const graph **out)
{
    int rc = program_scratch_reserve(ctx, task_window);
    if (rc != 0)
        return rc;
    /* Program mode grows between runs: a build that runs out of
     * room is retried on a scratch twice the size, up to
     * PROGRAM_REGROW_WINDOW_MAX. The orchestration runs again from the
     * start, so it must describe the same graph each time. */
    for (;;) {
        rc = graph_build_from_checked(ctx->scratch, entry, args, out);
        uint32_t window = graph_scratch_limits(ctx->scratch)->task_max;
        if (rc != PTO_RUNTIME_ERR_CAPACITY_EXCEEDED || window >= PROGRAM_REGROW_WINDOW_MAX)
            return rc;
        simpler_error_clear(); /* recovered by a bigger window, unless the reserve fails */
        rc = program_scratch_reserve(ctx, window_doubled(window));
        if (rc != 0)
            return rc;
    }
}

int program_image_write(simpler_context *ctx, const graph *g, size_t *bytes)
{
    program_state *ps = program_state_of(ctx);
    size_t size = graph_image_size(g);
    if (size == 0) {
        return simpler_fail(PTO_RUNTIME_ERR_INTERNAL, "a built graph of %u tasks does not fit the image format",
                            g->task_count);
    }
    if (size > ps->image_capacity) {
        /* malloc'd storage is aligned enough for the writer (8 bytes);
         * the old image is dropped, not copied. */
        void *fresh = host_alloc(size);
        if (fresh == NULL)
            return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "host allocation of the %zu-byte graph image failed",
                                size);
        host_free(ps->image);
        ps->image = fresh;
        ps->image_capacity = size;
    }
    if (graph_image_write(g, ps->image, size) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INTERNAL, "graph_image_write refused a graph it sized (%zu bytes)", size);
    *bytes = size;
    return 0;
}
