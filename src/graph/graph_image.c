#include <stddef.h>
#include <string.h>

#include "common/error.h"
#include "graph/graph.h"
#include "graph/graph_status.h"

int graph_image_layout(uint32_t task_count, uint32_t arg_count, uint32_t edge_count, uint32_t staged_count,
                       uint32_t view_count, graph_image_header *out)
{
    /* 64-bit sums of 32-bit counts times small sizes cannot wrap. */
    uint64_t staged = sizeof(graph_image_header);
    uint64_t views = staged + (uint64_t)staged_count * sizeof(graph_image_staged);
    uint64_t tasks = views + (uint64_t)view_count * sizeof(graph_image_view);
    uint64_t args = tasks + (uint64_t)task_count * sizeof(graph_image_task);
    uint64_t fanout = args + (uint64_t)arg_count * sizeof(graph_image_arg);
    uint64_t end = fanout + (uint64_t)edge_count * sizeof(uint32_t);
    memset(out, 0, sizeof(*out)); /* a refused layout reads as 0 bytes */
    if (fanout > UINT32_MAX || end > SIZE_MAX)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: the caller's (also run on the device) */
    out->magic = GRAPH_IMAGE_MAGIC;
    out->version = GRAPH_IMAGE_VERSION;
    out->header_bytes = sizeof(graph_image_header);
    out->view_count = view_count;
    out->image_bytes = end;
    out->task_count = task_count;
    out->arg_count = arg_count;
    out->edge_count = edge_count;
    out->staged_count = staged_count;
    out->staged_offset = (uint32_t)staged;
    out->view_offset = (uint32_t)views;
    out->task_offset = (uint32_t)tasks;
    out->arg_offset = (uint32_t)args;
    out->fanout_offset = (uint32_t)fanout;
    return 0;
}

size_t graph_image_size(const graph *g)
{
    graph_image_header h;
    if (graph_image_layout(g->task_count, g->arg_count, g->edge_count, g->staged_count, g->view_count, &h) !=
        0)
        return 0;
    return (size_t)h.image_bytes;
}

/* Fan-out lists are the fan-in lists transposed: the build counted
 * each task's successors (close_task), so prefix-sum the counts into
 * ends, then fill backwards from the last successor, so each list ends
 * up increasing and fanout_begin, the fill cursor, ends at the list's
 * start (the counts are left as they were, so a second write of the
 * same graph writes the same). Every count is final during the fill, so
 * the chain links are counted there: a type's chain heads are its tasks
 * less its links (graph_image_chain_link). */
static void write_fanout(const graph *g, graph_image_task *tasks, uint32_t *fanout, uint32_t heads[2])
{
    uint32_t end = 0;
    for (uint32_t i = 0; i < g->task_count; i++) {
        end += tasks[i].fanout_count;
        tasks[i].fanout_begin = end;
    }
    heads[0] = heads[1] = 0;
    for (uint32_t succ = g->task_count; succ-- > 0;) {
        const graph_image_task *t = &tasks[succ];
        const uint32_t *pred = &g->fanin[t->fanin_begin];
        heads[t->core_type]++;
        for (uint32_t k = 0; k < t->fanin_count; k++) {
            graph_image_task *p = &tasks[pred[k]];
            fanout[--p->fanout_begin] = succ;
            heads[t->core_type] -= (uint32_t)graph_image_chain_link(p, t);
        }
    }
}

/* Four 16-byte words moved at once (gcc and clang vector extensions); no
 * alignment assumed, may alias anything, as memcpy's bytes do. */
typedef uint64_t image_pair __attribute__((vector_size(16), may_alias, aligned(1)));

/* memcpy of the task and argument records with plain vector stores: the
 * packet's checksum reads these bytes right after, and glibc's memcpy of
 * tens of KiB (rep movsb) left them slow to read back (the checksum's
 * loads took most of its time). */
static void image_copy(uint8_t *dst, const uint8_t *src, size_t bytes)
{
    size_t i = 0;
    for (; i + 64 <= bytes; i += 64) {
        image_pair a = *(const image_pair *)(const void *)(src + i);
        image_pair b = *(const image_pair *)(const void *)(src + i + 16);
        image_pair c = *(const image_pair *)(const void *)(src + i + 32);
        image_pair d = *(const image_pair *)(const void *)(src + i + 48);
        *(image_pair *)(void *)(dst + i) = a;
        *(image_pair *)(void *)(dst + i + 16) = b;
        *(image_pair *)(void *)(dst + i + 32) = c;
        *(image_pair *)(void *)(dst + i + 48) = d;
    }
    memcpy(dst + i, src + i, bytes - i);
}

/* The header (with the graph's heap and temp bytes), staged and view
 * sections at b; the caller checked the layout h. */
static void write_head(const graph *g, graph_image_header *h, uint8_t *b)
{
    h->heap_bytes = g->heap_bytes;
    h->temp_bytes = g->temp_bytes;
    memcpy(b + h->staged_offset, g->staged, (size_t)g->staged_count * sizeof(graph_image_staged));
    memcpy(b + h->view_offset, g->views, (size_t)g->view_count * sizeof(graph_image_view));
}

/* The fan-out section and the tasks' fan-out fields, then the header
 * with the chain heads the fill counted. */
static void write_tail(const graph *g, graph_image_header *h, uint8_t *head, graph_image_task *tasks,
                       uint32_t *fanout)
{
    write_fanout(g, tasks, fanout, h->chain_heads);
    memcpy(head, h, sizeof(*h));
}

int graph_image_write(const graph *g, void *buf, size_t size)
{
    graph_image_header h;
    if (g == NULL || buf == NULL || ((uintptr_t)buf & 7u) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "graph image write: %s",
                            g == NULL ? "graph NULL" : buf == NULL ? "buffer NULL" : "buffer not 8-byte aligned");
    if (graph_image_layout(g->task_count, g->arg_count, g->edge_count, g->staged_count, g->view_count, &h) !=
            0 ||
        h.image_bytes != size)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "graph image write: size = %zu: the graph of %u tasks needs a %llu-byte image", size,
                            g->task_count, (unsigned long long)h.image_bytes);
    uint8_t *b = buf;
    write_head(g, &h, b);
    graph_image_task *tasks = (graph_image_task *)(void *)(b + h.task_offset);
    image_copy((uint8_t *)tasks, (const uint8_t *)g->tasks, (size_t)g->task_count * sizeof(graph_image_task));
    image_copy(b + h.arg_offset, (const uint8_t *)g->args, (size_t)g->arg_count * sizeof(graph_image_arg));
    write_tail(g, &h, b, tasks, (uint32_t *)(void *)(b + h.fanout_offset));
    return 0;
}

int graph_image_write_parts(const graph *g, void *head, size_t head_bytes, uint32_t *fanout)
{
    graph_image_header h;
    if (g == NULL || head == NULL || ((uintptr_t)head & 7u) != 0 || (fanout == NULL && g->edge_count != 0))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "graph image write (parts): %s",
                            g == NULL ? "graph NULL" : fanout == NULL && head != NULL && ((uintptr_t)head & 7u) == 0
                                                           ? "fan-out buffer NULL"
                                                           : "head buffer NULL or not 8-byte aligned");
    if (graph_image_layout(g->task_count, g->arg_count, g->edge_count, g->staged_count, g->view_count, &h) !=
            0 ||
        h.task_offset != head_bytes)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "graph image write (parts): head_bytes = %zu: the graph of %u tasks needs a "
                            "%u-byte head",
                            head_bytes, g->task_count, h.task_offset);
    write_head(g, &h, head);
    write_tail(g, &h, head, g->tasks, fanout);
    return 0;
}
