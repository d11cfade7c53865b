/*
 * trace_export — writes an execution's trace as Chrome / Perfetto trace
 * JSON (the "JSON Object Format" that ui.perfetto.dev and
 * chrome://tracing open). docs/trace.md describes the file.
 *
 * Output: one object {"traceEvents":[...],"displayTimeUnit":"ns",
 * "otherData":{...}}. Process `device_id` ("simpler device N") holds one
 * thread (track) per core that ran a task ("AIC i" / "AIV j", named by
 * metadata events), a "scheduler" track and a "host" track. Each task is
 * a complete event ("ph":"X") on its core named after its kernel ("func
 * <func_id>" when the image names none); each scheduler phase and host
 * span is a complete event on its track; each dependency whose two tasks
 * are both present is one flow ("ph":"s" on the predecessor, "ph":"f"
 * with "bp":"e" on the successor, one id per edge). "ts" and "dur" are
 * microseconds with three decimals (nanoseconds survive), "ts" counted
 * from the earliest event written.
 */
#ifndef SIMPLER_TRACE_TRACE_EXPORT_H
#define SIMPLER_TRACE_TRACE_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* trace_event.kind */
#define TRACE_EVENT_TASK 0u  /* a task a core ran */
#define TRACE_EVENT_SCHED 1u /* a scheduler phase: task_id is a DEVICE_TRACE_SCHED_* */

/* The track ("tid") numbers of the tracks that are not cores. */
#define TRACE_TID_SCHEDULER 1000u
#define TRACE_TID_HOST 1001u

/* One finished task or scheduler phase as the trace sees it (the device's
 * record, decoded). */
typedef struct trace_event {
    uint32_t core;      /* core index on the device (tasks) */
    uint32_t core_type; /* SIMPLER_CORE_TYPE_AIC / _AIV */
    uint32_t task_id;   /* the task; the phase for TRACE_EVENT_SCHED */
    int32_t func_id;
    uint64_t start_ns;
    uint64_t end_ns;    /* >= start_ns; a smaller value is written as dur 0 */
    uint32_t kind;      /* TRACE_EVENT_* */
} trace_event;

/* A span the host measured (build, upload, launch, wait, ...). */
typedef struct trace_span {
    const char *name;   /* a string with static storage */
    uint64_t start_ns;
    uint64_t end_ns;
} trace_span;

/* The name of func_id's kernel, or NULL / "" when the image names none. */
typedef const char *(*trace_kernel_name_fn)(void *user, int32_t func_id);

/* Everything one file holds. Arrays may be NULL when their count is 0. */
typedef struct trace_run {
    int device_id;                /* the process id of every event */
    const trace_event *events;
    size_t event_count;
    const uint32_t *edges;        /* edge_count (predecessor, successor) task id pairs */
    size_t edge_count;
    trace_kernel_name_fn kernel_name; /* NULL: every task is "func <func_id>" */
    void *user;
    const trace_span *host;
    size_t host_count;
    uint32_t aic_count;           /* cores below are AIC; 0: name each core by its record's core type */
    uint32_t task_count;          /* tasks of the executed graph (otherData) */
    uint64_t serial;              /* the execution's token (otherData) */
    uint32_t runs;                /* executions in a row of that token (otherData) */
    uint32_t records_dropped;     /* task records the buffer could not hold (otherData) */
    uint32_t host_dropped;        /* host spans the log could not hold (otherData) */
    uint32_t graph_read;          /* 1: the edges are the executed graph's (otherData "dependencies") */
} trace_run;

/* The file name appended to CallConfig.output_prefix. */
#define TRACE_FILE_NAME "trace.json"
/* Longest path trace_export_path builds, NUL included. */
#define TRACE_PATH_MAX 512

/* Writes the JSON of `run` to `out`. Returns 0;
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT for a NULL out or run, or an array that
 * is NULL with a nonzero count, and (after a reason) when a write fails;
 * PTO_RUNTIME_ERR_OUT_OF_MEMORY when the task index cannot be had. */
int trace_export_write_run(FILE *out, const trace_run *run);

/* trace_export_write_run of `count` task events only (no names, edges
 * or host spans). */
int trace_export_write(FILE *out, const trace_event *events, size_t count, int device_id);

/* "<prefix>trace.json" into path[TRACE_PATH_MAX]. Returns 0, or
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT when a pointer is NULL or the result
 * does not fit (path then unspecified). */
int trace_export_path(const char *prefix, char *path);

/* Writes the JSON of `run` to `path`: a regular file there with no
 * other hard link (or none) is replaced only once the whole JSON is
 * written (through a new file beside it, with its mode, renamed over
 * it); anything else (a symbolic link, a FIFO, a device, a file with
 * other links, a path too long for the new file's name) is written in
 * place through the name. Returns 0, a status of trace_export_write_run, or
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT (with a reason) when the file cannot
 * be created, written or renamed; a failed replace leaves what was at
 * `path` as it was and no new file, a failed write in place may leave it
 * partly written. */
int trace_export_file_run(const char *path, const trace_run *run);

/* trace_export_file_run of `count` task events only. */
int trace_export_file(const char *path, const trace_event *events, size_t count, int device_id);

#endif
