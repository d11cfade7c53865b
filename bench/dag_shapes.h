/*
 * dag_shapes.h — the three task graphs the graph benchmarks run, built
 * once and shared by the baseline pool and the simpler runs:
 *   W1 chain   10,000 tasks, each depending on the one before;
 *   W2 fan     1 -> 10,000 -> 1 (a source, 10,000 siblings, a join);
 *   W3 layers  100 layers of 100 tasks, task j of layer l depending on
 *              tasks j and (j+1) mod 100 of layer l-1.
 * A shape is described the way an orchestration would submit it: task i
 * writes slot i of one slot array and reads up to DAG_INPUTS_MAX ranges
 * of slots written by earlier tasks (the W2 join reads the whole sibling
 * range as one input). The edges a runtime must derive from that are
 * precomputed here (fan-in counts and successor lists) for the baseline.
 */
#ifndef SIMPLER_BENCH_DAG_SHAPES_H
#define SIMPLER_BENCH_DAG_SHAPES_H

#include <stdint.h>

#define DAG_CHAIN_TASKS 10000u
#define DAG_FAN_WIDTH 10000u
#define DAG_LAYER_COUNT 100u
#define DAG_LAYER_WIDTH 100u
#define DAG_INPUTS_MAX 2u

enum dag_shape { DAG_CHAIN, DAG_FAN, DAG_LAYERS, DAG_SHAPE_COUNT };

struct dag_input {
    uint32_t first_slot;
    uint32_t slot_count;
};

struct dag_task {
    uint32_t input_count;
    struct dag_input inputs[DAG_INPUTS_MAX];
};

struct dag {
    enum dag_shape shape;
    const char *name;          /* "W1 chain", "W2 fan", "W3 layers" */
    uint32_t task_count;
    struct dag_task *tasks;    /* task i writes slot i */
    uint32_t *fanin;           /* predecessors per task */
    uint32_t *succ_start;      /* task_count + 1 offsets into succ */
    uint32_t *succ;            /* successor ids, grouped by predecessor */
    uint32_t edge_count;
};

/* The shape's tasks, computed rather than stored, so that an
 * orchestration can submit a shape without allocating: the task count,
 * and task `task`'s inputs (task < count). */
uint32_t dag_shape_task_count(enum dag_shape shape);
void dag_shape_task(enum dag_shape shape, uint32_t task, struct dag_task *out);
const char *dag_shape_name(enum dag_shape shape);

/* The check value every benchmark task body computes, so that a run can
 * be verified afterwards: task i stores 1 + the largest first element of
 * its input ranges' first slots into the first element of slot i (a task
 * without inputs stores 1). `slots` holds slot_elems floats per slot. A
 * task that ran before one of its predecessors stores a value that
 * differs from dag_expected_values. */
void dag_task_body(const struct dag_task *task, uint32_t task_id, float *slots, uint32_t slot_elems);
/* The values a correct run leaves, one per task: values[i] is task i's. */
void dag_expected_values(enum dag_shape shape, float *values);

/* Builds `shape` into *d. Returns 0, or -1 when host memory runs out
 * (then *d holds nothing to destroy). */
int dag_create(struct dag *d, enum dag_shape shape);
void dag_destroy(struct dag *d);

#endif
