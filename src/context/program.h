/*
 * program — program mode's shared steps (SPEC §6): sizing the host build
 * scratch, committing device capacity for a graph, and releasing all of
 * it. Each step has no effect when it fails, except where its comment
 * says what it leaves behind. Callers hold the context lock.
 */
#ifndef SIMPLER_CONTEXT_PROGRAM_H
#define SIMPLER_CONTEXT_PROGRAM_H

#include "context/context_internal.h"
#include "graph/requirements.h"
#include "simpler/task_args.h"

/* Makes the scratch hold at least `task_window` tasks (replacing a
 * smaller one). Returns 0, -1005 for a window out of range, or -1007
 * (the old scratch is kept). */
int program_scratch_reserve(simpler_context *ctx, uint32_t task_window);

/* The bank request a graph with these requirements needs: gm_heap, the
 * fixed gm_sm block, and the packed runtime pool (layout.h). Returns 0 or
 * -1004 when the pool size overflows. */
int program_bank_request(const graph_requirements *req, arena_bank_request *out);

/* Commits the bank and the retained temp for `req` (program mode: growth
 * re-bases). Returns 0 or the failing step's status. On failure the bank
 * may have been rolled back to empty (arena_bank_commit's contract); the
 * next run commits afresh. */
int program_capacity_commit(simpler_context *ctx, const graph_requirements *req);

/* The requirements a CallConfig implies before any graph is built
 * (prewarm): heap_bytes of heap and a full task window. */
void program_requirements_of_config(const CallConfig *config, graph_requirements *out);

/* Releases device capacity (bank, temp, trace), every resident callable,
 * then the events and streams. Returns 0 or the first failure's status;
 * what failed stays held so a retry redoes only what remains. */
int program_release_device(simpler_context *ctx);

/* Frees the host-side state (scratch, image copy). Never fails. */
void program_release_host(simpler_context *ctx);

#endif
