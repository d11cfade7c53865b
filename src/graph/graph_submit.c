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

static int tag_reads(uint8_t tag)
{
    return tag == SIMPLER_TAG_INPUT || tag == SIMPLER_TAG_INOUT;
}

static int tag_writes(uint8_t tag)
{
    return tag == SIMPLER_TAG_OUTPUT || tag == SIMPLER_TAG_INOUT || tag == SIMPLER_TAG_OUTPUT_EXISTING;
}

/* The refusal of an access the dependency map has no room for. */
static __attribute__((cold, noinline)) int map_full(int rc, uint32_t arg)
{
    return simpler_fail(rc, "submit: arg %u: the dependency map's segments or readers (sized from the task "
                            "window) are used up",
                        arg);
}

/* The open task's accesses (byte ranges worked out by add_tensor):
 * every read before any write, so that a task never depends on itself.
 * One pass: each read applied at once, each write kept for after the
 * reads, except the last argument's, which comes after every read and
 * is applied at once (a task's writes commute: each collects the writer
 * and readers its bytes had before the task, and bytes the task already
 * wrote add nothing). Most tasks read their first arguments and write
 * their last one, so no write is kept. */
static int track_all(graph_scratch *s, uint32_t count, uint32_t task)
{
    graph_access *acc = s->open_access;
    uint32_t kept[SIMPLER_MAX_TASK_ARGS], kept_count = 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t mode = acc[i].mode;
        int rc = 0;
        if (mode & GRAPH_ACCESS_READ)
            rc = tensor_map_read(&s->map, acc[i].space, acc[i].lo, acc[i].hi, task, &s->deps);
        if (rc == 0 && (mode & GRAPH_ACCESS_WRITE)) {
            if (i + 1 == count)
                rc = tensor_map_write(&s->map, acc[i].space, acc[i].lo, acc[i].hi, task, &s->deps);
            else
                kept[kept_count++] = i;
        }
        if (rc != 0)
            return map_full(rc, i);
    }
    for (uint32_t k = 0; k < kept_count; k++) {
        const graph_access *a = &acc[kept[k]];
        int rc = tensor_map_write(&s->map, a->space, a->lo, a->hi, task, &s->deps);
        if (rc != 0)
            return map_full(rc, kept[k]);
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

/* In place: libc qsort may allocate, and a build must not. Predecessors
 * mostly come out in order already (a task's inputs were written in
 * order) or are few; otherwise a heapsort. */
static void sort_ids(uint32_t *v, uint32_t n)
{
    uint32_t k = 1;
    while (k < n && v[k - 1] <= v[k])
        k++;
    if (k >= n)
        return;
    if (n <= 16) {
        for (uint32_t i = k; i < n; i++) {
            uint32_t x = v[i], j = i;
            for (; j > 0 && v[j - 1] > x; j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
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

static inline __attribute__((always_inline)) int submit_check(graph_scratch *s, int32_t func_id,
                                                             uint32_t core_type)
{
    if (func_id < 0 || func_id >= GRAPH_FUNC_ID_LIMIT)
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "submit: func_id = %d: must be "
                                                                                  "in 0..%d",
                                                func_id, GRAPH_FUNC_ID_LIMIT - 1));
    if (core_type > SIMPLER_CORE_TYPE_AIV)
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                                "submit: core_type = %u: not AIC (0) or AIV (1)", core_type));
    if (s->g.task_count >= s->limits.task_max)
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                                                "submit: the graph already holds the task window's %u tasks",
                                                s->limits.task_max));
    return 0;
}

/* Starts collecting the open task's predecessors. */
static inline __attribute__((always_inline)) void deps_open(graph_scratch *s)
{
    tensor_map_deps_begin(&s->deps, s->g.task_count);
}

/* The task record of the count arguments at g.args[g.arg_count], whose
 * predecessors are in s->deps (their count checked against the edge
 * limit). count is the caller's: submit's open_count, or submit_views'
 * own count, which it never stores in the scratch. */
