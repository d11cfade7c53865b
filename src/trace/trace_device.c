/* The device trace buffer, read back and exported (trace_device.h). */
#include "trace/trace_device.h"

#include "common/error.h"
#include "common/host_alloc.h"
#include "common/log.h"
#include "device/trace_record.h"
#include "graph/graph_image.h"
#include "platform/platform_status.h"
#include "trace/trace_export.h"

static int device_read(const platform_ops *ops, void *dst, const void *src, size_t bytes, int *last_device_error)
{
    int code = ops->memcpy_sync(ops->user, dst, src, bytes);
    int rc = platform_status_keep(last_device_error, code);
    if (rc != 0)
        return simpler_fail(rc, "device call memcpy_sync (trace read) failed: %s (device code %d)",
                            platform_error_name(code), code);
    return 0;
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

/* Version 1 headers carry no stamps: read them as zero. */
static void header_normalize(device_trace_header *h)
{
    if (h->magic == DEVICE_TRACE_MAGIC && h->version >= 2)
        return;
    uint32_t keep[5] = {h->magic, h->version, h->capacity, h->record_count, h->dropped};
    *h = (device_trace_header){keep[0], keep[1], keep[2], keep[3], keep[4], 0, 0, 0, 0, 0, 0, 0, 0};
}

/* Records into events; unwritten scheduler records are skipped (and
 * version 1 records, whose kind field was part of core_type, are tasks). */
static size_t events_decode(const device_trace_record *records, uint32_t count, uint32_t version,
                            trace_event *events)
{
    size_t n = 0;
    for (uint32_t i = 0; i < count; i++) {
        const device_trace_record *r = &records[i];
        uint32_t kind = version >= 2 ? r->kind : DEVICE_TRACE_KIND_TASK;
        if (kind != DEVICE_TRACE_KIND_TASK && kind != DEVICE_TRACE_KIND_SCHED)
            continue;
        events[n++] = (trace_event){r->core_id, r->core_type, r->task_id, r->func_id, r->start_ns, r->end_ns,
                                    kind == DEVICE_TRACE_KIND_SCHED ? TRACE_EVENT_SCHED : TRACE_EVENT_TASK};
    }
    return n;
}

/* The executed graph, read back from the definition region: its edges as
 * (predecessor, successor) pairs in *edges (host_free), or none when the
 * header stamps no image that fits, the image is not one the checker
 * accepts, or it is not the stamped execution's. Only a failed copy or
 * allocation is an error. */
static int graph_edges(const platform_ops *ops, const trace_device_source *src, const device_trace_header *h,
                       uint32_t **edges, size_t *edge_count, int *last_device_error)
{
    *edges = NULL;
    *edge_count = 0;
    if (src->definition_base == NULL || h->image_bytes < sizeof(graph_image_header) ||
        h->image_bytes > src->definition_bytes || h->task_count == 0)
        return 0;
    uint64_t *image = host_calloc((size_t)(h->image_bytes + 7) / 8, sizeof(*image));
    uint32_t *scratch = host_calloc(h->task_count, sizeof(*scratch));
    int rc = image != NULL && scratch != NULL
                 ? 0
                 : simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "trace export: no host memory for the %llu-byte graph image",
                                (unsigned long long)h->image_bytes);
    rc = rc ? rc : device_read(ops, image, src->definition_base, (size_t)h->image_bytes, last_device_error);
    const graph_image_header *gh = (const graph_image_header *)image;
    if (rc == 0 && graph_image_check(image, (size_t)h->image_bytes, scratch, h->task_count) == 0 &&
        gh->task_count == h->task_count) {
        const graph_image_task *tasks = (const graph_image_task *)((const uint8_t *)image + gh->task_offset);
        const uint32_t *fanout = (const uint32_t *)((const uint8_t *)image + gh->fanout_offset);
        *edges = host_calloc(gh->edge_count ? 2 * (size_t)gh->edge_count : 1, sizeof(**edges));
        if (*edges == NULL)
            rc = simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "trace export: no host memory for %u edges",
                              (unsigned)gh->edge_count);
        for (uint32_t t = 0; rc == 0 && t < gh->task_count; t++) {
            for (uint32_t k = 0; k < tasks[t].fanout_count; k++, (*edge_count)++) {
                (*edges)[2 * *edge_count] = t;
                (*edges)[2 * *edge_count + 1] = fanout[tasks[t].fanout_begin + k];
            }
        }
    }
    host_free(scratch);
    host_free(image);
    return rc;
}

