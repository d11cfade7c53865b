/*
 * graph_submit — closing a task: its tensor accesses go through the
 * TensorMap (all reads, then all writes, so a task never depends on
 * itself), its predecessors are sorted into the fan-in list, and the
 * staged tensors it touches learn their copy directions.
 */
#include <stddef.h>

#include "common/error.h"
#include "graph/graph_build_internal.h"
#include "graph/graph_status.h"
#include "graph/graph_tensor.h"

static uint32_t space_of(uint8_t addr_kind)
{
    switch (addr_kind) {
    case GRAPH_ADDR_STAGED:
        return SIMPLER_ADDRESS_SPACE_HOST;
    case GRAPH_ADDR_DEVICE:
        return SIMPLER_ADDRESS_SPACE_DEVICE;
    default:
        return SIMPLER_ADDRESS_SPACE_GRAPH_HEAP;
    }
}

static int tag_reads(uint8_t tag)
{
    return tag == SIMPLER_TAG_INPUT || tag == SIMPLER_TAG_INOUT;
}

static int tag_writes(uint8_t tag)
{
    return tag == SIMPLER_TAG_OUTPUT || tag == SIMPLER_TAG_INOUT || tag == SIMPLER_TAG_OUTPUT_EXISTING;
}

static int track(graph_scratch *s, const graph_image_arg *a, uint32_t task, int write)
{
    const graph_image_view *v = &s->g.views[a->view];
    uint64_t first = 0, end = 0;
    /* add_tensor validated the view, so this cannot fail. */
    (void)graph_view_bytes(tensor_dtype_bytes(v->dtype), v->extent, a->start_offset, a->buffer_bytes, &first, &end);
    uint64_t lo = a->addr + first, hi = a->addr + end;
    uint32_t space = space_of(a->addr_kind);
    return write ? tensor_map_write(&s->map, space, lo, hi, task, &s->deps)
                 : tensor_map_read(&s->map, space, lo, hi, task, &s->deps);
}

static int track_all(graph_scratch *s, const graph_image_arg *args, uint32_t count, uint32_t task)
{
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < count; i++) {
            const graph_image_arg *a = &args[i];
            if (a->kind != GRAPH_ARG_TENSOR || !(pass ? tag_writes(a->tag) : tag_reads(a->tag)))
                continue;
            int rc = track(s, a, task, pass);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

static void sift_down(uint32_t *v, uint32_t root, uint32_t n)
{
    for (uint32_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && v[child + 1] > v[child])
            child++;
        if (v[root] >= v[child])
            return;
        uint32_t t = v[root];
        v[root] = v[child];
        v[child] = t;
    }
}

/* In-place heapsort: libc qsort may allocate, and a build must not. */
static void sort_ids(uint32_t *v, uint32_t n)
{
    for (uint32_t i = n / 2; i-- > 0;)
        sift_down(v, i, n);
    for (uint32_t end = n; end-- > 1;) {
        uint32_t t = v[0];
        v[0] = v[end];
        v[end] = t;
        sift_down(v, 0, end);
    }
}

static void mark_staged(graph *g, const graph_image_arg *args, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        const graph_image_arg *a = &args[i];
        if (a->kind != GRAPH_ARG_TENSOR || a->addr_kind != GRAPH_ADDR_STAGED)
            continue;
        /* NO_DEP says nothing about direction, so it copies both ways. */
        int no_dep = a->tag == SIMPLER_TAG_NO_DEP;
        if (tag_reads(a->tag) || no_dep)
            g->staged[a->staged_index].flags |= GRAPH_STAGED_READ;
        if (tag_writes(a->tag) || no_dep)
            g->staged[a->staged_index].flags |= GRAPH_STAGED_WRITTEN;
    }
}

int graph_orch_submit(SimplerOrch *orch, int32_t func_id, uint32_t core_type)
{
    graph_scratch *s = (graph_scratch *)(void *)orch;
    graph *g = &s->g;
    if (s->status != 0)
        return s->status;
    if (!s->open)
        return graph_build_fail(s, PTO_RUNTIME_ERR_INVALID_STATE);
    if (func_id < 0 || func_id >= GRAPH_FUNC_ID_LIMIT)
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "submit: func_id = %d: must be "
                                                                                  "in 0..%d",
                                                func_id, GRAPH_FUNC_ID_LIMIT - 1));
    if (core_type > SIMPLER_CORE_TYPE_AIV)
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                                "submit: core_type = %u: not AIC (0) or AIV (1)", core_type));
    if (g->task_count >= s->limits.task_max)
        return graph_build_fail(s, PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    uint32_t task = g->task_count;
    graph_image_arg *args = &g->args[g->arg_count];
    tensor_map_deps_begin(&s->deps, task);
    int rc = track_all(s, args, s->open_count, task);
    if (rc == 0 && s->deps.count > s->limits.edge_max - g->edge_count)
        rc = PTO_RUNTIME_ERR_CAPACITY_EXCEEDED;
    if (rc != 0)
        return graph_build_fail(s, rc);
    sort_ids(s->deps.list, s->deps.count);
    for (uint32_t i = 0; i < s->deps.count; i++)
        g->fanin[g->edge_count + i] = s->deps.list[i];
    if (g->fanin_kind != NULL) {
        for (uint32_t i = 0; i < s->deps.count; i++)
            g->fanin_kind[g->edge_count + i] = s->deps.kinds[s->deps.list[i]];
    }
    graph_image_task *t = &g->tasks[task];
    t->func_id = func_id;
    t->core_type = core_type;
    t->arg_begin = g->arg_count;
    t->arg_count = s->open_count;
    t->fanin_begin = g->edge_count;
    t->fanin_count = s->deps.count;
    t->fanout_begin = 0;
    t->fanout_count = 0;
    mark_staged(g, args, s->open_count);
    g->edge_count += s->deps.count;
    g->arg_count += s->open_count;
    g->task_count++;
    s->open = 0;
    s->open_count = 0;
    return 0;
}
