#include "graph/requirements.h"

#include <stddef.h>

#include "graph/graph_status.h"

int graph_requirements_of(const graph *g, SimplerGraphRequirements *out)
{
    size_t image = graph_image_size(g);
    if (image == 0)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    out->gm_heap_bytes = g->heap_bytes;
    out->runtime_arena_bytes = graph_runtime_arena_bytes(g->task_count);
    out->graph_definition_bytes = image;
    out->scheduler_state_bytes = graph_scheduler_state_bytes(g->task_count);
    out->retained_temp_bytes = g->temp_bytes;
    out->task_count = g->task_count;
    return 0;
}
