/*
 * graph_image_check — the one validator of graph images. It trusts
 * nothing: every count, offset and range is checked against the image
 * size before it is used, and every fan-in count must equal the number
 * of fan-out lists naming the task.
 */
#include <stddef.h>
#include <string.h>

#include "graph/graph_image.h"
#include "graph/graph_limits.h"
#include "graph/graph_status.h"
#include "graph/graph_tensor.h"
#include "simpler/orchestration.h"

/* reason: none: the scheduler runs this check on the device, where a
 * refusal latches PTO_DEVICE_ERR_IMAGE_INVALID; the host only writes
 * images it built, and the fuzz target reads the status alone. */
#define BAD PTO_RUNTIME_ERR_INVALID_ARGUMENT

typedef struct image_parts {
    const graph_image_header *h;
    const graph_image_staged *staged;
    const graph_image_view *views;
    const graph_image_task *tasks;
    const graph_image_arg *args;
    const uint32_t *fanout;
} image_parts;

static int check_header(const void *image, size_t size, image_parts *v)
{
    graph_image_header canon;
    if (image == NULL || ((uintptr_t)image & 7u) != 0 || size < sizeof(graph_image_header))
        return BAD;
    const graph_image_header *h = image;
    if (h->magic != GRAPH_IMAGE_MAGIC || h->version != GRAPH_IMAGE_VERSION ||
        h->header_bytes != sizeof(graph_image_header) || h->reserved1 != 0 || h->reserved != 0 ||
        h->image_bytes != size)
        return BAD;
    if (h->task_count > GRAPH_TASK_WINDOW_MAX || h->staged_count > SIMPLER_MAX_TENSOR_ARGS ||
        h->view_count > h->arg_count || h->heap_bytes % GRAPH_HEAP_ALIGN != 0 ||
        h->temp_bytes % GRAPH_HEAP_ALIGN != 0)
        return BAD;
    if (graph_image_layout(h->task_count, h->arg_count, h->edge_count, h->staged_count, h->view_count, &canon) !=
        0)
        return BAD;
    if (canon.image_bytes != size || canon.staged_offset != h->staged_offset ||
        canon.view_offset != h->view_offset || canon.task_offset != h->task_offset ||
        canon.arg_offset != h->arg_offset || canon.fanout_offset != h->fanout_offset)
        return BAD;
    const uint8_t *b = image;
    v->h = h;
    v->staged = (const graph_image_staged *)(const void *)(b + h->staged_offset);
    v->views = (const graph_image_view *)(const void *)(b + h->view_offset);
    v->tasks = (const graph_image_task *)(const void *)(b + h->task_offset);
    v->args = (const graph_image_arg *)(const void *)(b + h->arg_offset);
    v->fanout = (const uint32_t *)(const void *)(b + h->fanout_offset);
    return 0;
}

static int check_staged(const image_parts *v)
{
    uint64_t next = 0;
    for (uint32_t i = 0; i < v->h->staged_count; i++) {
        const graph_image_staged *s = &v->staged[i];
        if (s->caller_index >= SIMPLER_MAX_TENSOR_ARGS || (i > 0 && s->caller_index <= v->staged[i - 1].caller_index))
            return BAD;
        if ((s->flags & ~(GRAPH_STAGED_READ | GRAPH_STAGED_WRITTEN)) != 0 || s->reserved != 0)
            return BAD;
        if (s->temp_offset % GRAPH_HEAP_ALIGN != 0 || s->temp_offset < next || s->bytes == 0 ||
            s->temp_offset > v->h->temp_bytes || s->bytes > v->h->temp_bytes - s->temp_offset)
            return BAD;
        next = s->temp_offset + s->bytes;
    }
    return 0;
}

/* Every view: a valid shape whose extent is the one recorded. */
static int check_views(const image_parts *v)
{
    for (uint32_t i = 0; i < v->h->view_count; i++) {
        const graph_image_view *w = &v->views[i];
        uint64_t extent;
        if (w->reserved[0] != 0 || w->reserved[1] != 0 || w->reserved[2] != 0 ||
            tensor_view_extent(w->dtype, w->ndims, w->shapes, w->strides, &extent) != 0 ||
            extent != w->extent)
            return BAD;
    }
    return 0;
}

