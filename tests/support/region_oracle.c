/* The brute-force dependency oracle (region_oracle.h). */
#include "region_oracle.h"

#include <stdio.h>
#include <string.h>

#include "graph/graph.h"

const ro_prog *ro_current;

static uint32_t rng_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return rng_next(s) % n;
}

/* A random view of tensor t: a 1-D slice, or a 2-D strided block. */
static void random_view(uint64_t *s, const ro_prog *p, ro_arg *a)
{
    uint32_t n = p->places[a->tensor].elems;
    a->dims = 1;
    a->rows = a->stride = 1;
    if (rng_below(s, 4) == 0) {
        a->dims = 2;
        a->cols = 1 + rng_below(s, 4);
        a->stride = a->cols + rng_below(s, 4);
        a->start = rng_below(s, n - a->cols + 1);
        a->rows = 1 + rng_below(s, (n - a->start - a->cols) / a->stride + 1);
        return;
    }
    switch (rng_below(s, 4)) {
    case 0: /* the whole tensor */
        a->start = 0;
        a->cols = n;
        break;
    case 1: /* one of four quarters: neighbours touch, never overlap */
        a->cols = n / 4;
        a->start = rng_below(s, 4) * a->cols;
        break;
    default:
        a->start = rng_below(s, n);
        a->cols = 1 + rng_below(s, n - a->start);
        break;
    }
}

void ro_random_prog(uint64_t *s, ro_prog *p)
{
    uint32_t made = 0; /* args so far, to repeat regions from */
    ro_arg *seen[RO_TASKS_MAX * RO_ARGS_MAX];
    p->task_count = 1 + rng_below(s, RO_TASKS_MAX);
    for (uint32_t i = 0; i < p->task_count; i++) {
        ro_task *t = &p->tasks[i];
        t->arg_count = 1 + rng_below(s, RO_ARGS_MAX);
        t->scalar = rng_below(s, 4) == 0;
        for (uint32_t k = 0; k < t->arg_count; k++) {
            ro_arg *a = &t->args[k];
            if (made > 0 && rng_below(s, 5) < 2) {
                *a = *seen[rng_below(s, made)]; /* the same region again */
            } else {
                a->tensor = (uint8_t)rng_below(s, p->caller_count + RO_HEAP_TENSORS);
                random_view(s, p, a);
            }
            int heap = a->tensor >= p->caller_count;
            static const uint8_t heap_tags[] = {SIMPLER_TAG_INPUT, SIMPLER_TAG_OUTPUT, SIMPLER_TAG_INOUT,
                                                SIMPLER_TAG_NO_DEP};
            static const uint8_t caller_tags[] = {SIMPLER_TAG_INPUT, SIMPLER_TAG_OUTPUT_EXISTING, SIMPLER_TAG_INOUT,
                                                  SIMPLER_TAG_NO_DEP};
            uint32_t pick = rng_below(s, 9); /* inputs twice as likely */
            pick = pick < 4 ? 0 : pick - 4 < 3 ? 1 + (pick - 4) % 2 : 3;
            a->tag = heap ? heap_tags[pick] : caller_tags[pick];
            seen[made++] = a;
        }
    }
}


int ro_orch(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    const ro_prog *p = ro_current;
    ChipTensor tensors[RO_CALLERS_MAX + RO_HEAP_TENSORS];
    uint32_t heap_shape = RO_HEAP_ELEMS;
    if (args->tensor_count != (int32_t)p->caller_count)
        return -1;
    for (uint32_t i = 0; i < p->caller_count; i++)
        if (simpler_orch_tensor(orch, (int32_t)i, &tensors[i]) != 0)
            return -1;
    for (uint32_t k = 0; k < RO_HEAP_TENSORS; k++)
        if (simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &heap_shape, &tensors[p->caller_count + k]) !=
            0)
            return -2;
    for (uint32_t i = 0; i < p->task_count; i++) {
        const ro_task *t = &p->tasks[i];
        if (simpler_orch_args_begin(orch) != 0)
            return -3;
        for (uint32_t k = 0; k < t->arg_count; k++) {
            const ro_arg *a = &t->args[k];
            ChipTensor v = tensors[a->tensor];
            memset(v.shapes, 0, sizeof(v.shapes));
            memset(v.strides, 0, sizeof(v.strides));
            v.start_offset = a->start;
            v.ndims = a->dims;
            if (a->dims == 1) {
                v.shapes[0] = a->cols;
                v.strides[0] = 1;
            } else {
                v.shapes[0] = a->rows;
                v.shapes[1] = a->cols;
                v.strides[0] = a->stride;
                v.strides[1] = 1;
            }
            if (orch->ops->add_tensor(orch, &v, a->tag) != 0)
                return -4;
        }
        if (t->scalar && simpler_orch_add_scalar(orch, i) != 0)
            return -5;
        if (simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV) != 0)
            return -6;
    }
    return 0;
}

void ro_place_heap(ro_prog *p, uint32_t heap_base)
{
    for (uint32_t k = 0; k < RO_HEAP_TENSORS; k++) {
        ro_place *pl = &p->places[p->caller_count + k];
        pl->cell_base = heap_base + k * RO_HEAP_ELEMS * 4u;
        pl->elem_bytes = 4;
        pl->elems = RO_HEAP_ELEMS;
    }
}

