/*
 * tbb_flow.h — the same DAGs on oneTBB's flow graph (C++), the second
 * yardstick beside baseline_pool.h: one continue_node per task, one
 * make_edge per dependency, the tasks without predecessors started with
 * try_put, then wait_for_all, on a task arena of one thread per core.
 * Built only when CMake finds oneTBB (Debian libtbb-dev; `make bench`
 * installs it as root); without it bench_graph prints n/a for its rows.
 */
#ifndef SIMPLER_BENCH_TBB_FLOW_H
#define SIMPLER_BENCH_TBB_FLOW_H

#include <stdint.h>

#include "dag_shapes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A task body; called once per task of a run, from a TBB worker. */
typedef void (*tbb_flow_task_fn)(uint32_t task, void *user);

struct tbb_flow;
/* A runner on `threads` threads; NULL when oneTBB is not built in or
 * memory runs out. */
struct tbb_flow *tbb_flow_create(unsigned threads);
void tbb_flow_destroy(struct tbb_flow *f);
/* Builds the flow graph of `d` (nodes and edges) and runs it once:
 * *build_ns is the graph's construction, *total_ns construction plus
 * execution (the graph's destruction comes after both). 0, or -1 when
 * something threw. */
int tbb_flow_run(struct tbb_flow *f, const struct dag *d, tbb_flow_task_fn fn, void *user, uint64_t *build_ns,
                 uint64_t *total_ns);

/* oneTBB's replay: the flow graph of `d` built once (in f's arena) and
 * run again and again, each run a try_put to every task without
 * predecessors then wait_for_all (a continue_node re-arms itself once it
 * fired, so the same nodes run again). NULL when oneTBB is not built in
 * or something threw. */
struct tbb_flow_graph;
struct tbb_flow_graph *tbb_flow_graph_build(struct tbb_flow *f, const struct dag *d, tbb_flow_task_fn fn,
                                            void *user);
/* One run of the built graph; *ns is its time. 0, or -1 when something
 * threw. */
int tbb_flow_graph_run(struct tbb_flow_graph *g, uint64_t *ns);
void tbb_flow_graph_destroy(struct tbb_flow_graph *g);

#ifdef __cplusplus
}
#endif

#endif