/* The buffer [addr, addr + buffer_bytes) must lie in its region. Caller
 * device buffers, the common case, are asked first, ahead of the switch
 * (docs/performance.md, "Figures behind the constants"). */
static int check_tensor_place(const image_parts *v, const graph_image_arg *a)
{
    uint64_t region_lo = 0, region_hi = 0;
    if (a->addr_kind == GRAPH_ADDR_DEVICE)
        return a->staged_index == 0 && a->tag != SIMPLER_TAG_OUTPUT && a->addr <= UINT64_MAX - a->buffer_bytes
                   ? 0 : BAD;
    switch (a->addr_kind) {
    case GRAPH_ADDR_HEAP:
        region_hi = v->h->heap_bytes;
        if (a->staged_index != 0 || a->tag == SIMPLER_TAG_OUTPUT_EXISTING)
            return BAD;
        break;
    case GRAPH_ADDR_STAGED:
        if (a->staged_index >= v->h->staged_count || a->tag == SIMPLER_TAG_OUTPUT)
            return BAD;
        region_lo = v->staged[a->staged_index].temp_offset;
        region_hi = region_lo + v->staged[a->staged_index].bytes;
        break;
    default:
        return BAD;
    }
    if (a->addr < region_lo || a->addr > region_hi || a->buffer_bytes > region_hi - a->addr)
        return BAD;
    return 0;
}

/* The first eight bytes of an argument (kind, tag, addr_kind,
 * staged_index, view) as one word, in the image's byte order. */
static inline uint64_t arg_head(const graph_image_arg *a)
{
    uint64_t head;
    memcpy(&head, a, sizeof(head));
    return head;
}

_Static_assert(offsetof(graph_image_arg, view) == 4 && offsetof(graph_image_arg, addr) == 8,
               "an argument's head is its first eight bytes");

/* The head a caller device tensor of view `view` has, its tag left 0,
 * and the mask that leaves the tag out of a head. */
static uint64_t device_head(uint32_t view, uint64_t *tag_mask)
{
    graph_image_arg a = {.kind = GRAPH_ARG_TENSOR, .addr_kind = GRAPH_ADDR_DEVICE, .view = view};
    graph_image_arg t = {.tag = 0xff};
    *tag_mask = ~arg_head(&t);
    return arg_head(&a);
}

/* The tags a caller device tensor may carry: every tag but OUTPUT (the
 * runtime allocates OUTPUT tensors on the heap). */
#define DEVICE_TAGS (((1u << (SIMPLER_TAG_NO_DEP + 1)) - 1) & ~(1u << SIMPLER_TAG_OUTPUT))
_Static_assert(SIMPLER_TAG_NO_DEP < 31, "tags fit the mask");

/* Views are checked first: a tensor's range check uses its view's
 * extent as recorded, and its dtype as known. Consecutive tensors mostly
 * name the same view, so the last one's shift and extent are kept; and
 * most are caller device tensors, so a tensor whose head is that of a
 * device tensor of the kept view (one compare for kind, addr_kind,
 * staged_index and view) needs only its tag, range and end checked,
 * exactly what check_tensor_place asks of one. */
static int check_args(const image_parts *v)
{
    uint32_t view = UINT32_MAX, shift = 0;
    uint64_t extent = 0, tag_mask = 0;
    uint64_t fast = UINT64_MAX; /* no argument's head: its kind byte is no GRAPH_ARG_* */
    for (uint32_t i = 0; i < v->h->arg_count; i++) {
        const graph_image_arg *a = &v->args[i];
        if ((arg_head(a) & tag_mask) == fast) {
            if (((DEVICE_TAGS >> (a->tag & 31u)) & 1u) == 0 || a->tag > 31u ||
                !graph_view_fits(shift, extent, a->start_offset, a->buffer_bytes) ||
                a->addr > UINT64_MAX - a->buffer_bytes)
                return BAD;
            continue;
        }
        if (a->kind == GRAPH_ARG_SCALAR) {
            if (a->tag != 0 || a->addr_kind != 0 || a->staged_index != 0 || a->view != 0 || a->buffer_bytes != 0 ||
                a->start_offset != 0)
                return BAD;
            continue;
        }
        if (a->kind != GRAPH_ARG_TENSOR || a->tag > SIMPLER_TAG_NO_DEP)
            return BAD;
        if (a->view != view) {
            if (a->view >= v->h->view_count)
                return BAD;
            view = a->view;
            shift = graph_dtype_shift(v->views[view].dtype);
            extent = v->views[view].extent;
            fast = device_head(view, &tag_mask);
        }
        if (!graph_view_fits(shift, extent, a->start_offset, a->buffer_bytes) || check_tensor_place(v, a) != 0)
            return BAD;
    }
    return 0;
}

