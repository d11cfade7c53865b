/* HOST tensors of a program-mode run: staged into the retained temp
 * buffer before the graph runs, copied back after it. */
#include "context/context.h"
#include "program/program_run.h"

static int stage_copy(simpler_context *ctx, const graph_image_staged *st, const ChipStorageTaskArgs *args,
                      int to_device)
{
    char *dev = (char *)ctx->temp.addr + st->temp_offset;
    void *host = (void *)(uintptr_t)args->tensors[st->caller_index].buffer_addr;
    if (st->bytes == 0)
        return 0;
    int code = to_device ? ctx->ops->memcpy_sync(ctx->ops->user, dev, host, (size_t)st->bytes)
                         : ctx->ops->memcpy_sync(ctx->ops->user, host, dev, (size_t)st->bytes);
    return context_device_status(ctx, "memcpy_sync", code);
}

int program_stage_in(simpler_context *ctx, const graph *g, const ChipStorageTaskArgs *args)
{
    /* Written-only tensors are copied in too: a kernel that writes part of
     * its view must not turn the rest of the caller's buffer into
     * garbage when the buffer is copied back. */
    for (uint32_t i = 0; i < g->staged_count; i++) {
        int rc = stage_copy(ctx, &g->staged[i], args, 1);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int program_stage_out(simpler_context *ctx, const graph *g, const ChipStorageTaskArgs *args)
{
    for (uint32_t i = 0; i < g->staged_count; i++) {
        if ((g->staged[i].flags & GRAPH_STAGED_WRITTEN) == 0)
            continue;
        int rc = stage_copy(ctx, &g->staged[i], args, 0);
        if (rc != 0)
            return rc;
    }
    return 0;
}
