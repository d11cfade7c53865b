/*
 * context_internal — the one context struct behind a DeviceContextHandle:
 * what both execution modes share, plus the mode table and the state of
 * the mode the context latched (src/program/ or src/kernel/).
 *
 * Lifetime: create_device_context makes it empty (no mode, nothing
 * created); an init of either mode latches the mode (write-once),
 * installing that mode's context_mode_ops, and creates the device
 * resources; finalize_device releases them through the table;
 * destroy_device_context asks the table whether it may, releases what
 * the mode holds, and frees the host struct.
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
#include "graph/graph_build.h"
#include "memory/arena_bank.h"
#include "memory/device_arena.h"
#include "memory/retained_temp.h"
#include "platform/platform_ops.h"
#include "trace/trace_host.h"
#include "simpler/runtime_c_api.h"

/* The execution modes a context can latch, once. */
enum { CONTEXT_MODE_PROGRAM = 1, CONTEXT_MODE_KERNEL = 2 };

/* The context's own streams, which carry the device chain. Kernel mode's
 * chain also runs on the caller's stream, which it borrows per launch;
 * program mode needs no third stream (it synchronizes its two). */
enum { CONTEXT_STREAM_AICPU = 0, CONTEXT_STREAM_AICORE = 1, CONTEXT_STREAM_COUNT = 2 };

/* The five events of kernel mode's chain, in the order it records them
 * (program mode creates none). */
enum {
    CONTEXT_EVENT_START = 0,
    CONTEXT_EVENT_AICORE_START = 1,
    CONTEXT_EVENT_AICORE_DONE = 2,
    CONTEXT_EVENT_AICPU_DONE = 3,
    CONTEXT_EVENT_SERIAL_TAIL = 4,
    CONTEXT_EVENT_COUNT = 5
};

struct simpler_context;

/* What a mode plugs into the shared entry points. Each mode defines one
 * table (program_mode_ops, kernel_mode_ops) and installs it with
 * context_latch; the shared code calls a mode only through it. Every
 * hook runs with the context lock held (destroy: after the last user). */
typedef struct context_mode_ops {
    int mode; /* CONTEXT_MODE_* */
    /* finalize_device. Returns 0 or the documented status. */
    int (*finalize)(struct simpler_context *ctx);
    /* Nonzero while the mode holds a device and resources on it. */
    int (*holds_resources)(const struct simpler_context *ctx);
    /* Nonzero while the context may not be destroyed. */
    int (*blocks_destroy)(const struct simpler_context *ctx);
    /* Releases everything the mode holds, device and host, at destroy.
     * Never fails (a device failure is only logged). */
    void (*destroy)(struct simpler_context *ctx);
} context_mode_ops;

typedef struct simpler_context {
    pthread_mutex_t lock;
    const context_mode_ops *mode; /* NULL until latched; written only by context_latch */
    void *mode_state;          /* the latched mode's own state (owned by it), or NULL */
    int device_id;             /* the device init selected */
    /* The calling thread's current device before this entry point first
     * selected the context's device (context_select_device); restored by
     * context_unlock, so no entry point leaves the caller switched. */
    int caller_device;
    int caller_device_saved;
    const platform_ops *ops;   /* the device; platform_ops_simdev() unless a test swapped it */
    platform_device_info device_info;

    platform_stream *streams[CONTEXT_STREAM_COUNT];
    platform_event *events[CONTEXT_EVENT_COUNT];

    arena_bank bank;
    retained_temp temp;
    device_arena trace;        /* per-task trace records of the last traced execution */
    trace_host_log trace_host; /* the host spans leading to a traced execution (trace_host.h) */
    device_arena arg_slots;    /* kernel mode's argument slots, one allocation for all */
    residency_table residency;
    callable_dlopen_counts dlopen_counts;
    int last_device_error;     /* latest failing device code (platform_status_keep) */
    graph_scratch *scratch;    /* host build storage, sized by task window */

    /* The context control (simpler_kernel_mode_ctx_control) CONFIGURE
     * recorded before any init: it precedes the latch, so the context
     * keeps it, and kernel init reads it. */
    int control_configured;
    /* An init was refused since the CONFIGURE was recorded: a different
     * tuple may then replace it (the refusal may name one of its fields). */
    int control_replaceable;
    SimplerKernelCtxControl control;
} simpler_context;

#endif
