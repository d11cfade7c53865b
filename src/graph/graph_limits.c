#include "graph/graph_limits.h"

#include <stddef.h>

#include "common/error.h"
#include "common/task_args_check.h"
#include "graph/graph_image.h"
#include "graph/graph_status.h"
#include "simpler/callable.h"
#include "simpler/orchestration.h"

_Static_assert(GRAPH_TASK_WINDOW_MAX == CALL_CONFIG_TASK_WINDOW_MAX, "one bound for the task window");
_Static_assert(GRAPH_DEFAULT_TASK_WINDOW >= 1 && GRAPH_DEFAULT_TASK_WINDOW <= GRAPH_TASK_WINDOW_MAX,
               "the default window is a valid window");
/* Bounds the orchestration header restates for binaries that cannot
 * include the callable format. */
_Static_assert(GRAPH_FUNC_ID_LIMIT == SIMPLER_CALLABLE_FUNC_ID_LIMIT, "one func_id bound");
_Static_assert(SIMPLER_MAX_TASK_ARGS == SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE, "a task's args fit a signature");
_Static_assert(SIMPLER_CORE_TYPE_AIC == 0 && SIMPLER_CORE_TYPE_AIV == 1, "core types agree");

int graph_limits_for_window(uint32_t task_window, uint64_t heap_bytes_max, uint64_t temp_bytes_max,
                            graph_limits *out)
{
    if (out == NULL || task_window == 0 || task_window > GRAPH_TASK_WINDOW_MAX)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "task_window = %u: must be 1..%u", task_window,
                            (unsigned)GRAPH_TASK_WINDOW_MAX);
    out->task_max = task_window;
    out->arg_max = task_window * GRAPH_ARGS_PER_TASK;
    out->edge_max = task_window * GRAPH_EDGES_PER_TASK;
    out->reader_max = task_window * GRAPH_READERS_PER_TASK;
    out->heap_bytes_max = heap_bytes_max;
    out->temp_bytes_max = temp_bytes_max;
    return 0;
}

/* The pools are indexed by uint32_t with UINT32_MAX reserved as "none",
 * and the segment pool holds 2 * arg_max + 2 nodes. */
#define POOL_MAX (UINT32_MAX / 4u)

int graph_limits_check(const graph_limits *limits)
{
    const char *fmt = "graph limits: %s = %u: must be 1..%u";
    if (limits == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "graph limits: NULL");
    if (limits->task_max == 0 || limits->task_max > GRAPH_TASK_WINDOW_MAX)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, fmt, "task_max", limits->task_max,
                            (unsigned)GRAPH_TASK_WINDOW_MAX);
    if (limits->arg_max == 0 || limits->arg_max > POOL_MAX)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, fmt, "arg_max", limits->arg_max, POOL_MAX);
    if (limits->edge_max == 0 || limits->edge_max > POOL_MAX)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, fmt, "edge_max", limits->edge_max, POOL_MAX);
    if (limits->reader_max == 0 || limits->reader_max > POOL_MAX)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, fmt, "reader_max", limits->reader_max, POOL_MAX);
    return 0;
}
