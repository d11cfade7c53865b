/* The trace export of a kernel context (SPEC §8). */
#include "context/kernel_trace.h"

#include "common/host_alloc.h"
#include "context/context.h"
#include "context/kernel_state.h"
#include "device/trace_record.h"
#include "trace/trace_export.h"

static int export_locked(simpler_context *ctx, const char *path)
{
    int phase = kernel_phase(ctx);
    if (!context_is_kernel(ctx) || phase == KERNEL_PHASE_NEW || phase >= KERNEL_PHASE_CLOSING ||
        ctx->trace.base == NULL)
        return PTO_RUNTIME_ERR_INVALID_STATE;
    const device_trace_header *h = ctx->trace.base;
    uint32_t count = h->magic == DEVICE_TRACE_MAGIC ? h->record_count : 0;
    if (count > h->capacity)
        count = h->capacity;
    const device_trace_record *records = (const device_trace_record *)(h + 1);
    trace_event *events = host_calloc(count ? count : 1, sizeof(*events));
    if (events == NULL)
        return PTO_RUNTIME_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < count; i++) {
        events[i].core = records[i].core_id;
        events[i].core_type = records[i].core_type;
        events[i].task_id = records[i].task_id;
        events[i].func_id = records[i].func_id;
        events[i].start_ns = records[i].start_ns;
        events[i].end_ns = records[i].end_ns;
    }
    int rc = trace_export_file(path, events, count, ctx->device_id);
    host_free(events);
    return rc;
}

int kernel_trace_export(DeviceContextHandle handle, const char *path)
{
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL || path == NULL) {
        context_unlock(ctx);
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    }
    int rc = export_locked(ctx, path);
    context_unlock(ctx);
    return rc;
}
