#include "common/error.h"
#include "trace/trace_export.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "simpler/runtime_c_api.h"

static uint64_t earliest_start(const trace_event *events, size_t count)
{
    uint64_t first = UINT64_MAX;
    for (size_t i = 0; i < count; i++) {
        if (events[i].start_ns < first)
            first = events[i].start_ns;
    }
    return count == 0 ? 0 : first;
}

/* Microseconds with three decimals, from integer nanoseconds (no float
 * rounding in the output). */
static int write_us(FILE *out, const char *key, uint64_t ns)
{
    return fprintf(out, "\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000),
                   (unsigned long long)(ns % 1000));
}

static int write_event(FILE *out, const trace_event *e, uint64_t origin, int device_id, int first)
{
    uint64_t dur = e->end_ns > e->start_ns ? e->end_ns - e->start_ns : 0;
    int rc = fprintf(out, "%s\n{\"name\":\"func %d\",\"cat\":\"task\",\"ph\":\"X\",\"pid\":%d,\"tid\":%u,",
                     first ? "" : ",", e->func_id, device_id, e->core);
    rc = rc < 0 ? rc : write_us(out, "ts", e->start_ns - origin);
    rc = rc < 0 ? rc : fputc(',', out);
    rc = rc < 0 ? rc : write_us(out, "dur", dur);
    rc = rc < 0 ? rc : fprintf(out, ",\"args\":{\"task\":%u,\"func_id\":%d,\"core_type\":%u}}", e->task_id,
                               e->func_id, e->core_type);
    return rc < 0 ? -1 : 0;
}

int trace_export_write(FILE *out, const trace_event *events, size_t count, int device_id)
{
    if (out == NULL || (events == NULL && count > 0))
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    uint64_t origin = earliest_start(events, count);
    int rc = fputs("{\"traceEvents\":[", out) < 0 ? -1 : 0;
    for (size_t i = 0; i < count && rc == 0; i++)
        rc = write_event(out, &events[i], origin, device_id, i == 0);
    if (rc == 0 && fputs("\n],\"displayTimeUnit\":\"ns\"}\n", out) < 0)
        rc = -1;
    if (rc != 0 || ferror(out))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "trace: writing the trace file failed");
    return 0;
}

int trace_export_path(const char *prefix, char *path)
{
    if (prefix == NULL || path == NULL)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    int n = snprintf(path, TRACE_PATH_MAX, "%s%s", prefix, TRACE_FILE_NAME);
    if (n < 0 || n >= TRACE_PATH_MAX)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "config.output_prefix: \"%s%s\" is longer than %d bytes",
                            prefix, TRACE_FILE_NAME, TRACE_PATH_MAX - 1);
    return 0;
}

int trace_export_file(const char *path, const trace_event *events, size_t count, int device_id)
{
    if (path == NULL || (events == NULL && count > 0))
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    FILE *out = fopen(path, "w");
    if (out == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "trace path \"%s\": cannot create it: %s", path,
                            strerror(errno));
    int rc = trace_export_write(out, events, count, device_id);
    if (fclose(out) != 0 && rc == 0)
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "trace path \"%s\": closing it failed", path);
    if (rc != 0)
        remove(path);
    return rc;
}
