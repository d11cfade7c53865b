/* The explicit-edge builder of naive_build.h. */
#include "naive_build.h"

#include <stdlib.h>
#include <string.h>

#define NAIVE_SLOT_BYTES 64u
#define NAIVE_TAG_INPUT 0u
#define NAIVE_TAG_OUTPUT 3u

struct naive_task {
    int32_t func;
    uint32_t arg_begin, arg_count;
    uint32_t fanin_begin, fanin_count;
};

/* As large as simpler's graph_image_arg. */
struct naive_arg {
    uint64_t addr;
    uint64_t start_offset;
    uint64_t bytes;
    uint32_t tag;
    uint32_t reserved;
};

struct naive_build {
    struct naive_task *tasks;
    struct naive_arg *args;
    uint32_t *preds;       /* every task's predecessors, in task order */
    uint32_t task_cap, arg_cap, pred_cap, count_cap, succ_cap;
    uint32_t task_count, arg_count, pred_count;
    struct dag dag;        /* the executor's form: fanin, succ_start, succ */
};

/* Makes room for `need` elements of `elem` bytes in *array (capacity *cap). */
static int grow(void **array, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t next = *cap ? *cap : 64;
    while (next < need)
        next *= 2;
    void *p = realloc(*array, (size_t)next * elem);
    if (p == NULL)
        return -1;
    *array = p;
    *cap = next;
    return 0;
}

struct naive_build *naive_build_create(void)
{
    return calloc(1, sizeof(struct naive_build));
}

void naive_build_destroy(struct naive_build *b)
{
    if (b == NULL)
        return;
    free(b->tasks);
    free(b->args);
    free(b->preds);
    free(b->dag.fanin);
    free(b->dag.succ_start);
    free(b->dag.succ);
    free(b);
}

static int arg_add(struct naive_build *b, uint64_t addr, uint32_t slot, uint32_t slots, uint32_t tag)
{
    if (grow((void **)&b->args, &b->arg_cap, b->arg_count + 1, sizeof(*b->args)) != 0)
        return -1;
    b->args[b->arg_count++] = (struct naive_arg){.addr = addr,
                                                 .start_offset = (uint64_t)slot * NAIVE_SLOT_BYTES,
                                                 .bytes = (uint64_t)slots * NAIVE_SLOT_BYTES,
                                                 .tag = tag};
    return 0;
}

static int task_add(struct naive_build *b, uint32_t id, const struct dag_task *t, uint64_t slot_addr)
{
    if (grow((void **)&b->tasks, &b->task_cap, b->task_count + 1, sizeof(*b->tasks)) != 0)
        return -1;
    struct naive_task *rec = &b->tasks[b->task_count++];
    rec->func = 0;
    rec->arg_begin = b->arg_count;
    rec->fanin_begin = b->pred_count;
    for (uint32_t k = 0; k < t->input_count; k++) {
        const struct dag_input *in = &t->inputs[k];
        if (arg_add(b, slot_addr, in->first_slot, in->slot_count, NAIVE_TAG_INPUT) != 0 ||
            grow((void **)&b->preds, &b->pred_cap, b->pred_count + in->slot_count, sizeof(*b->preds)) != 0)
            return -1;
        /* The explicit edges: slot s was written by task s. */
        for (uint32_t s = in->first_slot; s < in->first_slot + in->slot_count; s++)
            b->preds[b->pred_count++] = s;
    }
    if (arg_add(b, slot_addr, id, 1, NAIVE_TAG_OUTPUT) != 0)
        return -1;
    rec->arg_count = b->arg_count - rec->arg_begin;
    rec->fanin_count = b->pred_count - rec->fanin_begin;
    return 0;
}

/* Fan-in counts and successor lists (a counting sort by predecessor). */
static int finish(struct naive_build *b)
{
    struct dag *d = &b->dag;
    uint32_t n = b->task_count, old = b->count_cap;
    if (n + 1 > b->count_cap) {
        uint32_t cap = old;
        if (grow((void **)&d->fanin, &cap, n + 1, sizeof(*d->fanin)) != 0)
            return -1;
        cap = old;
        if (grow((void **)&d->succ_start, &cap, n + 1, sizeof(*d->succ_start)) != 0)
            return -1;
        b->count_cap = cap;
    }
    if (grow((void **)&d->succ, &b->succ_cap, b->pred_count, sizeof(*d->succ)) != 0)
        return -1;
    memset(d->succ_start, 0, (size_t)(n + 1) * sizeof(*d->succ_start));
    for (uint32_t e = 0; e < b->pred_count; e++)
        d->succ_start[b->preds[e] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        d->succ_start[i + 1] += d->succ_start[i];
    /* fanin doubles as the fill cursor, then holds the counts. */
    memcpy(d->fanin, d->succ_start, (size_t)n * sizeof(*d->fanin));
    for (uint32_t i = 0; i < n; i++) {
        const struct naive_task *t = &b->tasks[i];
        for (uint32_t e = t->fanin_begin; e < t->fanin_begin + t->fanin_count; e++)
            d->succ[d->fanin[b->preds[e]]++] = i;
    }
    for (uint32_t i = 0; i < n; i++)
        d->fanin[i] = b->tasks[i].fanin_count;
    d->task_count = n;
    d->edge_count = b->pred_count;
    return 0;
}

int naive_build_run(struct naive_build *b, enum dag_shape shape, uint64_t slot_addr, const struct dag **out)
{
    struct dag_task t;
    uint32_t n = dag_shape_task_count(shape);
    b->task_count = b->arg_count = b->pred_count = 0;
    for (uint32_t i = 0; i < n; i++) {
        dag_shape_task(shape, i, &t);
        if (task_add(b, i, &t, slot_addr) != 0)
            return -1;
    }
    if (finish(b) != 0)
        return -1;
    b->dag.shape = shape;
    b->dag.name = dag_shape_name(shape);
    *out = &b->dag;
    return 0;
}
