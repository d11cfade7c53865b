/*
 * graph_kernels — the host-side check that a built graph can run: every
 * task names a kernel of its callable, on that kernel's core type, and
 * the cores the execution gets include one of each type the graph uses.
 *
 * Both modes run it after the host build and before anything is staged
 * or enqueued, and simpler_graph_requirements runs it without a core
 * count, so a graph the device would refuse (a missing kernel, a core
 * type mismatch, no core of a task's type, no task at all) is refused
 * on the host with a reason and no effect. Reads only; allocates
 * nothing.
 */
#ifndef SIMPLER_GRAPH_GRAPH_KERNELS_H
#define SIMPLER_GRAPH_GRAPH_KERNELS_H

#include <stdint.h>

#include "callable/loader.h"
#include "graph/graph.h"

/* Core counts that are not known (sizing without a context). */
#define GRAPH_CORES_ANY UINT32_MAX

/* Returns 0; PTO_RUNTIME_ERR_INVALID_ARGUMENT (-1005) when task i names a
 * func_id the callable lacks or a kernel of the other core type, or,
 * given core counts (an execution, not sizing), when the graph has no
 * task (an execution runs at least one);
 * PTO_RUNTIME_ERR_UNSUPPORTED (-1001) when a task's core type has no core
 * among `aic_count` / `aiv_count` (GRAPH_CORES_ANY skips that check).
 * A refusal records its reason naming the task, func_id and core type. */
int graph_kernels_check(const loaded_callable *lc, const graph *g, uint32_t aic_count, uint32_t aiv_count);

#endif
