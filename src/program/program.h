/*
 * program — program mode's state and shared steps: sizing the host build
 * scratch, committing device capacity for a graph, and releasing all of
 * it. Each step has no effect when it fails, except where its comment
 * says what it leaves behind. Callers hold the context lock.
 *
 * Program mode owns its device: simpler_init selects it, simpler_run
 * builds, commits (capacity may grow between runs), runs to completion
 * and copies back, finalize_device releases everything and resets the
 * device.
 */
#ifndef SIMPLER_PROGRAM_PROGRAM_H
#define SIMPLER_PROGRAM_PROGRAM_H

#include "context/context.h"
#include "device/device_kernel_table.h"
#include "graph/requirements.h"
#include "simpler/task_args.h"

/* Program mode's state behind ctx->mode_state, created at the first
 * simpler_init and freed at destroy. */
typedef struct program_state {
    int initialized;             /* init done and not finalized */
    device_kernel_table *kernel_tables[SIMPLER_MAX_CALLABLES_PROGRAM]; /* per slot, or NULL */
    uint64_t last_runtime_base;  /* runtime arena of the last run that completed, or 0 */
    SimplerRunTimes run_times;   /* the last run's phases (valid with last_runtime_base) */
    uint64_t exec_marks[3];      /* the last execute's clock: image uploaded, chain enqueued, streams idle */
    void *image;                 /* host copy of the last graph image */
    size_t image_capacity;
} program_state;

/* The table simpler_init latches (program_init.c). */
extern const context_mode_ops program_mode_ops;

/* The state of a program context (NULL before its first init, or when
 * the context is not a program context). */
static inline program_state *program_state_of(const simpler_context *ctx)
{
    return (program_state *)context_mode_state(ctx, CONTEXT_MODE_PROGRAM);
}

/* Nonzero for an initialized program context: every entry but init
 * requires it. */
int program_initialized(const simpler_context *ctx);

/* A scratch for at least `task_window` tasks in *scratch: kept when it
 * holds that many, else replaced by a new one (the one it held is not
 * freed: the caller owns both). Returns 0, -1005 for a window out of
 * range, or -1007 (*scratch unchanged). */
int program_scratch_reserve(graph_scratch **scratch, uint32_t task_window);

/* The bank request a graph with these requirements needs: gm_heap, the
 * fixed gm_sm block, and the packed runtime pool (layout.h). Returns 0 or
 * -1004 when the pool size overflows. */
int program_bank_request(const SimplerGraphRequirements *req, arena_bank_request *out);

/* Commits the bank and the retained temp for `req` (program mode: growth
 * re-bases). Returns 0 or the failing step's status. On failure the bank
 * may have been rolled back to empty (arena_bank_commit's contract); the
 * next run commits afresh. */
int program_capacity_commit(simpler_context *ctx, const SimplerGraphRequirements *req);

/* The requirements a CallConfig implies before any graph is built
 * (prewarm): heap_bytes of heap and a full task window. */
void program_requirements_of_config(const CallConfig *config, SimplerGraphRequirements *out);

/* Releases device capacity (bank, temp, trace), every resident callable,
 * then the events and streams. Returns 0 or the first failure's status;
 * what failed stays held so a retry redoes only what remains. */
int program_release_device(simpler_context *ctx);

/* Frees the host-side state (scratch, image copy). Never fails. */
void program_release_host(simpler_context *ctx);

#endif
