/* The trace of a program-mode run (SPEC §8): a device buffer the
 * executor fills, read back and exported as JSON after the run. */
#include <string.h>

#include "common/host_alloc.h"
#include "context/context.h"
#include "context/program_run.h"
#include "device/trace_record.h"
#include "trace/trace_export.h"

int program_trace_reserve(simpler_context *ctx, uint32_t task_count)
{
    uint64_t bytes = device_trace_bytes(task_count);
    if (ctx->trace.bytes >= bytes)
        return 0;
    int rc = device_arena_release(&ctx->trace, ctx->ops);
    return rc ? rc : device_arena_commit(&ctx->trace, (size_t)bytes, ctx->ops);
}

static int trace_read(simpler_context *ctx, void *dst, size_t offset, size_t bytes)
{
    const char *src = (const char *)ctx->trace.base + offset;
    return context_device_status(ctx, "memcpy_sync", ctx->ops->memcpy_sync(ctx->ops->user, dst, src, bytes));
}

static void events_decode(const device_trace_record *records, uint32_t count, trace_event *events)
{
    for (uint32_t i = 0; i < count; i++) {
        events[i].core = records[i].core_id;
        events[i].core_type = records[i].core_type;
        events[i].task_id = records[i].task_id;
        events[i].func_id = records[i].func_id;
        events[i].start_ns = records[i].start_ns;
        events[i].end_ns = records[i].end_ns;
    }
}

int program_trace_export(simpler_context *ctx, const CallConfig *config)
{
    device_trace_header header;
    char path[TRACE_PATH_MAX];
    int rc = trace_export_path(config->output_prefix, path);
    rc = rc ? rc : trace_read(ctx, &header, 0, sizeof(header));
    if (rc != 0)
        return rc;
    uint32_t count = header.record_count < header.capacity ? header.record_count : header.capacity;
    if (header.magic != DEVICE_TRACE_MAGIC)
        count = 0;
    device_trace_record *records = host_calloc(count ? count : 1, sizeof(*records));
    trace_event *events = host_calloc(count ? count : 1, sizeof(*events));
    if (records == NULL || events == NULL) {
        rc = PTO_RUNTIME_ERR_OUT_OF_MEMORY;
        goto out_free;
    }
    rc = count ? trace_read(ctx, records, sizeof(header), (size_t)count * sizeof(*records)) : 0;
    if (rc == 0) {
        events_decode(records, count, events);
        rc = trace_export_file(path, events, count, ctx->device_id);
    }
out_free:
    host_free(events);
    host_free(records);
    return rc;
}