int ro_arg_cells(const ro_prog *p, const ro_arg *a, uint32_t *lo, uint32_t *hi)
{
    const ro_place *pl = &p->places[a->tensor];
    if (a->rows == 0 || a->cols == 0)
        return -1;
    uint64_t extent = 1 + (uint64_t)(a->rows - 1) * a->stride + (a->cols - 1);
    uint64_t l = pl->cell_base + (uint64_t)a->start * pl->elem_bytes;
    uint64_t h = pl->cell_base + ((uint64_t)a->start + extent) * pl->elem_bytes;
    if (h > RO_CELLS || l >= h)
        return -1;
    *lo = (uint32_t)l;
    *hi = (uint32_t)h;
    return 0;
}

static void cells_mark(uint64_t *words, uint32_t lo, uint32_t hi)
{
    for (uint32_t b = lo; b < hi; b++)
        words[b / 64] |= 1ull << (b % 64);
}

int ro_task_cells(const ro_prog *p, const ro_task *t, ro_cells *c)
{
    memset(c, 0, sizeof(*c));
    for (uint32_t k = 0; k < t->arg_count; k++) {
        const ro_arg *a = &t->args[k];
        uint32_t lo, hi;
        if (ro_arg_cells(p, a, &lo, &hi) != 0)
            return -1;
        if (a->tag == SIMPLER_TAG_INPUT || a->tag == SIMPLER_TAG_INOUT)
            cells_mark(c->read, lo, hi);
        if (a->tag == SIMPLER_TAG_OUTPUT || a->tag == SIMPLER_TAG_OUTPUT_EXISTING || a->tag == SIMPLER_TAG_INOUT)
            cells_mark(c->write, lo, hi);
    }
    return 0;
}

int ro_edge(const ro_cells *cells, uint32_t i, uint32_t j)
{
    for (uint32_t w = 0; w < RO_WORDS; w++) {
        const ro_cells *ci = &cells[i], *cj = &cells[j];
        uint64_t both = (ci->read[w] | ci->write[w]) & (cj->read[w] | cj->write[w]);
        uint64_t hazard = both & (ci->write[w] | cj->write[w]);
        for (uint32_t k = i + 1; k < j && hazard != 0; k++)
            hazard &= ~cells[k].write[w];
        if (hazard != 0)
            return 1;
    }
    return 0;
}

int ro_conflict(const ro_cells *ci, const ro_cells *cj)
{
    for (uint32_t w = 0; w < RO_WORDS; w++) {
        uint64_t both = (ci->read[w] | ci->write[w]) & (cj->read[w] | cj->write[w]);
        if ((both & (ci->write[w] | cj->write[w])) != 0)
            return 1;
    }
    return 0;
}

int ro_check_graph(const ro_prog *p, const graph *g, ro_cells *cells, ro_report *r)
{
    uint64_t reach[RO_TASKS_MAX]; /* bit i: the build's edges order task i before this one */
    memset(r, 0, sizeof(*r));
    if (g->task_count != p->task_count) {
        snprintf(r->why, sizeof(r->why), "build has %u tasks, program %u", g->task_count, p->task_count);
        return -1;
    }
    for (uint32_t j = 0; j < p->task_count; j++) {
        if (ro_task_cells(p, &p->tasks[j], &cells[j]) != 0) {
            snprintf(r->why, sizeof(r->why), "task %u: a view outside its tensor was accepted", j);
            return -1;
        }
    }
    /* First the property the runtime relies on, from the build's own
     * edges: every conflicting pair is ordered, directly or through
     * other tasks. */
    for (uint32_t j = 0; j < p->task_count; j++) {
        const graph_image_task *t = &g->tasks[j];
        reach[j] = 0;
        for (uint32_t k = 0; k < t->fanin_count; k++) {
            uint32_t i = g->fanin[t->fanin_begin + k];
            if (i >= j) {
                snprintf(r->why, sizeof(r->why), "task %u: predecessor %u is not an earlier task", j, i);
                return -1;
            }
            reach[j] |= reach[i] | 1ull << i;
        }
        for (uint32_t i = 0; i < j; i++) {
            if (!ro_conflict(&cells[i], &cells[j]))
                continue;
            r->conflicts++;
            if ((reach[j] >> i & 1u) == 0) {
                snprintf(r->why, sizeof(r->why), "tasks %u and %u conflict and no path of edges orders them", i, j);
                return -1;
            }
        }
    }
    /* Then the exact edge set: no edge missing, none extra, none twice. */
    for (uint32_t j = 0; j < p->task_count; j++) {
        const graph_image_task *t = &g->tasks[j];
        const uint32_t *got = &g->fanin[t->fanin_begin];
        uint32_t next = 0; /* index into got */
        for (uint32_t i = 0; i < j; i++) {
            if (!ro_edge(cells, i, j))
                continue;
            r->edges++;
            if (next >= t->fanin_count || got[next] != i) {
                snprintf(r->why, sizeof(r->why), "task %u: oracle edge from %u, build has %s %u", j, i,
                         next < t->fanin_count ? "predecessor" : "no more predecessors after",
                         next < t->fanin_count ? got[next] : (next ? got[next - 1] : 0));
                return -1;
            }
            next++;
            /* a WAR edge: i only read what j writes */
            for (uint32_t w = 0; w < RO_WORDS; w++)
                if ((cells[i].read[w] & ~cells[i].write[w] & cells[j].write[w]) != 0) {
                    r->war++;
                    break;
                }
        }
        if (next != t->fanin_count) {
            snprintf(r->why, sizeof(r->why), "task %u: build has %u predecessors, oracle %u (extra: %u)", j,
                     t->fanin_count, next, got[next]);
            return -1;
        }
    }
    if (g->edge_count != r->edges) {
        snprintf(r->why, sizeof(r->why), "build counts %u edges, oracle %u", g->edge_count, r->edges);
        return -1;
    }
    return 0;
}
