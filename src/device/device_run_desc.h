/*
 * device_run_desc — everything one device execution needs, as plain data
 * passed BY VALUE to both device kernels.
 *
 * simdev copies launch arguments at enqueue and a captured launch replays
 * those bytes, so the descriptor holds no host pointer that may change
 * between replays: device addresses of the frozen regions (as integers)
 * and their capacities, the address of the caller's kernel table (stable
 * host memory owned by a loaded callable) and a fault function (a plain
 * function). The scheduler's launch appends the graph image inline after
 * the descriptor (kernel mode) or finds it already in the definition
 * region (program mode, inline bytes 0); see docs/device.md.
 */
#ifndef SIMPLER_DEVICE_RUN_DESC_H
#define SIMPLER_DEVICE_RUN_DESC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "device/device_kernel_table.h"
#include "graph/requirements.h"
#include "platform/platform_kernel_fault.h"

#define DEVICE_RUN_DESC_VERSION 1u
/* Cores one execution may use: one handshake slot each. */
#define DEVICE_CORE_MAX GRAPH_CORE_SLOT_MAX

typedef struct device_run_desc {
    uint32_t version;          /* DEVICE_RUN_DESC_VERSION */
    uint32_t desc_bytes;       /* sizeof(device_run_desc) */
    uint32_t aic_count;        /* cores 0..aic_count-1 are AIC (device_run_desc_block_core) */
    uint32_t aiv_count;        /* the next aiv_count cores are AIV */
    uint32_t task_count;       /* tasks of the image: places the handshake slots */
    uint32_t inline_bytes;     /* image bytes after the descriptor, or 0 */
    uint64_t image_bytes;      /* the image's size (inline or in the definition region) */
    uint64_t generation;       /* must equal kernels->generation */
    uint64_t heap_base, heap_bytes;             /* graph heap */
    uint64_t temp_base, temp_bytes;             /* retained temp (staged HOST tensors) */
    uint64_t runtime_base, runtime_bytes;       /* runtime arena (requirements.h layout) */
    uint64_t definition_base, definition_bytes; /* where the image is restored */
    uint64_t scheduler_base, scheduler_bytes;   /* ready queues */
    uint64_t trace_base, trace_bytes;           /* 0, 0: no trace (trace_record.h) */
    uint64_t status_addr;      /* an int32_t in device memory: the device status */
    const device_kernel_table *kernels; /* NULL only when deferred */
    platform_fault_fn report_fault; /* NULL: status word only, no stream fault */
    uint64_t gate_addr;        /* kernel mode: the context's owner word (kernel_packet.h); 0 = ungated */
    uint64_t serial;           /* kernel mode: this execution's token, the owner word's value while it runs */
    uint32_t deferred;         /* 1: the executor of an argument-slot launch, whose task count and kernel
                                  table the scheduler publishes in the runtime header at execution time */
    uint16_t aic_started;      /* executor blocks that start, by core type (docs/device.md, "Started */
    uint16_t aiv_started;      /* cores"); both 0: every core's block starts */
    uint64_t seal;             /* kernel mode: device_run_desc_seal_of the rest, set last on the host
                                  (docs/device.md, "The descriptor of a kernel-mode packet") */
} device_run_desc;

_Static_assert(sizeof(device_run_desc) % 8 == 0, "an inline image after the descriptor stays 8-aligned");

/* The seal of a kernel-mode descriptor (and of the gate's and the status
 * check's arguments, kernel_packet.h): a checksum over every word but
 * the seal itself, computed by the host once the serial and the started
 * cores are set. The scheduler and the executor get their own copies of
 * the launch arguments and verify them before they read a field: a word
 * changed on the way (the gate word, the serial, a core count) would
 * otherwise skip the gate or leave one side waiting for the other. Each
 * word is mixed in at its own rotation, so changing any one field always
 * changes the seal; the multiply at the end spreads it. Not a MAC: it
 * catches corruption, not a forger. */
static inline uint64_t device_seal_words(const void *p, size_t sealed_bytes)
{
    const unsigned char *bytes = (const unsigned char *)p;
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (size_t at = 0; at < sealed_bytes; at += sizeof(uint64_t)) {
        uint64_t w;
        memcpy(&w, bytes + at, sizeof(w)); /* one load; no aliasing question */
        h = ((h << 7) | (h >> 57)) ^ w;
    }
    return (h * 0xff51afd7ed558ccdu) | 1u; /* never 0: an unsealed block never passes */
}

static inline uint64_t device_run_desc_seal_of(const device_run_desc *d)
{
    return device_seal_words(d, offsetof(device_run_desc, seal));
}

static inline int device_run_desc_sealed(const device_run_desc *d)
{
    return d->seal == device_run_desc_seal_of(d);
}

_Static_assert(offsetof(device_run_desc, seal) + sizeof(uint64_t) == sizeof(device_run_desc) &&
                   offsetof(device_run_desc, seal) % sizeof(uint64_t) == 0,
               "the seal is the last word and covers every word before it");

/* Bytes of the runtime arena one execution of the descriptor touches:
 * header, task state and every handshake slot (requirements.h); the chain
 * zeroes exactly these before the kernels start. */
static inline uint64_t device_run_desc_arena_bytes(const device_run_desc *d)
{
    return graph_runtime_arena_bytes(d->task_count);
}

/* Executor blocks the chain launches. A launch that knows its graph (an
 * eager kernel-mode launch, captured or not; a program-mode run) starts
 * only the cores the graph can ever keep busy, the first aic_started AIC
 * cores and the first aiv_started AIV cores; aic_count and aiv_count stay
 * the capacity and the core numbering. One that does not (an argument-slot
 * launch, whose graph is written after capture) starts every core. */
static inline uint32_t device_run_desc_blocks(const device_run_desc *d)
{
    uint32_t started = (uint32_t)d->aic_started + d->aiv_started;
    return started != 0 ? started : d->aic_count + d->aiv_count;
}

/* The core executor block `block` serves: AIC blocks first, then AIV
 * ones, numbered as among all the configured cores. An argument-slot
 * launch (deferred, every core started) shifts them by one: block 0
 * serves the last core, block b core b - 1. Simdev runs block 0 of a
 * multi-block launch on the launching thread after it woke the pool
 * threads for the others, and on the AICore CPU they share, the woken
 * threads ran first: block 0 started last, long after the scheduler had
 * posted the first task to core 0, which dispatch serves first. The
 * last core is the one dispatch
 * serves last. */
static inline uint32_t device_run_desc_block_core(const device_run_desc *d, uint32_t block)
{
    uint32_t cores = (uint32_t)d->aic_count + d->aiv_count;
    if (d->aic_started + d->aiv_started == 0)
        return d->deferred && cores != 0 ? (block + cores - 1) % cores : block;
    if (block < d->aic_started)
        return block;
    return d->aic_count + (block - d->aic_started);
}

/* Whether core `core`'s block starts in this execution. */
static inline int device_run_desc_core_started(const device_run_desc *d, uint32_t core)
{
    if (d->aic_started + d->aiv_started == 0)
        return 1;
    return core < d->aic_count ? core < d->aic_started : core - d->aic_count < d->aiv_started;
}

/* What the chain zeroes before the execution: header and used slots. */
static inline uint64_t device_run_desc_clear_bytes(const device_run_desc *d)
{
    return graph_runtime_clear_bytes(d->aic_count + d->aiv_count);
}

#endif
