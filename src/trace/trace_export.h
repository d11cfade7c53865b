/*
 * trace_export — writes per-task trace records as Chrome / Perfetto trace
 * JSON (the "JSON Array/Object Format" that chrome://tracing and
 * ui.perfetto.dev open).
 *
 * Output: one object {"traceEvents":[...],"displayTimeUnit":"ns"} whose
 * events are complete events ("ph":"X"), one per record: "pid" the device
 * id, "tid" the core the task ran on, "name" "func <func_id>", "ts" the
 * start and "dur" the duration in microseconds (three decimals, so
 * nanoseconds survive), with "ts" counted from the earliest start of the
 * run; "args" carries task, func_id and core_type. Events are written in
 * record order.
 */
#ifndef SIMPLER_TRACE_TRACE_EXPORT_H
#define SIMPLER_TRACE_TRACE_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One finished task as the trace sees it (the device's record, decoded). */
typedef struct trace_event {
    uint32_t core;      /* core index on the device */
    uint32_t core_type; /* SIMPLER_CORE_TYPE_AIC / _AIV */
    uint32_t task_id;
    int32_t func_id;
    uint64_t start_ns;
    uint64_t end_ns;    /* >= start_ns; a smaller value is written as dur 0 */
} trace_event;

/* The file name appended to CallConfig.output_prefix. */
#define TRACE_FILE_NAME "trace.json"
/* Longest path trace_export_path builds, NUL included. */
#define TRACE_PATH_MAX 512

/* Writes the JSON for `count` events (events may be NULL when count is
 * 0) to `out`. Returns 0; PTO_RUNTIME_ERR_INVALID_ARGUMENT for a NULL out,
 * or NULL events with count > 0; PTO_RUNTIME_ERR_INTERNAL (after a log
 * line) when a write fails. */
int trace_export_write(FILE *out, const trace_event *events, size_t count, int device_id);

/* "<prefix>trace.json" into path[TRACE_PATH_MAX]. Returns 0, or
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT when a pointer is NULL or the result
 * does not fit (path then unspecified). */
int trace_export_path(const char *prefix, char *path);

/* Creates (truncates) `path` and writes the JSON there. Returns 0,
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT for NULL arguments, or
 * PTO_RUNTIME_ERR_INTERNAL (logged) when the file cannot be written; a
 * partial file is removed. */
int trace_export_file(const char *path, const trace_event *events, size_t count, int device_id);

#endif
