/* The three benchmark DAGs of dag_shapes.h and their derived edges. */
#include "dag_shapes.h"

#include <stdlib.h>
#include <string.h>

static void input_add(struct dag_task *t, uint32_t first, uint32_t count)
{
    t->inputs[t->input_count++] = (struct dag_input){.first_slot = first, .slot_count = count};
}

uint32_t dag_shape_task_count(enum dag_shape shape)
{
    static const uint32_t counts[DAG_SHAPE_COUNT] = {
        [DAG_CHAIN] = DAG_CHAIN_TASKS,
        [DAG_FAN] = DAG_FAN_WIDTH + 2,
        [DAG_LAYERS] = DAG_LAYER_COUNT * DAG_LAYER_WIDTH,
    };
    return counts[shape];
}

const char *dag_shape_name(enum dag_shape shape)
{
    static const char *const names[DAG_SHAPE_COUNT] = {
        [DAG_CHAIN] = "W1 chain", [DAG_FAN] = "W2 fan", [DAG_LAYERS] = "W3 layers"};
    return names[shape];
}

/* W1: task i reads slot i-1. W2: the siblings 1..width read the source's
 * slot 0, the join reads all of theirs at once. W3: task j of layer l
 * reads slots j and (j+1) mod width of layer l-1. */
void dag_shape_task(enum dag_shape shape, uint32_t task, struct dag_task *out)
{
    out->input_count = 0;
    if (task == 0)
        return;
    if (shape == DAG_CHAIN) {
        input_add(out, task - 1, 1);
    } else if (shape == DAG_FAN) {
        if (task <= DAG_FAN_WIDTH)
            input_add(out, 0, 1);
        else
            input_add(out, 1, DAG_FAN_WIDTH);
    } else if (task >= DAG_LAYER_WIDTH) {
        uint32_t prev = (task / DAG_LAYER_WIDTH - 1) * DAG_LAYER_WIDTH, j = task % DAG_LAYER_WIDTH;
        input_add(out, prev + j, 1);
        input_add(out, prev + (j + 1) % DAG_LAYER_WIDTH, 1);
    }
}

void dag_task_body(const struct dag_task *task, uint32_t task_id, float *slots, uint32_t slot_elems)
{
    float v = 0;
    for (uint32_t k = 0; k < task->input_count; k++) {
        float in = slots[(size_t)task->inputs[k].first_slot * slot_elems];
        if (in > v)
            v = in;
    }
    slots[(size_t)task_id * slot_elems] = v + 1;
}

void dag_expected_values(enum dag_shape shape, float *values)
{
    struct dag_task task;
    for (uint32_t i = 0; i < dag_shape_task_count(shape); i++) {
        dag_shape_task(shape, i, &task);
        dag_task_body(&task, i, values, 1);
    }
}

/* Slots of one task's inputs never overlap, so each slot is one edge
 * from the task that wrote it. */
static uint32_t edges_total(const struct dag *d)
{
    uint32_t edges = 0;
    for (uint32_t i = 0; i < d->task_count; i++)
        for (uint32_t k = 0; k < d->tasks[i].input_count; k++)
            edges += d->tasks[i].inputs[k].slot_count;
    return edges;
}

/* Counting sort of the edges by predecessor into succ_start/succ;
 * `next` is scratch of task_count entries. */
static void edges_fill(struct dag *d, uint32_t *next)
{
    for (uint32_t i = 0; i < d->task_count; i++) {
        for (uint32_t k = 0; k < d->tasks[i].input_count; k++) {
            const struct dag_input *in = &d->tasks[i].inputs[k];
            d->fanin[i] += in->slot_count;
            for (uint32_t s = in->first_slot; s < in->first_slot + in->slot_count; s++)
                d->succ_start[s + 1]++;
        }
    }
    for (uint32_t i = 0; i < d->task_count; i++)
        d->succ_start[i + 1] += d->succ_start[i];
    memcpy(next, d->succ_start, d->task_count * sizeof(*next));
    for (uint32_t i = 0; i < d->task_count; i++)
        for (uint32_t k = 0; k < d->tasks[i].input_count; k++) {
            const struct dag_input *in = &d->tasks[i].inputs[k];
            for (uint32_t s = in->first_slot; s < in->first_slot + in->slot_count; s++)
                d->succ[next[s]++] = i;
        }
}

int dag_create(struct dag *d, enum dag_shape shape)
{
    memset(d, 0, sizeof(*d));
    d->task_count = dag_shape_task_count(shape);
    d->tasks = calloc(d->task_count, sizeof(*d->tasks));
    if (d->tasks == NULL)
        return -1;
    d->shape = shape;
    d->name = dag_shape_name(shape);
    for (uint32_t i = 0; i < d->task_count; i++)
        dag_shape_task(shape, i, &d->tasks[i]);
    d->edge_count = edges_total(d);
    d->fanin = calloc(d->task_count, sizeof(*d->fanin));
    d->succ_start = calloc((size_t)d->task_count + 1, sizeof(*d->succ_start));
    d->succ = calloc(d->edge_count ? d->edge_count : 1, sizeof(*d->succ));
    uint32_t *next = calloc(d->task_count, sizeof(*next));
    if (d->fanin == NULL || d->succ_start == NULL || d->succ == NULL || next == NULL) {
        free(next);
        dag_destroy(d);
        return -1;
    }
    edges_fill(d, next);
    free(next);
    return 0;
}

void dag_destroy(struct dag *d)
{
    free(d->tasks);
    free(d->fanin);
    free(d->succ_start);
    free(d->succ);
    memset(d, 0, sizeof(*d));
}