static inline __attribute__((always_inline)) int close_task(graph_scratch *s, int32_t func_id,
                                                           uint32_t core_type, uint32_t count)
{
    graph *g = &s->g;
    const uint32_t task = g->task_count, arg_begin = g->arg_count;
    const uint32_t edge_begin = g->edge_count, n = s->deps.count;
    uint32_t *list = s->deps.list, *fanin = g->fanin + edge_begin;
    /* Most tasks have one or two predecessors: those in order without
     * the sort's call and the copy loop. */
    graph_image_task *tasks = g->tasks;
    /* Each predecessor's fan-out count grows here, while its record is
     * likely still cached, so the image writer need not count them. */
    if (n == 1) {
        fanin[0] = list[0];
        tasks[list[0]].fanout_count++;
    } else if (n == 2) {
        const uint32_t x = list[0], y = list[1];
        fanin[0] = x < y ? x : y;
        fanin[1] = x < y ? y : x;
        tasks[x].fanout_count++;
        tasks[y].fanout_count++;
    } else {
        sort_ids(list, n);
        for (uint32_t i = 0; i < n; i++) {
            fanin[i] = list[i];
            tasks[list[i]].fanout_count++;
        }
    }
    /* Kinds follow the sorted edges: the one- and two-predecessor paths
     * leave list unsorted. */
    if (g->fanin_kind != NULL) {
        for (uint32_t i = 0; i < n; i++)
            g->fanin_kind[edge_begin + i] = s->deps.kinds[fanin[i]];
    }
    graph_image_task *t = &tasks[task];
    t->func_id = func_id;
    t->core_type = core_type;
    t->arg_begin = arg_begin;
    t->arg_count = count;
    t->fanin_begin = edge_begin;
    t->fanin_count = n;
    t->fanout_begin = 0;
    t->fanout_count = 0;
    uint32_t use = (uint32_t)func_id * 2 + core_type;
    g->kernel_uses[use / 64] |= 1ull << (use % 64);
    if (g->staged_count != 0)
        mark_staged(g, &g->args[arg_begin], count);
    g->edge_count = edge_begin + n;
    g->arg_count = arg_begin + count;
    g->task_count = task + 1;
    return 0;
}

/* The refusal of a task whose predecessors do not fit the edges left. */
static __attribute__((cold, noinline)) int edges_full(graph_scratch *s)
{
    return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                                            "submit: %u more dependencies: the graph's %u edges are used up",
                                            s->deps.count, s->limits.edge_max));
}

/* The refusal of a submit: the first of its checks that fails, in the
 * order submit makes them, with its reason. Out of line, so that the
 * accepted call's path holds none of the messages' arguments. */
static __attribute__((cold, noinline)) int submit_refuse(graph_scratch *s, int32_t func_id, uint32_t core_type)
{
    if (s->status != 0)
        return s->status;
    if (!s->open)
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE,
                                                "submit: func_id %d: no args_begin opened its argument list", func_id));
    int rc = submit_check(s, func_id, core_type);
    GRAPH_ASSERT(rc != 0);
    return rc;
}

/* The submit op in one function: every check of submit_refuse at once,
 * then the open task's accesses through the TensorMap, the edge limit
 * and the task record. */
int graph_orch_submit(SimplerOrch *orch, int32_t func_id, uint32_t core_type)
{
    graph_scratch *s = (graph_scratch *)(void *)orch;
    if (s->status != 0 || !s->open || (uint32_t)func_id >= GRAPH_FUNC_ID_LIMIT || core_type > SIMPLER_CORE_TYPE_AIV ||
        s->g.task_count >= s->limits.task_max)
        return submit_refuse(s, func_id, core_type);
    deps_open(s);
    int rc = track_all(s, s->open_count, s->g.task_count);
    if (rc != 0)
        return graph_build_fail(s, rc);
    if (s->deps.count > s->limits.edge_max - s->g.edge_count)
        return edges_full(s);
    /* The task closes its argument list (submit_views never opens one). */
    const uint32_t count = s->open_count;
    s->open = 0;
    s->open_count = 0;
    s->open_limit = 0;
    return close_task(s, func_id, core_type, count);
}

static __attribute__((cold, noinline)) int views_fail(graph_scratch *s, uint32_t i, const SimplerOrchViewArg *v,
                                                      uint32_t handles)
{
    return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                            "submit_views: args[%u] (view %u at element %llu, tag %u): not a view "
                                            "handle of this build (%u made) and a SIMPLER_TAG_*, or the window "
                                            "leaves its buffer, or the tag does not fit its address space",
                                            i, v->view, (unsigned long long)v->start_offset, v->tag, handles));
}

/* args_begin, add_view per entry and submit in one pass: each entry is
 * checked as add_view checks it, its argument record written straight
 * from the handle and, when it reads, its read applied at once (a task
 * applies every read before any write, and an entry refused after some
 * reads fails the build, which discards the map); the writes follow
 * (the last entry's at once), then the task record as submit writes it. */
