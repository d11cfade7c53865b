/* The device trace buffer, read back and exported (trace_device.h). */
#include "trace/trace_device.h"

#include "common/host_alloc.h"
#include "common/log.h"
#include "device/trace_record.h"
#include "platform/platform_status.h"
#include "trace/trace_export.h"

static int device_read(const platform_ops *ops, void *dst, const void *src, size_t bytes, int *last_device_error)
{
    int code = ops->memcpy_sync(ops->user, dst, src, bytes);
    if (code != 0)
        simpler_log(SIMPLER_LOG_WARN, "device call memcpy_sync (trace read) failed with device code %d", code);
    return platform_status_keep(last_device_error, code);
}

/* How many records the header says were written, within what the
 * buffer holds. */
static uint32_t record_count(const device_trace_header *h, size_t bytes)
{
    size_t fit = (bytes - sizeof(*h)) / sizeof(device_trace_record);
    uint32_t count = h->record_count < h->capacity ? h->record_count : h->capacity;
    if (h->magic != DEVICE_TRACE_MAGIC)
        return 0;
    return count < fit ? count : (uint32_t)fit;
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

int trace_device_export(const platform_ops *ops, const void *base, size_t bytes, const char *path, int device_id,
                        int *last_device_error)
{
    device_trace_header header;
    if (ops == NULL || base == NULL || path == NULL || bytes < sizeof(header))
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    int rc = device_read(ops, &header, base, sizeof(header), last_device_error);
    if (rc != 0)
        return rc;
    uint32_t count = record_count(&header, bytes);
    device_trace_record *records = host_calloc(count ? count : 1, sizeof(*records));
    trace_event *events = host_calloc(count ? count : 1, sizeof(*events));
    if (records == NULL || events == NULL) {
        rc = PTO_RUNTIME_ERR_OUT_OF_MEMORY;
        goto out_free;
    }
    if (count != 0)
        rc = device_read(ops, records, (const char *)base + sizeof(header), (size_t)count * sizeof(*records),
                         last_device_error);
    if (rc == 0) {
        events_decode(records, count, events);
        rc = trace_export_file(path, events, count, device_id);
    }
out_free:
    host_free(events);
    host_free(records);
    return rc;
}
