/* The host half of a program-mode run: build the graph, write its image. */
#include <stdio.h>

#include "common/error.h"
#include "common/host_alloc.h"
#include "common/log.h"
#include "program/program_limits.h"
#include "program/program.h"
#include "program/program_run.h"
#include "context/context.h"
#include "graph/graph.h"
#include "graph/graph_build.h"

static uint32_t window_doubled(uint32_t window)
{
    return window >= PROGRAM_REGROW_WINDOW_MAX / 2 ? PROGRAM_REGROW_WINDOW_MAX : window * 2;
}

/* The refusal of a build that outgrew its window of `window` tasks
 * (below the largest): its reason, and what sets a larger window. */
static __attribute__((cold)) int build_full(uint32_t window)
{
    char reason[SIMPLER_ERROR_REASON_BYTES];
    snprintf(reason, sizeof reason, "%s", simpler_last_error_message());
    return simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                        "the graph outgrew a window of %u tasks (CallConfig.task_window sets up to %u): %s", window,
                        (unsigned)GRAPH_TASK_WINDOW_MAX, reason);
}

int program_build(simpler_context *ctx, SimplerOrchEntryFn entry, const ChipStorageTaskArgs *args,
                  uint32_t task_window, const graph **out)
{
    graph_scratch *const had = ctx->scratch;
    graph_scratch *s = had;
    uint32_t window = 0;
    /* Program mode grows between runs: a build that runs out of
     * room is retried on a scratch twice the size, up to
     * PROGRAM_REGROW_WINDOW_MAX. The orchestration runs again from the
     * start, so it must describe the same graph each time. The context
     * keeps the scratch the build succeeded on; a refused build leaves
     * it the one it had. */
    int rc = program_scratch_reserve(&s, task_window);
    while (rc == 0) {
        rc = graph_build_from_checked(s, entry, args, out);
        window = graph_scratch_limits(s)->task_max;
        if (!graph_build_outgrew_window(s, rc) || window >= PROGRAM_REGROW_WINDOW_MAX)
            break;
        simpler_error_clear(); /* recovered by a bigger window, unless the reserve fails */
        graph_scratch *smaller = s;
        rc = program_scratch_reserve(&s, window_doubled(window));
        if (rc == 0 && smaller != had)
            graph_scratch_destroy(smaller);
    }
    if (graph_build_outgrew_window(s, rc) && window < GRAPH_TASK_WINDOW_MAX)
        rc = build_full(window);
    if (rc != 0) {
        if (s != had)
            graph_scratch_destroy(s);
        return rc;
    }
    if (s != had) {
        graph_scratch_destroy(had);
        ctx->scratch = s;
    }
    return 0;
}

int program_image_write(simpler_context *ctx, const graph *g, size_t *bytes)
{
    program_state *ps = program_state_of(ctx);
    graph_image_header h;
    if (graph_image_layout(g->task_count, g->arg_count, g->edge_count, g->staged_count, g->view_count, &h) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INTERNAL, "a built graph of %u tasks does not fit the image format",
                            g->task_count);
    /* The host buffer holds the head and the fan-out lists only: the
     * task and argument sections are the build's own records, uploaded
     * from where the build wrote them (program_image_upload). */
    size_t head = h.task_offset, size = head + (size_t)g->edge_count * sizeof(uint32_t);
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
    if (graph_image_write_parts(g, ps->image, head, (uint32_t *)(void *)((uint8_t *)ps->image + head)) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INTERNAL, "graph_image_write_parts refused a graph it sized (%zu bytes)",
                            head);
    *bytes = (size_t)h.image_bytes;
    return 0;
}

/* One host run to its offset in the definition region; nothing for none. */
static int upload_part(simpler_context *ctx, uint64_t definition_base, uint32_t offset, const void *src, size_t bytes)
{
    if (bytes == 0)
        return 0;
    return context_device_status(ctx, "memcpy_sync",
                                 ctx->ops->memcpy_sync(ctx->ops->user, (void *)(uintptr_t)(definition_base + offset),
                                                       src, bytes));
}

int program_image_upload(simpler_context *ctx, const graph *g, uint64_t definition_base)
{
    const graph_image_header *h = program_state_of(ctx)->image;
    const uint8_t *head = (const uint8_t *)h;
    int rc = upload_part(ctx, definition_base, 0, head, h->task_offset);
    rc = rc ? rc
            : upload_part(ctx, definition_base, h->task_offset, g->tasks,
                          (size_t)g->task_count * sizeof(graph_image_task));
    rc = rc ? rc
            : upload_part(ctx, definition_base, h->arg_offset, g->args, (size_t)g->arg_count * sizeof(graph_image_arg));
    return rc ? rc
              : upload_part(ctx, definition_base, h->fanout_offset, head + h->task_offset,
                            (size_t)g->edge_count * sizeof(uint32_t));
}
