#include <stddef.h>
#include <string.h>

#include <stdio.h>

#include "common/error.h"
#include "common/task_args_check.h"
#include "graph/graph_build_internal.h"
#include "graph/graph_status.h"

int graph_build_fail(graph_scratch *scratch, int rc)
{
    if (scratch->status == 0) {
        /* The first refusal names the task being described; a reason a
         * validator already recorded (a tensor's field) is kept in it. */
        char inner[SIMPLER_ERROR_REASON_BYTES];
        snprintf(inner, sizeof inner, "%s", simpler_last_error_message());
        if (inner[0] != '\0')
            simpler_fail(rc, "orchestration: task %u: %s", scratch->g.task_count, inner);
        else if (rc == PTO_RUNTIME_ERR_CAPACITY_EXCEEDED)
            simpler_fail(rc, "orchestration: task %u: the graph exceeds the task window (%u tasks) or its heap, "
                             "argument or edge limits",
                         scratch->g.task_count, scratch->limits.task_max);
        else
            simpler_fail(rc, "orchestration: task %u: an orchestration call was refused (a bad func_id, core "
                             "type, tag, tensor or address, or a call out of order)",
                         scratch->g.task_count);
        scratch->status = rc;
        scratch->open_limit = 0;
    }
    return rc;
}

int graph_call_args_check(const ChipStorageTaskArgs *args)
{
    /* The shared validator: counts, and every tensor a valid HOST or
     * DEVICE view with reserved bytes zero. */
    return task_args_check(args);
}

static void reset(graph_scratch *s, const ChipStorageTaskArgs *args)
{
    s->call = args;
    s->status = 0;
    s->full_beyond_window = 0;
    s->open = 0;
    s->open_count = 0;
    s->open_limit = 0;
    s->g.task_count = 0;
    s->g.arg_count = 0;
    s->g.view_count = 0;
    s->open_views = 0;
    memset(s->view_cache, 0, sizeof(s->view_cache));
    s->last_view_valid = 0;
    s->handle_count = 0;
    s->g.edge_count = 0;
    s->g.staged_count = 0;
    s->g.heap_bytes = 0;
    s->g.temp_bytes = 0;
    memset(s->g.kernel_uses, 0, sizeof(s->g.kernel_uses));
    tensor_map_reset(&s->map);
}

/* Every HOST tensor of the call gets a 1024-aligned copy in the retained
 * temp region, in argument order; tasks then address the copy. */
static int stage_host_tensors(graph_scratch *s)
{
    graph *g = &s->g;
    for (int32_t i = 0; i < s->call->tensor_count; i++) {
        const ChipTensor *t = &s->call->tensors[i];
        if (t->address_space != SIMPLER_ADDRESS_SPACE_HOST)
            continue;
        uint64_t room = s->limits.temp_bytes_max - g->temp_bytes;
        uint64_t padded = t->buffer_bytes > UINT64_MAX - (GRAPH_HEAP_ALIGN - 1)
                              ? UINT64_MAX
                              : (t->buffer_bytes + GRAPH_HEAP_ALIGN - 1) / GRAPH_HEAP_ALIGN * GRAPH_HEAP_ALIGN;
        if (padded > room) {
            s->full_beyond_window = 1;
            return simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                                "args.tensors[%d]: a HOST tensor of %llu bytes; the retained temp region has %llu of "
                                "its %llu bytes left",
                                i, (unsigned long long)t->buffer_bytes, (unsigned long long)room,
                                (unsigned long long)s->limits.temp_bytes_max);
        }
        graph_image_staged *st = &g->staged[g->staged_count++];
        memset(st, 0, sizeof(*st));
        st->caller_index = (uint32_t)i;
        st->temp_offset = g->temp_bytes;
        st->bytes = t->buffer_bytes;
        g->temp_bytes += padded;
    }
    return 0;
}

int graph_build_run(graph_scratch *scratch, SimplerOrchEntryFn entry, const ChipStorageTaskArgs *args,
                    const graph **out)
{
    if (scratch == NULL || entry == NULL || args == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "graph build: %s: NULL",
                            scratch == NULL ? "scratch" : entry == NULL ? "entry" : "args");
    int rc = graph_call_args_check(args);
    if (rc != 0) {
        reset(scratch, NULL);
        return rc;
    }
    return graph_build_from_checked(scratch, entry, args, out);
}

int graph_build_from_checked(graph_scratch *scratch, SimplerOrchEntryFn entry, const ChipStorageTaskArgs *args,
                             const graph **out)
{
    if (scratch == NULL || entry == NULL || args == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "graph build: %s: NULL",
                            scratch == NULL ? "scratch" : entry == NULL ? "entry" : "args");
    reset(scratch, args);
    int rc = stage_host_tensors(scratch);
    if (rc != 0)
        goto err_discard_graph;
    int entry_rc = entry(&scratch->orch, args);
    rc = scratch->status;
    if (rc == 0) {
        rc = graph_status_of_entry(entry_rc);
        if (rc != 0)
            simpler_fail(rc, "orchestration entry returned %d%s", entry_rc,
                         rc == entry_rc ? "" : " (outside -1..-999, so reported as -1005)");
    }
    if (rc != 0)
        goto err_discard_graph;
    graph_orch_discard_open(scratch); /* a list never submitted adds nothing */
    scratch->call = NULL;
    if (out != NULL)
        *out = &scratch->g;
    return 0;

err_discard_graph: {
    const int beyond = scratch->full_beyond_window; /* for graph_build_outgrew_window */
    reset(scratch, NULL);
    scratch->full_beyond_window = beyond;
    return rc;
}
}

int graph_build_outgrew_window(const graph_scratch *scratch, int rc)
{
    return rc == PTO_RUNTIME_ERR_CAPACITY_EXCEEDED && !scratch->full_beyond_window;
}
