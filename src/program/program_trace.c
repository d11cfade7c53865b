/* The trace of a program-mode run: a device buffer the executor fills,
 * read back and exported as JSON after the run (trace/trace_device.h). */
#include "common/host_alloc.h"
#include "context/context.h"
#include "device/trace_record.h"
#include "program/program_run.h"
#include "trace/trace_device.h"
#include "trace/trace_export.h"

int program_trace_reserve(simpler_context *ctx, uint32_t task_count)
{
    uint64_t bytes = device_trace_bytes(task_count);
    if (ctx->trace.bytes >= bytes)
        return 0;
    int rc = device_arena_release(&ctx->trace, ctx->ops);
    return rc ? rc : device_arena_commit(&ctx->trace, (size_t)bytes, ctx->ops);
}

int program_trace_export(simpler_context *ctx, const CallConfig *config)
{
    char path[TRACE_PATH_MAX];
    int rc = trace_export_path(config->output_prefix, path);
    return rc ? rc
              : trace_device_export(ctx->ops, ctx->trace.base, ctx->trace.bytes, path, ctx->device_id,
                                    &ctx->last_device_error);
}
