#include <stddef.h>
#include <string.h>

#include "common/error.h"
#include "common/host_alloc.h"
#include "graph/graph_build_internal.h"
#include "graph/graph_status.h"

/* Byte offsets of each array inside the one block. Types with 8-byte
 * alignment come first; each of their sizes is a multiple of 8. */
typedef struct scratch_layout {
    size_t args, views, segments, tasks, readers, fanin, seen, list, total;
    uint32_t segment_count;
} scratch_layout;

static int add_array(size_t *cursor, size_t count, size_t elem, size_t *at)
{
    if (count > (SIZE_MAX - *cursor) / elem)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "graph build scratch: %zu records of %zu bytes overflow "
                                                           "the address space",
                            count, elem);
    *at = *cursor;
    *cursor += count * elem;
    return 0;
}

static int layout_of(const graph_limits *l, scratch_layout *out)
{
    size_t c = 0;
    /* Every access adds at most two segment boundaries. */
    out->segment_count = 2 * l->arg_max + 2;
    int rc = add_array(&c, l->arg_max, sizeof(graph_image_arg), &out->args);
    rc = rc ? rc : add_array(&c, l->arg_max, sizeof(graph_image_view), &out->views); /* at most one per arg */
    rc = rc ? rc : add_array(&c, out->segment_count, sizeof(tensor_map_segment), &out->segments);
    rc = rc ? rc : add_array(&c, l->task_max, sizeof(graph_image_task), &out->tasks);
    rc = rc ? rc : add_array(&c, l->reader_max, sizeof(tensor_map_reader), &out->readers);
    rc = rc ? rc : add_array(&c, l->edge_max, sizeof(uint32_t), &out->fanin);
    rc = rc ? rc : add_array(&c, l->task_max, sizeof(uint32_t), &out->seen);
    rc = rc ? rc : add_array(&c, l->task_max, sizeof(uint32_t), &out->list);
    out->total = c;
    return rc;
}

_Static_assert(sizeof(graph_image_arg) % 8 == 0, "scratch layout keeps 8-byte alignment");
_Static_assert(sizeof(graph_image_view) % 8 == 0, "scratch layout keeps 8-byte alignment");
_Static_assert(sizeof(tensor_map_segment) % 8 == 0, "scratch layout keeps 8-byte alignment");
_Static_assert(sizeof(graph_image_task) % 8 == 0, "scratch layout keeps 8-byte alignment");

static void bind(graph_scratch *s, const scratch_layout *lay)
{
    char *b = s->block;
    s->g.args = (graph_image_arg *)(void *)(b + lay->args);
    s->g.views = (graph_image_view *)(void *)(b + lay->views);
    s->g.tasks = (graph_image_task *)(void *)(b + lay->tasks);
    s->g.fanin = (uint32_t *)(void *)(b + lay->fanin);
    tensor_map_init(&s->map, (tensor_map_segment *)(void *)(b + lay->segments), lay->segment_count,
                    (tensor_map_reader *)(void *)(b + lay->readers), s->limits.reader_max);
    tensor_map_deps_init(&s->deps, (uint32_t *)(void *)(b + lay->seen),
                         (uint32_t *)(void *)(b + lay->list), s->limits.task_max);
}

int graph_scratch_create(const graph_limits *limits, graph_scratch **out)
{
    scratch_layout lay;
    if (out == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "graph build scratch: out NULL");
    int rc = graph_limits_check(limits);
    rc = rc ? rc : layout_of(limits, &lay);
    if (rc != 0)
        return rc;
    graph_scratch *s = host_calloc(1, sizeof(*s));
    if (s == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "host allocation of the graph build scratch failed");
    s->block = host_alloc(lay.total);
    if (s->block == NULL)
        goto err_free_scratch;
    s->orch.ops = &graph_orch_ops;
    s->limits = *limits;
    bind(s, &lay);
    *out = s;
    return 0;

err_free_scratch:
    host_free(s);
    return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY,
                        "host allocation of %zu bytes of graph build scratch (a %u-task window) failed", lay.total,
                        limits->task_max);
}

int graph_scratch_record_kinds(graph_scratch *s)
{
    if (s->kinds_block != NULL)
        return 0;
    uint8_t *b = host_calloc((size_t)s->limits.task_max + s->limits.edge_max, 1);
    if (b == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY,
                            "host allocation of the dependency kinds (%u tasks, %u edges) failed", s->limits.task_max,
                            s->limits.edge_max);
    s->kinds_block = b;
    s->deps.kinds = b;
    s->g.fanin_kind = b + s->limits.task_max;
    return 0;
}

void graph_scratch_destroy(graph_scratch *scratch)
{
    if (scratch == NULL)
        return;
    host_free(scratch->kinds_block);
    host_free(scratch->block);
    host_free(scratch);
}

const graph_limits *graph_scratch_limits(const graph_scratch *scratch)
{
    return &scratch->limits;
}
