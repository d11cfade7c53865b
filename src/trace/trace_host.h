/*
 * trace_host — the host spans of a traced execution: a fixed log of at
 * most TRACE_HOST_SPAN_MAX spans in the context (no allocation), filled by
 * the mode that drives the execution and exported with its device
 * records (trace_device.h).
 *
 * Program mode logs one run's phases (build, upload, launch, wait, copy
 * back) and marks the log as belonging to any execution: the export
 * follows the run at once. Kernel mode logs what the host did since the
 * previous launch (write_args' build and store, a launch's build and
 * enqueue) and closes the log with the launch's serial: the spans are
 * exported with the first execution that serial runs (runs == 1 in the
 * device header), the eager execution or the first replay of a captured
 * launch. A span past the log's room is counted in dropped.
 */
#ifndef SIMPLER_TRACE_TRACE_HOST_H
#define SIMPLER_TRACE_TRACE_HOST_H

#include <stdint.h>

#include "trace/trace_export.h"

/* Spans one execution's log holds: the longest sequence is kernel mode's
 * write_args (build, store) then launch_slot (enqueue), or program mode's
 * five phases; the rest is headroom for a retried call. */
#define TRACE_HOST_SPAN_MAX 8u

typedef struct trace_host_log {
    uint64_t serial;     /* the execution the spans lead to, once closed */
    uint32_t count;      /* spans held */
    uint32_t dropped;    /* spans past TRACE_HOST_SPAN_MAX */
    uint32_t closed;     /* 1: complete; the next span starts a new log */
    uint32_t any_serial; /* 1: belongs to whatever execution the buffer holds (program mode) */
    trace_span spans[TRACE_HOST_SPAN_MAX];
} trace_host_log;

/* Appends a span (a closed log is emptied first). `name` has static
 * storage. */
static inline void trace_host_add(trace_host_log *log, const char *name, uint64_t start_ns, uint64_t end_ns)
{
    if (log->closed) {
        log->count = 0;
        log->dropped = 0;
        log->closed = 0;
        log->any_serial = 0;
    }
    if (log->count == TRACE_HOST_SPAN_MAX) {
        log->dropped++;
        return;
    }
    log->spans[log->count++] = (trace_span){name, start_ns, end_ns};
}

/* Marks the log complete, as leading to execution `serial` (any_serial:
 * to whatever execution the buffer holds at export). */
static inline void trace_host_close(trace_host_log *log, uint64_t serial, uint32_t any_serial)
{
    log->serial = serial;
    log->any_serial = any_serial;
    log->closed = 1;
}

/* Forgets the spans (a call that failed leaves none behind). */
static inline void trace_host_reset(trace_host_log *log)
{
    log->count = 0;
    log->dropped = 0;
    log->closed = 0;
    log->any_serial = 0;
}

#endif
