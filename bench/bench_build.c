/*
 * bench_build — simpler's host build beside the naive explicit-edge
 * build of naive_build.h, per DAG shape, with no device and no other
 * thread: the rows bench_graph prints for the builds, alone, so that
 * they can be profiled. Instruction counts are repeatable where the
 * clock is not (the machine is shared), e.g.
 *   valgrind --tool=callgrind --toggle-collect=simpler_graph_sizer_measure \
 *            ./build-bench/bench/bench_build --runs 1
 * counts the instructions of the host builds (two per shape: one
 * checked, then --runs timed); --toggle-collect=naive_build_run those of
 * the naive ones.
 * Usage: bench_build [--json] [--runs N]
 */
#include <stdio.h>
#include <stdlib.h>

#include "dag_shapes.h"
#include "naive_build.h"
#include "simpler_side.h"
#include "timing.h"

#ifndef BENCH_DAG_CALLABLE
#define BENCH_DAG_CALLABLE "bench_dag.callable"
#endif

#define FAKE_SLOT_ADDR 0x40000000ull

int main(int argc, char **argv)
{
    struct bench_options opt;
    int exit_code = 0;
    if (bench_options_parse(argc, argv, &opt, &exit_code))
        return exit_code;
    static struct bench_report report = {.title = "bench_build"};
    struct naive_build *naive = naive_build_create();
    struct simpler_build *build = NULL;
    int rc = simpler_build_create(BENCH_DAG_CALLABLE, &build);
    if (naive == NULL || rc != 0) {
        fprintf(stderr, "bench_build: cannot create the builders (%d)\n", rc);
        return 1;
    }
    for (int shape = 0; shape < DAG_SHAPE_COUNT; shape++) {
        double naive_ns[BENCH_RUNS_MAX], simpler_ns[BENCH_RUNS_MAX], ratio[BENCH_RUNS_MAX];
        const struct dag *built;
        uint32_t tasks = 0, want = dag_shape_task_count((enum dag_shape)shape);
        if (!bench_selected(&opt, dag_shape_name((enum dag_shape)shape)))
            continue;
        /* One build of each, checked, before the timed ones. */
        if (naive_build_run(naive, (enum dag_shape)shape, FAKE_SLOT_ADDR, &built) != 0 ||
            built->task_count != want ||
            simpler_build_once(build, (enum dag_shape)shape, &simpler_ns[0], &tasks) != 0 || tasks != want) {
            fprintf(stderr, "bench_build: %s: a build failed or collected %u tasks\n",
                    dag_shape_name((enum dag_shape)shape), tasks);
            return 1;
        }
        for (unsigned run = 0; run < opt.runs; run++) {
            uint64_t t0 = bench_now_ns();
            rc = naive_build_run(naive, (enum dag_shape)shape, FAKE_SLOT_ADDR, &built);
            naive_ns[run] = (double)(bench_now_ns() - t0) / want;
            rc = rc ? rc : simpler_build_once(build, (enum dag_shape)shape, &simpler_ns[run], &tasks);
            if (rc != 0) {
                fprintf(stderr, "bench_build: a timed build failed (%d)\n", rc);
                return 1;
            }
            ratio[run] = simpler_ns[run] / naive_ns[run];
        }
        char name[64];
        snprintf(name, sizeof(name), "%s: naive build (explicit edges)", dag_shape_name((enum dag_shape)shape));
        bench_report_add(&report, name, "ns/task", naive_ns, opt.runs);
        snprintf(name, sizeof(name), "%s: simpler host build", dag_shape_name((enum dag_shape)shape));
        bench_report_add(&report, name, "ns/task", simpler_ns, opt.runs);
        snprintf(name, sizeof(name), "%s: host / naive, same run", dag_shape_name((enum dag_shape)shape));
        bench_report_add(&report, name, "x", ratio, opt.runs);
    }
    simpler_build_destroy(build);
    naive_build_destroy(naive);
    bench_report_print(&report, opt.json);
    return 0;
}
