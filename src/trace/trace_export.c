/* The Chrome / Perfetto JSON of one execution (trace_export.h). */
#define _POSIX_C_SOURCE 200809L
#include "trace/trace_export.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/file_out.h"
#include "common/host_alloc.h"
#include "device/device_run_desc.h"
#include "device/trace_record.h"
#include "simpler/runtime_c_api.h"
#include "simpler/task_args.h"

/* The writer's state: the file, the time origin, whether an event was
 * written (for the commas), and a failed write seen. */
typedef struct writer {
    FILE *out;
    const trace_run *run;
    uint64_t origin;
    int first;
    int bad;
} writer;

static uint64_t earliest(const trace_run *run)
{
    uint64_t first = UINT64_MAX;
    for (size_t i = 0; i < run->event_count; i++)
        first = run->events[i].start_ns < first ? run->events[i].start_ns : first;
    for (size_t i = 0; i < run->host_count; i++)
        first = run->host[i].start_ns < first ? run->host[i].start_ns : first;
    return first == UINT64_MAX ? 0 : first;
}

static void put(writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(writer *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(w->out, fmt, ap) < 0)
        w->bad = 1;
    va_end(ap);
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_string(writer *w, const char *s)
{
    put(w, "\"");
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            put(w, "\\%c", c);
        else if (c < 0x20)
            put(w, "\\u%04x", c);
        else
            put(w, "%c", c);
    }
    put(w, "\"");
}

/* Microseconds with three decimals, from integer nanoseconds (no float
 * rounding in the output). */
