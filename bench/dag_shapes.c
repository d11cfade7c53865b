/* The three benchmark DAGs of dag_shapes.h and their derived edges. */
#include "dag_shapes.h"

#include <stdlib.h>
#include <string.h>

static void input_add(struct dag_task *t, uint32_t first, uint32_t count)
{
    t->inputs[t->input_count++] = (struct dag_input){.first_slot = first, .slot_count = count};
}

static uint32_t chain_fill(struct dag_task *tasks)
{
    for (uint32_t i = 1; i < DAG_CHAIN_TASKS; i++)
        input_add(&tasks[i], i - 1, 1);
    return DAG_CHAIN_TASKS;
}

static uint32_t fan_fill(struct dag_task *tasks)
{
    for (uint32_t i = 1; i <= DAG_FAN_WIDTH; i++)
        input_add(&tasks[i], 0, 1);
    input_add(&tasks[DAG_FAN_WIDTH + 1], 1, DAG_FAN_WIDTH);
    return DAG_FAN_WIDTH + 2;
}

static uint32_t layers_fill(struct dag_task *tasks)
{
    for (uint32_t l = 1; l < DAG_LAYER_COUNT; l++) {
        uint32_t prev = (l - 1) * DAG_LAYER_WIDTH;
        for (uint32_t j = 0; j < DAG_LAYER_WIDTH; j++) {
            struct dag_task *t = &tasks[l * DAG_LAYER_WIDTH + j];
            input_add(t, prev + j, 1);
            input_add(t, prev + (j + 1) % DAG_LAYER_WIDTH, 1);
        }
    }
    return DAG_LAYER_COUNT * DAG_LAYER_WIDTH;
}

static uint32_t shape_capacity(enum dag_shape shape)
{
    static const uint32_t caps[DAG_SHAPE_COUNT] = {
        [DAG_CHAIN] = DAG_CHAIN_TASKS,
        [DAG_FAN] = DAG_FAN_WIDTH + 2,
        [DAG_LAYERS] = DAG_LAYER_COUNT * DAG_LAYER_WIDTH,
    };
    return caps[shape];
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
    static const char *const names[DAG_SHAPE_COUNT] = {
        [DAG_CHAIN] = "W1 chain", [DAG_FAN] = "W2 fan", [DAG_LAYERS] = "W3 layers"};
    memset(d, 0, sizeof(*d));
    uint32_t cap = shape_capacity(shape);
    d->tasks = calloc(cap, sizeof(*d->tasks));
    if (d->tasks == NULL)
        return -1;
    d->name = names[shape];
    d->task_count = shape == DAG_CHAIN ? chain_fill(d->tasks) : shape == DAG_FAN ? fan_fill(d->tasks)
                                                                                 : layers_fill(d->tasks);
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
