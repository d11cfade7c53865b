/*
 * trace_record — the layout of the optional device trace buffer.
 *
 * A trace buffer is one device allocation: a 64-byte header, then records.
 * The scheduler resets the header at the start of every execution (so a
 * replay overwrites the previous one) and stamps what the execution ran
 * (serial, kernel table, generation, the image's size and task count, the
 * core split). The first DEVICE_TRACE_SCHED_RECORDS records belong to the
 * scheduler (its phases, written at fixed indexes); each core then
 * appends one task record per task it ran, claiming its index with an
 * atomic add on record_count, which the reset starts at
 * DEVICE_TRACE_SCHED_RECORDS. Records past the capacity are counted in
 * dropped and not written, so record_count may exceed capacity: readers
 * use min(record_count, capacity). src/trace exports the records.
 *
 * Version 1 buffers (no kinds, no stamps, no scheduler records) read as
 * version 2 buffers whose stamps are zero and whose records are tasks.
 */
#ifndef SIMPLER_DEVICE_TRACE_RECORD_H
#define SIMPLER_DEVICE_TRACE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#define DEVICE_TRACE_MAGIC 0x52545344u /* "DSTR" read as little-endian bytes */
#define DEVICE_TRACE_VERSION 2u

/* device_trace_record.kind */
#define DEVICE_TRACE_KIND_TASK 0u  /* a task a core ran (version 1 records are all tasks) */
#define DEVICE_TRACE_KIND_SCHED 1u /* a scheduler phase: task_id is a DEVICE_TRACE_SCHED_* */
#define DEVICE_TRACE_KIND_EMPTY 2u /* a scheduler record not written (the execution stopped early) */

/* The scheduler's phases, one record each, at these record indexes. */
#define DEVICE_TRACE_SCHED_PREPARE 0u  /* validation and restore of the image */
#define DEVICE_TRACE_SCHED_DISPATCH 1u /* seed to the last completion: dispatch and release */
/* Records reserved for the scheduler ahead of the task records: a fixed
 * number per execution, so a buffer for N tasks is N + this. */
#define DEVICE_TRACE_SCHED_RECORDS 2u

typedef struct device_trace_header {
    uint32_t magic;        /* DEVICE_TRACE_MAGIC once an execution started */
    uint32_t version;      /* DEVICE_TRACE_VERSION */
    uint32_t capacity;     /* records that fit after the header */
    uint32_t record_count; /* records claimed (atomic), scheduler records included */
    uint32_t dropped;      /* records claimed past capacity (atomic) */
    uint32_t task_count;   /* tasks of the executed image */
    uint64_t serial;       /* the execution token (kernel mode; 0 in program mode) */
    uint64_t generation;   /* the kernel table's generation */
    uint64_t kernels_addr; /* the address of the kernel table the execution used */
    uint64_t image_bytes;  /* the executed image's size, in the definition region */
    uint32_t runs;         /* executions in a row with this serial, this one included */
    uint16_t aic_count;    /* executor blocks 0..aic_count-1 are AIC cores */
    uint16_t aiv_count;    /* the next aiv_count blocks are AIV cores */
} device_trace_header;

typedef struct device_trace_record {
    uint64_t start_ns;     /* CLOCK_MONOTONIC, just before the kernel call (or the phase) */
    uint64_t end_ns;       /* just after it returned */
    uint32_t task_id;      /* tasks; the phase for scheduler records */
    int32_t func_id;       /* tasks; -1 for scheduler records */
    uint32_t core_id;      /* block index of the executor: AIC cores first */
    uint16_t core_type;    /* SIMPLER_CORE_TYPE_AIC / _AIV */
    uint16_t kind;         /* DEVICE_TRACE_KIND_* */
} device_trace_record;

_Static_assert(sizeof(device_trace_header) == 64, "trace header layout");
_Static_assert(sizeof(device_trace_record) == 32, "trace record layout");
_Static_assert(offsetof(device_trace_header, record_count) == 12, "trace header layout");
_Static_assert(offsetof(device_trace_header, serial) == 24, "trace header layout");
_Static_assert(offsetof(device_trace_header, runs) == 56, "trace header layout");
_Static_assert(offsetof(device_trace_record, kind) == 30, "trace record layout");

/* Bytes of a trace buffer holding `records` task records (and the
 * scheduler's). */
static inline uint64_t device_trace_bytes(uint32_t records)
{
    return sizeof(device_trace_header) + ((uint64_t)records + DEVICE_TRACE_SCHED_RECORDS) * sizeof(device_trace_record);
}

#endif