static void put_us(writer *w, const char *key, uint64_t ns)
{
    put(w, "\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

static void begin_event(writer *w)
{
    put(w, "%s\n{", w->first ? "" : ",");
    w->first = 0;
}

/* ts and dur of a complete event; an end before its start is dur 0. */
static void put_times(writer *w, uint64_t start, uint64_t end)
{
    put_us(w, "ts", start - w->origin);
    put(w, ",");
    put_us(w, "dur", end > start ? end - start : 0);
}

static void thread_meta(writer *w, uint32_t tid, const char *name, int64_t sort)
{
    char label[32];
    begin_event(w);
    put(w, "\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":", w->run->device_id, tid);
    snprintf(label, sizeof label, "%s", name);
    put_string(w, label);
    put(w, "}}");
    begin_event(w);
    put(w, "\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"args\":{\"sort_index\":%lld}}",
        w->run->device_id, tid, (long long)sort);
}

/* "AIC i" / "AIV j": the core's index within its type when the split is
 * known, else its block index. */
static void core_label(const trace_run *run, const trace_event *e, char *out, size_t size)
{
    int aic = run->aic_count != 0 ? e->core < run->aic_count : e->core_type == SIMPLER_CORE_TYPE_AIC;
    uint32_t index = run->aic_count != 0 && !aic ? e->core - run->aic_count : e->core;
    snprintf(out, size, "%s %u", aic ? "AIC" : "AIV", index);
}

/* The process name and one named track per core that ran a task, the
 * scheduler's and the host's (when they hold events). */
static void tracks(writer *w)
{
    const trace_run *run = w->run;
    uint8_t named[DEVICE_CORE_MAX] = {0};
    int sched = 0;
    char label[32];
    begin_event(w);
    put(w, "\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"simpler device %d\"}}",
        run->device_id, run->device_id);
    for (size_t i = 0; i < run->event_count; i++) {
        const trace_event *e = &run->events[i];
        if (e->kind == TRACE_EVENT_SCHED) {
            sched = 1;
            continue;
        }
        if (e->core >= DEVICE_CORE_MAX || named[e->core])
            continue;
        named[e->core] = 1;
        core_label(run, e, label, sizeof label);
        thread_meta(w, e->core, label, (int64_t)e->core);
    }
    if (sched)
        thread_meta(w, TRACE_TID_SCHEDULER, "scheduler", -1);
    if (run->host_count != 0)
        thread_meta(w, TRACE_TID_HOST, "host", -2);
}

static const char *sched_phase_name(uint32_t phase)
{
    return phase == DEVICE_TRACE_SCHED_PREPARE ? "prepare" : phase == DEVICE_TRACE_SCHED_DISPATCH ? "dispatch" : "phase";
}

static void task_event(writer *w, const trace_event *e)
{
    const trace_run *run = w->run;
    const char *kernel = run->kernel_name != NULL ? run->kernel_name(run->user, e->func_id) : NULL;
    char name[64];
    if (kernel != NULL && kernel[0] != '\0')
        snprintf(name, sizeof name, "%s", kernel);
    else
        snprintf(name, sizeof name, "func %d", e->func_id);
    begin_event(w);
    put(w, "\"name\":");
    put_string(w, name);
    put(w, ",\"cat\":\"task\",\"ph\":\"X\",\"pid\":%d,\"tid\":%u,", run->device_id, e->core);
    put_times(w, e->start_ns, e->end_ns);
    put(w, ",\"args\":{\"task\":%u,\"func_id\":%d,\"core_type\":%u}}", e->task_id, e->func_id, e->core_type);
}

static void sched_event(writer *w, const trace_event *e)
{
    begin_event(w);
    put(w, "\"name\":\"%s\",\"cat\":\"scheduler\",\"ph\":\"X\",\"pid\":%d,\"tid\":%u,", sched_phase_name(e->task_id),
        w->run->device_id, TRACE_TID_SCHEDULER);
    put_times(w, e->start_ns, e->end_ns);
    put(w, "}");
}

static void host_event(writer *w, const trace_span *s)
{
    begin_event(w);
    put(w, "\"name\":");
    put_string(w, s->name != NULL ? s->name : "host");
    put(w, ",\"cat\":\"host\",\"ph\":\"X\",\"pid\":%d,\"tid\":%u,", w->run->device_id, TRACE_TID_HOST);
    put_times(w, s->start_ns, s->end_ns);
    put(w, "}");
}

/* One flow per edge whose two tasks have an event: "s" at the start of
 * the predecessor's event, "f" bound to the successor's enclosing event
 * at its start. `where` maps a task id below task_count to its event
 * index + 1 (0: no event). */
static void flows(writer *w, const uint32_t *where)
{
    const trace_run *run = w->run;
    for (size_t i = 0; i < run->edge_count; i++) {
        uint32_t from = run->edges[2 * i], to = run->edges[2 * i + 1];
        if (from >= run->task_count || to >= run->task_count || where[from] == 0 || where[to] == 0)
            continue;
        const trace_event *a = &run->events[where[from] - 1], *b = &run->events[where[to] - 1];
        begin_event(w);
        put(w, "\"name\":\"dependency\",\"cat\":\"dependency\",\"ph\":\"s\",\"id\":%zu,\"pid\":%d,\"tid\":%u,", i + 1,
            run->device_id, a->core);
        put_us(w, "ts", a->start_ns - w->origin);
        put(w, ",\"args\":{\"from\":%u,\"to\":%u}}", from, to);
        begin_event(w);
        put(w, "\"name\":\"dependency\",\"cat\":\"dependency\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%zu,\"pid\":%d,"
               "\"tid\":%u,",
            i + 1, run->device_id, b->core);
        put_us(w, "ts", b->start_ns - w->origin);
        put(w, "}");
    }
}

/* Task id -> event index + 1, for the flows (first event of a task wins). */
static int task_index(const trace_run *run, uint32_t **out)
{
    *out = NULL;
    if (run->edge_count == 0 || run->task_count == 0)
        return 0;
    uint32_t *where = host_calloc(run->task_count, sizeof(*where));
    if (where == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "trace: host memory for a %u-task index ran out",
                            run->task_count);
    for (size_t i = 0; i < run->event_count; i++) {
        const trace_event *e = &run->events[i];
        if (e->kind == TRACE_EVENT_TASK && e->task_id < run->task_count && where[e->task_id] == 0)
            where[e->task_id] = (uint32_t)i + 1;
    }
    *out = where;
    return 0;
}

static void other_data(writer *w)
{
    const trace_run *run = w->run;
    put(w, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"format\":\"simpler trace %u\",\"device\":%d,"
           "\"serial\":%llu,\"runs\":%u,\"tasks\":%u,\"task_records_dropped\":%u,\"host_spans_dropped\":%u,"
           "\"dependencies\":\"%s\"}}\n",
        DEVICE_TRACE_VERSION, run->device_id, (unsigned long long)run->serial, run->runs, run->task_count,
        run->records_dropped, run->host_dropped, run->graph_read ? "from the executed graph" : "unavailable");
}

int trace_export_write_run(FILE *out, const trace_run *run)
{
    if (out == NULL || run == NULL || (run->events == NULL && run->event_count > 0) ||
        (run->edges == NULL && run->edge_count > 0) || (run->host == NULL && run->host_count > 0))
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: internal helper; callers pass checked runs */
    uint32_t *where = NULL;
    int rc = task_index(run, &where);
    if (rc != 0)
        return rc;
    writer w = {out, run, earliest(run), 1, 0};
    put(&w, "{\"traceEvents\":[");
    tracks(&w);
    for (size_t i = 0; i < run->host_count; i++)
        host_event(&w, &run->host[i]);
    for (size_t i = 0; i < run->event_count; i++) {
        if (run->events[i].kind == TRACE_EVENT_SCHED)
            sched_event(&w, &run->events[i]);
        else
            task_event(&w, &run->events[i]);
    }
    if (where != NULL)
        flows(&w, where);
    other_data(&w);
    host_free(where);
    if (w.bad || ferror(out))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "trace: writing the trace file failed");
    return 0;
}

int trace_export_write(FILE *out, const trace_event *events, size_t count, int device_id)
{
    trace_run run = {.device_id = device_id, .events = events, .event_count = count};
    return trace_export_write_run(out, &run);
}

int trace_export_path(const char *prefix, char *path)
{
    if (prefix == NULL || path == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "trace: %s = NULL", prefix == NULL ? "output_prefix" : "path");
    int n = snprintf(path, TRACE_PATH_MAX, "%s%s", prefix, TRACE_FILE_NAME);
    if (n < 0 || n >= TRACE_PATH_MAX)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "config.output_prefix: \"%s%s\" is longer than %d bytes",
                            prefix, TRACE_FILE_NAME, TRACE_PATH_MAX - 1);
    return 0;
}

int trace_export_file_run(const char *path, const trace_run *run)
{
    file_out o;
    if (path == NULL || run == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "trace export: %s = NULL", path == NULL ? "path" : "run");
    /* Replaced whole where the name allows (common/file_out.h), so a
     * failed export leaves what was there. */
    switch (file_out_open(&o, path)) {
    case FILE_OUT_OK:
        break;
    case FILE_OUT_READ_ONLY:
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "trace path \"%s\": cannot write it: %s", path,
                            strerror(errno));
    case FILE_OUT_CREATE_BESIDE:
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "trace path \"%s\": cannot create \"%s\" beside it: %s",
                            path, o.tmp, strerror(errno));
    default:
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "trace path \"%s\": cannot create it: %s", path,
                            strerror(errno));
    }
    int rc = trace_export_write_run(o.f, run);
    file_out_step step = file_out_close(&o, rc == 0);
    if (rc == 0 && step == FILE_OUT_WRITE)
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "trace path \"%s\": closing it failed", path);
    else if (rc == 0 && step == FILE_OUT_REPLACE)
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "trace path \"%s\": cannot replace it: %s", path,
                          strerror(errno));
    return rc;
}

int trace_export_file(const char *path, const trace_event *events, size_t count, int device_id)
{
    if (events == NULL && count > 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "trace export: events = NULL with count %zu", count);
    trace_run run = {.device_id = device_id, .events = events, .event_count = count};
    return trace_export_file_run(path, &run);
}
