/*
 * baseline_pool.h — the yardstick for the runtime's graph benchmarks: a
 * plain thread pool with one mutex, one condition variable for workers
 * and one for the caller. A run seeds the tasks with no predecessors into
 * a shared FIFO; a worker takes a task, runs its body, then decrements
 * each successor's fan-in counter and queues those that reach zero. A
 * worker that made tasks ready keeps one for itself and wakes one other
 * worker per further task, so a chain runs on one worker without a
 * handoff. Nothing is clever about it on purpose: it is what a runtime
 * has to beat.
 */
#ifndef SIMPLER_BENCH_BASELINE_POOL_H
#define SIMPLER_BENCH_BASELINE_POOL_H

#include <stdint.h>

#include "dag_shapes.h"

struct baseline_pool;

/* A task body; called once per task of a run, from a worker thread. */
typedef void (*baseline_task_fn)(uint32_t task, void *user);

/* Starts `worker_count` (1..64) workers. NULL when threads or memory run
 * out (nothing is left running then). */
struct baseline_pool *baseline_pool_create(unsigned worker_count);
/* Stops and joins the workers. NULL is a no-op. */
void baseline_pool_destroy(struct baseline_pool *p);

/* Runs every task of `d` once in dependency order and returns when the
 * last one finished. *elapsed_ns is the time from seeding the first ready
 * task to the last completion (the per-run allocation is outside it).
 * Returns 0, or -1 when host memory runs out (nothing ran). One run at a
 * time per pool. */
int baseline_pool_run(struct baseline_pool *p, const struct dag *d, baseline_task_fn fn, void *user,
                      uint64_t *elapsed_ns);

#endif
