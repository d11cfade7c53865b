/*
 * context_internal — the one context struct behind a DeviceContextHandle,
 * shared by program mode (src/context/program_*.c) and kernel mode.
 *
 * Lifetime: create_device_context makes it empty (mode NONE, nothing
 * created); an init of either mode latches the mode (write-once, §7.1)
 * and creates the device resources; finalize_device releases them;
 * destroy_device_context frees the host struct.
 *
 * Locking: every public entry point takes `lock` for its whole body, so
 * calls on one context are serialized even when a caller forgets to.
 * Fields are read and written only under it.
 */
#ifndef SIMPLER_CONTEXT_CONTEXT_INTERNAL_H
#define SIMPLER_CONTEXT_CONTEXT_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "callable/loader.h"
#include "callable/residency.h"
#include "device/device_kernel_table.h"
#include "graph/graph_build.h"
#include "memory/arena_bank.h"
#include "memory/device_arena.h"
#include "memory/retained_temp.h"
#include "platform/platform_ops.h"
#include "simpler/runtime_c_api.h"

/* The execution-mode latch (SPEC §7.1): NONE -> PROGRAM or KERNEL, once. */
enum { CONTEXT_MODE_NONE = 0, CONTEXT_MODE_PROGRAM = 1, CONTEXT_MODE_KERNEL = 2 };

/* The context's streams. CALLER is program mode's own stand-in for the
 * caller stream of kernel mode (kernel mode leaves it NULL and uses the
 * caller's); AICPU and AICORE carry the device chain (SPEC §7.4). */
enum { CONTEXT_STREAM_CALLER = 0, CONTEXT_STREAM_AICPU = 1, CONTEXT_STREAM_AICORE = 2, CONTEXT_STREAM_COUNT = 3 };

/* The five events of the chain, in the order SPEC §7.4 records them. */
enum {
    CONTEXT_EVENT_START = 0,
    CONTEXT_EVENT_AICORE_START = 1,
    CONTEXT_EVENT_AICORE_DONE = 2,
    CONTEXT_EVENT_AICPU_DONE = 3,
    CONTEXT_EVENT_SERIAL_TAIL = 4,
    CONTEXT_EVENT_COUNT = 5
};

struct simpler_context;

/* What kernel mode plugs into the shared entry points (set by its init).
 * NULL in a program or unlatched context. */
typedef struct context_kernel_hooks {
    /* finalize_device on a kernel context (SPEC §7.3 close). */
    int (*finalize)(struct simpler_context *ctx);
    /* Nonzero while the context may not be destroyed (not Closed). */
    int (*blocks_destroy)(const struct simpler_context *ctx);
    /* Frees kernel-mode host state at destroy (may be NULL). */
    void (*destroy)(struct simpler_context *ctx);
} context_kernel_hooks;

/* Where a program-mode run spent its time, in nanoseconds (benchmarks;
 * program_run_times_get). The host's phases add up to the run after its
 * argument checks; the device's two are the scheduler's own timings,
 * inside launch_ns + wait_ns (the scheduler may start before the host's
 * enqueue call returns). */
typedef struct program_run_times {
    uint64_t host_build_ns;     /* orchestration, requirements, capacity, image write, descriptor */
    uint64_t upload_ns;         /* HOST tensors staged in, image upload, status word reset */
    uint64_t launch_ns;         /* the chain's enqueue */
    uint64_t wait_ns;           /* enqueue end to both streams idle */
    uint64_t finish_ns;         /* status word read, HOST tensors copied back */
    uint64_t device_prepare_ns; /* scheduler: restore and validation of the image */
    uint64_t device_graph_ns;   /* scheduler: seed to last completion */
} program_run_times;

typedef struct simpler_context {
    pthread_mutex_t lock;
    int mode;                  /* CONTEXT_MODE_*; written only by context_latch */
    int initialized;           /* program mode: init done and not finalized */
    int device_id;             /* the device init selected */
    const platform_ops *ops;   /* the device; platform_ops_simdev() unless a test swapped it */
    platform_device_info device_info;

    platform_stream *streams[CONTEXT_STREAM_COUNT];
    platform_event *events[CONTEXT_EVENT_COUNT];

    arena_bank bank;
    retained_temp temp;
    device_arena trace;        /* per-task trace records of the last traced run */
    residency_table residency;
    device_kernel_table *kernel_tables[SIMPLER_MAX_CALLABLES_PROGRAM]; /* per slot, or NULL */
    callable_dlopen_counts dlopen_counts;
    int last_device_error;     /* latest failing device code (platform_status_keep) */
    uint64_t last_runtime_base; /* program mode: runtime arena of the last run that completed, or 0 */
    program_run_times run_times; /* program mode: host phases of the last run (valid with last_runtime_base) */

    graph_scratch *scratch;    /* host build storage, sized by task window */
    void *image;               /* host copy of the last graph image */
    size_t image_capacity;

    const context_kernel_hooks *kernel_hooks;
    void *kernel_state;        /* kernel mode's own state (owned by it) */
    /* The CONFIGURE recorded before init (SPEC §7.2), kept by the context
     * because it comes before kernel mode's state exists. */
    int kernel_configured;
    SimplerKernelCtxControl kernel_configure;
} simpler_context;

#endif
