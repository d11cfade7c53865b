#include "common/error.h"
#include "graph/requirements.h"

#include <stddef.h>

#include "graph/graph_image.h"
#include "graph/graph_limits.h"
#include "graph/graph_status.h"

void graph_requirements_for_window(uint32_t window, SimplerGraphRequirements *out)
{
    graph_image_header h;
    out->gm_heap_bytes = 0;
    out->runtime_arena_bytes = graph_runtime_arena_bytes(window);
    if (graph_image_layout(window, window * GRAPH_ARGS_PER_TASK, window * GRAPH_EDGES_PER_TASK, 0,
                           window * GRAPH_ARGS_PER_TASK, &h) == 0)
        out->graph_definition_bytes = h.image_bytes;
    else
        out->graph_definition_bytes = 0;
    out->scheduler_state_bytes = graph_scheduler_state_bytes(window);
    out->retained_temp_bytes = 0;
    out->task_count = window;
}

int graph_requirements_of(const graph *g, SimplerGraphRequirements *out)
{
    size_t image = graph_image_size(g);
    if (image == 0)
        return simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                            "the graph of %u tasks, %u arguments and %u edges: its image exceeds 4 GiB of offsets",
                            g->task_count, g->arg_count, g->edge_count);
    out->gm_heap_bytes = g->heap_bytes;
    out->runtime_arena_bytes = graph_runtime_arena_bytes(g->task_count);
    out->graph_definition_bytes = image;
    out->scheduler_state_bytes = graph_scheduler_state_bytes(g->task_count);
    out->retained_temp_bytes = g->temp_bytes;
    out->task_count = g->task_count;
    return 0;
}