/* Tasks in id order, with their fan-out lists. Every edge goes from a
 * lower to a higher id, so when task i is reached every task that can
 * name it a successor was counted already: its count in `seen` is final
 * and must equal its fan-in count. Fan-out lists increase strictly, so no
 * edge is counted twice. Once checked, task i's slot is spent and keeps
 * its chain link instead (graph_image_chain_next), for the scheduler's
 * seeding. The chain heads are recounted as the writer counts them: a
 * link's successor is read before its own checks, which refuse the image
 * if it lied. */
static int check_tasks(const image_parts *v, uint32_t *seen)
{
    /* The header's counts and the tables in locals: the stores to
     * `seen` below could alias the header's words, so the compiler would
     * reload them per task (and per edge) otherwise. */
    const uint32_t task_count = v->h->task_count, arg_count = v->h->arg_count, edge_count = v->h->edge_count;
    const graph_image_task *tasks = v->tasks;
    const uint32_t *fanout_table = v->fanout;
    uint32_t args = 0, fanin = 0, fanout = 0;
    uint32_t heads[2] = {0, 0};
    memset(seen, 0, (size_t)task_count * sizeof(*seen));
    for (uint32_t i = 0; i < task_count; i++) {
        const graph_image_task *t = &tasks[i];
        if (t->func_id < 0 || t->func_id >= GRAPH_FUNC_ID_LIMIT || t->core_type > SIMPLER_CORE_TYPE_AIV)
            return BAD;
        if (t->arg_begin != args || t->arg_count > SIMPLER_MAX_TASK_ARGS || t->arg_count > arg_count - args)
            return BAD;
        if (t->fanin_begin != fanin || t->fanin_count != seen[i])
            return BAD;
        if (t->fanout_begin != fanout || t->fanout_count > edge_count - fanout)
            return BAD;
        const uint32_t *succ = fanout_table + fanout;
        uint32_t prev = i;
        for (uint32_t k = 0; k < t->fanout_count; k++) {
            if (succ[k] <= prev || succ[k] >= task_count)
                return BAD;
            prev = succ[k];
            seen[prev]++;
        }
        /* graph_image_chain_next, from the successor just bounded. */
        uint32_t chain = 0;
        if (t->fanout_count == 1 && graph_image_chain_link(t, &tasks[succ[0]]))
            chain = succ[0] + 1;
        seen[i] = chain; /* task i's count is spent: its slot holds its link */
        heads[t->core_type] += chain == 0;
        args += t->arg_count;
        fanin += t->fanin_count; /* <= fanout so far: no wrap */
        fanout += t->fanout_count;
    }
    if (heads[0] != v->h->chain_heads[0] || heads[1] != v->h->chain_heads[1])
        return BAD;
    return args == arg_count && fanin == edge_count && fanout == edge_count ? 0 : BAD;
}

int graph_image_check(const void *image, size_t size, uint32_t *scratch, uint32_t scratch_count)
{
    image_parts v;
    int rc = check_header(image, size, &v);
    if (rc == 0 && (v.h->task_count > scratch_count || (scratch == NULL && v.h->task_count != 0)))
        return BAD;
    rc = rc ? rc : check_staged(&v);
    rc = rc ? rc : check_views(&v);
    rc = rc ? rc : check_args(&v);
    rc = rc ? rc : check_tasks(&v, scratch);
    return rc;
}
