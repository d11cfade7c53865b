/*
 * trace_record — the layout of the optional device trace buffer.
 *
 * A trace buffer is one device allocation: a 64-byte header, then records.
 * The scheduler resets the header at the start of every execution (so a
 * replay overwrites the previous one); each core appends one record per
 * task it ran, claiming its index with an atomic add on record_count.
 * Records past the capacity are counted in dropped and not written, so a
 * record's index may exceed capacity only in record_count: readers use
 * min(record_count, capacity). src/trace exports the records.
 */
#ifndef SIMPLER_DEVICE_TRACE_RECORD_H
#define SIMPLER_DEVICE_TRACE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#define DEVICE_TRACE_MAGIC 0x52545344u /* "DSTR" read as little-endian bytes */
#define DEVICE_TRACE_VERSION 1u

typedef struct device_trace_header {
    uint32_t magic;        /* DEVICE_TRACE_MAGIC once an execution started */
    uint32_t version;      /* DEVICE_TRACE_VERSION */
    uint32_t capacity;     /* records that fit after the header */
    uint32_t record_count; /* records claimed (atomic) */
    uint32_t dropped;      /* records claimed past capacity (atomic) */
    uint32_t reserved[11];
} device_trace_header;

typedef struct device_trace_record {
    uint64_t start_ns;     /* CLOCK_MONOTONIC, just before the kernel call */
    uint64_t end_ns;       /* just after it returned */
    uint32_t task_id;
    int32_t func_id;
    uint32_t core_id;      /* block index of the executor: AIC cores first */
    uint32_t core_type;    /* SIMPLER_CORE_TYPE_AIC / _AIV */
} device_trace_record;

_Static_assert(sizeof(device_trace_header) == 64, "trace header layout");
_Static_assert(sizeof(device_trace_record) == 32, "trace record layout");
_Static_assert(offsetof(device_trace_header, record_count) == 12, "trace header layout");

/* Bytes of a trace buffer holding `records` records. */
static inline uint64_t device_trace_bytes(uint32_t records)
{
    return sizeof(device_trace_header) + (uint64_t)records * sizeof(device_trace_record);
}

#endif
