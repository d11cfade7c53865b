/*
 * graph_build — runs an orchestration entry on the host and collects the
 * graph it describes, on scratch storage allocated once.
 *
 * Create a graph_scratch with the capacities of the largest graph you will
 * build; each graph_build_run resets it and builds into it without any
 * allocation, so the kernel-mode launch can build on its hot path.
 */
#ifndef SIMPLER_GRAPH_BUILD_H
#define SIMPLER_GRAPH_BUILD_H

#include "graph/graph.h"
#include "graph/graph_limits.h"
#include "simpler/orchestration.h"

typedef struct graph_scratch graph_scratch;

/* Allocates scratch for `limits` (checked by graph_limits_check). Returns
 * 0 and sets *out; PTO_RUNTIME_ERR_INVALID_ARGUMENT for NULL or bad limits;
 * PTO_RUNTIME_ERR_OUT_OF_MEMORY when a host allocation fails. On failure *out
 * is unchanged and nothing is allocated. */
int graph_scratch_create(const graph_limits *limits, graph_scratch **out);
/* Frees scratch (NULL is a no-op); any graph it holds goes with it. */
void graph_scratch_destroy(graph_scratch *scratch);
const graph_limits *graph_scratch_limits(const graph_scratch *scratch);

/* Makes later builds on `scratch` record why each edge exists
 * (graph.fanin_kind: RAW, WAR, WAW bits), for tools that draw the graph;
 * the runtime's builds do not ask. Returns 0 or
 * PTO_RUNTIME_ERR_OUT_OF_MEMORY (the scratch is then as it was). */
int graph_scratch_record_kinds(graph_scratch *scratch);

/* The checks graph_build_run makes on its `args`: 0 or
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT. Reads only. */
int graph_call_args_check(const ChipStorageTaskArgs *args);

/* Checks `args` (counts in range; every tensor a valid view in the HOST or
 * DEVICE address space with reserved bytes zero), stages the HOST tensors,
 * then runs `entry(orch, args)` and collects its tasks. Returns 0 and sets
 * *out (may be NULL) to the graph, valid until the next run or destroy.
 * Errors, after which the scratch holds no graph:
 *   PTO_RUNTIME_ERR_INVALID_ARGUMENT  NULL, bad args, an orchestration call with
 *                               bad arguments, or the entry returned a
 *                               nonzero value outside -1..-999;
 *   -1..-999                    the entry's own return (its failure code);
 *   PTO_RUNTIME_ERR_INVALID_STATE     add/submit without args_begin;
 *   PTO_RUNTIME_ERR_CAPACITY_EXCEEDED a limit (tasks, args, edges, readers, heap,
 *                               temp) would be exceeded.
 * The first failing orchestration call decides the status. Not thread-safe
 * per scratch; distinct scratches are independent. Allocates nothing. */
int graph_build_run(graph_scratch *scratch, SimplerOrchEntryFn entry, const ChipStorageTaskArgs *args,
                    const graph **out);

/* graph_build_run for `args` that already passed graph_call_args_check
 * (task_args_check): the entry points validate their arguments before
 * any effect, so the build does not check them again. Same returns,
 * except that bad args are not detected. */
int graph_build_from_checked(graph_scratch *scratch, SimplerOrchEntryFn entry, const ChipStorageTaskArgs *args,
                             const graph **out);

/* Whether a build that returned `rc` ran out of something a scratch for
 * a larger task window has more of (tasks, argument records, edges, the
 * TensorMap's nodes): rc is -1004 and the limit it hit was none of the
 * graph heap, the staged bytes or the view handles, which a window does
 * not grow. The loops that retry a build with twice the window ask this
 * first. */
int graph_build_outgrew_window(const graph_scratch *scratch, int rc);

#endif