/* Adapts the mode's resolver to the writer's (the header's stamps). */
typedef struct name_lookup {
    const trace_device_source *src;
    const device_trace_header *h;
} name_lookup;

static const char *name_of(void *user, int32_t func_id)
{
    const name_lookup *l = user;
    return l->src->kernel_name(l->src->user, l->h->kernels_addr, l->h->generation, func_id);
}

/* The host spans lead to this execution: program mode's always, kernel
 * mode's when the log closed with the execution's serial and this is the
 * first run of it. */
static int host_leads_here(const trace_host_log *log, const device_trace_header *h)
{
    if (log == NULL || !log->closed || h->magic != DEVICE_TRACE_MAGIC)
        return 0;
    return log->any_serial || (log->serial == h->serial && h->runs == 1);
}

static int write_file(const trace_device_source *src, const device_trace_header *h, const trace_event *events,
                      size_t count, const uint32_t *edges, size_t edge_count, int graph_read, const char *path)
{
    name_lookup lookup = {src, h};
    int host = host_leads_here(src->host, h);
    trace_run run = {
        .device_id = src->device_id,
        .events = events,
        .event_count = count,
        .edges = edges,
        .edge_count = edge_count,
        .kernel_name = src->kernel_name != NULL ? name_of : NULL,
        .user = &lookup,
        .host = host ? src->host->spans : NULL,
        .host_count = host ? src->host->count : 0,
        .aic_count = h->aic_count,
        .task_count = h->task_count,
        .serial = h->serial,
        .runs = h->runs,
        .records_dropped = h->dropped,
        .host_dropped = host ? src->host->dropped : 0,
        .graph_read = (uint32_t)graph_read,
    };
    return trace_export_file_run(path, &run);
}

int trace_device_export_source(const platform_ops *ops, const trace_device_source *src, const char *path,
                               int *last_device_error)
{
    device_trace_header header;
    if (ops == NULL || src == NULL || src->trace_base == NULL || path == NULL || src->trace_bytes < sizeof(header))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "trace export: %s",
                            path == NULL ? "path = NULL" : "the context has no trace buffer (tracing was not on)");
    int rc = device_read(ops, &header, src->trace_base, sizeof(header), last_device_error);
    if (rc != 0)
        return rc;
    header_normalize(&header);
    uint32_t count = record_count(&header, src->trace_bytes);
    uint32_t *edges = NULL;
    size_t edge_count = 0;
    device_trace_record *records = host_calloc(count ? count : 1, sizeof(*records));
    trace_event *events = host_calloc(count ? count : 1, sizeof(*events));
    if (records == NULL || events == NULL) {
        rc = simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "trace export: no host memory for %u records",
                          (unsigned)count);
        goto out_free;
    }
    if (count != 0)
        rc = device_read(ops, records, (const char *)src->trace_base + sizeof(header),
                         (size_t)count * sizeof(*records), last_device_error);
    rc = rc ? rc : graph_edges(ops, src, &header, &edges, &edge_count, last_device_error);
    if (rc == 0) {
        size_t n = events_decode(records, count, header.version, events);
        rc = write_file(src, &header, events, n, edges, edge_count, edges != NULL, path);
    }
out_free:
    host_free(edges);
    host_free(events);
    host_free(records);
    return rc;
}

int trace_device_export(const platform_ops *ops, const void *base, size_t bytes, const char *path, int device_id,
                        int *last_device_error)
{
    trace_device_source src = {.trace_base = base, .trace_bytes = bytes, .device_id = device_id};
    return trace_device_export_source(ops, &src, path, last_device_error);
}