/* The refusal of a submit_views call whose count, args, func_id, core
 * type, task window or argument records do not fit: the first of those
 * checks that fails, with its reason. Out of line, so that the accepted
 * call's path holds none of the messages' arguments. */
static __attribute__((cold, noinline)) int submit_views_refuse(graph_scratch *s, int32_t func_id,
                                                               uint32_t core_type,
                                                               const SimplerOrchViewArg *args, uint32_t count)
{
    if (count > SIMPLER_MAX_TASK_ARGS || (args == NULL && count != 0))
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                                "submit_views: count = %u with args %s: at most %d arguments, and "
                                                "args only NULL for none",
                                                count, args == NULL ? "NULL" : "set", SIMPLER_MAX_TASK_ARGS));
    int rc = submit_check(s, func_id, core_type);
    if (rc != 0)
        return rc;
    GRAPH_ASSERT(count > s->limits.arg_max - s->g.arg_count);
    return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                                            "submit_views: %u arguments: the graph's %u argument records are "
                                            "used up",
                                            count, s->limits.arg_max));
}

int graph_orch_submit_views(SimplerOrch *orch, int32_t func_id, uint32_t core_type, const SimplerOrchViewArg *args,
                            uint32_t count)
{
    graph_scratch *s = (graph_scratch *)(void *)orch;
    if (s->status != 0)
        return s->status;
    if (s->open)
        graph_orch_discard_open(s);
    graph *g = &s->g;
    const uint32_t arg_begin = g->arg_count, task = g->task_count;
    /* Every entry check of submit_views_refuse at once. */
    if (count > SIMPLER_MAX_TASK_ARGS || (args == NULL && count != 0) || (uint32_t)func_id >= GRAPH_FUNC_ID_LIMIT ||
        core_type > SIMPLER_CORE_TYPE_AIV || task >= s->limits.task_max || count > s->limits.arg_max - arg_begin)
        return submit_views_refuse(s, func_id, core_type, args, count);
    int rc;
    graph_image_arg *a = &g->args[arg_begin];
    graph_access *writes = s->open_access;
    uint32_t write_count = 0;
    const uint32_t handles = s->handle_count;
    tensor_map_deps *deps = &s->deps;
    deps_open(s);
    for (uint32_t i = 0; i < count; i++) {
        const uint64_t start = args[i].start_offset;
        const uint32_t view = args[i].view, tag = args[i].tag;
        /* One test for the handle, the tag and the window: tags has no
         * bit past SIMPLER_TAG_NO_DEP, and max_start is the last start. */
        graph_view_handle *h = &s->handles[view < handles ? view : 0];
        if (view >= handles || tag > SIMPLER_TAG_NO_DEP || ((h->tags >> tag) & 1u) == 0 || start > h->max_start)
            return views_fail(s, i, &args[i], handles);
        graph_handle_view_use(s, h);
        a[i] = h->rec;
        a[i].tag = (uint8_t)tag;
        a[i].start_offset = start;
        const uint64_t lo = h->rec.addr + (start << h->shift), hi = lo + h->extent_bytes;
        const uint32_t space = h->space;
        if (tag == SIMPLER_TAG_INPUT || tag == SIMPLER_TAG_INOUT) {
            rc = tensor_map_read(&s->map, space, lo, hi, task, deps);
            if (rc != 0)
                return graph_build_fail(s, map_full(rc, i));
        }
        if (tag == SIMPLER_TAG_INPUT || tag == SIMPLER_TAG_NO_DEP)
            continue;
        if (i + 1 == count) {
            /* The last entry's write comes after every read: applied at
             * once, before the kept ones (a task's writes commute: each
             * collects the writer and readers its bytes had before the
             * task, and bytes the task already wrote add nothing). */
            rc = tensor_map_write(&s->map, space, lo, hi, task, deps);
            if (rc != 0)
                return graph_build_fail(s, map_full(rc, i));
        } else {
            writes[write_count++] = (graph_access){.lo = lo, .hi = hi, .space = space, .mode = i}; /* mode: its arg */
        }
    }
    for (uint32_t w = 0; w < write_count; w++) {
        rc = tensor_map_write(&s->map, writes[w].space, writes[w].lo, writes[w].hi, task, deps);
        if (rc != 0)
            return graph_build_fail(s, map_full(rc, writes[w].mode));
    }
    if (deps->count > s->limits.edge_max - g->edge_count)
        return edges_full(s);
    return close_task(s, func_id, core_type, count);
}
