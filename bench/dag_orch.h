/*
 * dag_orch.h — the orchestration that submits a dag_shapes.h shape to
 * simpler, used in-process (host graph build) and packed into the bench
 * callable image with an empty kernel (program mode).
 *
 * Call arguments: tensor 0 is the slot buffer, float32, DAG_ORCH_SLOTS *
 * DAG_ORCH_SLOT_ELEMS elements; scalar 0 is the enum dag_shape; scalar 1
 * the kernel every task runs, DAG_ORCH_FUNC_EMPTY (timed runs) or
 * DAG_ORCH_FUNC_CHECK (the verifying run: each task stores its check
 * value, dag_task_body). Task i writes slot i (OUTPUT_EXISTING) and reads
 * its input slot ranges (INPUT, one argument per range), on an AIV core;
 * every argument is a window of a view handle (simpler_orch_view_make)
 * per range width, checked once per build, and each task is one
 * simpler_orch_submit_views call.
 */
#ifndef SIMPLER_BENCH_DAG_ORCH_H
#define SIMPLER_BENCH_DAG_ORCH_H

#include "dag_shapes.h"
#include "simpler/orchestration.h"

#define DAG_ORCH_ENTRY "bench_dag_orchestration"
#define DAG_ORCH_SLOT_ELEMS 16u /* 64 bytes per slot */
#define DAG_ORCH_SLOTS (DAG_FAN_WIDTH + 2u) /* the largest shape */
#define DAG_ORCH_FUNC_EMPTY 0
#define DAG_ORCH_FUNC_CHECK 1

int bench_dag_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args);

#endif
