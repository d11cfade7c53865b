/*
 * naive_build.h — the yardstick for simpler's host build: a plain
 * explicit-edge builder of the same DAG. Where simpler derives each
 * task's predecessors from the tensor regions it reads and writes, this
 * builder is told them (slot s of a shape is written by task s, so the
 * predecessors of a task are the slots it reads). Per task it records
 * what simpler's build records: a task record, one 32-byte record per
 * tensor argument (the input ranges and the output slot) and the
 * predecessor list; then it turns the lists into what an executor needs
 * (fan-in counts, successor lists grouped by predecessor), the form
 * baseline_pool.h runs. Storage grows by doubling and is kept across
 * builds, as simpler keeps its scratch. Nothing is clever about it.
 */
#ifndef SIMPLER_BENCH_NAIVE_BUILD_H
#define SIMPLER_BENCH_NAIVE_BUILD_H

#include <stdint.h>

#include "dag_shapes.h"

struct naive_build;

/* NULL when host memory runs out. */
struct naive_build *naive_build_create(void);
void naive_build_destroy(struct naive_build *b);

/* Builds `shape` with the slot buffer at `slot_addr` (64-byte slots).
 * Returns 0 and points *out at the built graph (fanin, succ_start, succ,
 * task_count, edge_count set; valid until the next build or destroy), or
 * -1 when host memory runs out. */
int naive_build_run(struct naive_build *b, enum dag_shape shape, uint64_t slot_addr, const struct dag **out);

#endif
