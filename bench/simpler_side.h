/*
 * simpler_side.h — the simpler half of bench_graph: the host graph build
 * of a DAG shape (a SimplerGraphSizer measure, no device), and the same
 * shape run end to end in program mode (simpler_run) from the bench
 * callable image, both through the public API only. Each returns ns per task for one run, or fails with a
 * status the bench prints instead of a figure.
 */
#ifndef SIMPLER_BENCH_SIMPLER_SIDE_H
#define SIMPLER_BENCH_SIMPLER_SIDE_H

#include <stddef.h>
#include <stdint.h>

#include "dag_shapes.h"

struct simpler_build;
/* A sizer for the callable image at `image_path`, with scratch for the
 * largest shape. 0, or a PTO_RUNTIME_ERR_* status. */
int simpler_build_create(const char *image_path, struct simpler_build **out);
void simpler_build_destroy(struct simpler_build *b);
/* Builds `shape` on the host (orchestration, TensorMap, requirements; no
 * graph image is written) and sets *ns_per_task for that, and
 * *task_count to the tasks the build collected. 0 or the build's
 * status. */
int simpler_build_once(struct simpler_build *b, enum dag_shape shape, double *ns_per_task, uint32_t *task_count);

struct simpler_program;
/* A program-mode context on device 0 with the image at `image_path`
 * registered as callable 0 and a device slot buffer. 0, or the status of
 * the step that failed (*stage names it; nothing is left open). */
int simpler_program_create(const char *image_path, struct simpler_program **out, const char **stage);
void simpler_program_destroy(struct simpler_program *p);
/* One simpler_run of `shape` with the empty kernel, in ns per task: the
 * whole call, and where it went (simpler_run_times): the host build of
 * this run (orchestration, capacity, image write), execute = run - that
 * build, and execute's parts: upload (staging, image copy), launch (the
 * chain's enqueue), wait (until both streams are idle; the scheduler's
 * validation and loop inside it) and finish (status word, copies back). */
struct simpler_run_sample {
    double run, build, execute, upload, launch, wait, validation, loop, finish;
};
int simpler_program_run(struct simpler_program *p, enum dag_shape shape, struct simpler_run_sample *out);
/* One simpler_run of `shape` with the check kernel on zeroed slots, then
 * compares every task's check value (dag_shapes.h) with the expected one. 0 when all match,
 * SIMPLER_SIDE_WRONG_RESULT (with *bad_task set) when one does not, or
 * the status of the call that failed. */
#define SIMPLER_SIDE_WRONG_RESULT 1
int simpler_program_verify(struct simpler_program *p, enum dag_shape shape, uint32_t *bad_task);

#endif
