/*
 * bench_graph — the three DAG shapes of dag_shapes.h (W1 chain, W2 fan,
 * W3 layers), empty task bodies, run by the baseline mutex+condvar pool
 * (baseline_pool.h). Each figure is ns per task, the median of --runs
 * runs (default 7). Usage: bench_graph [--json] [--runs N]
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "baseline_pool.h"
#include "dag_shapes.h"
#include "timing.h"

/* The machine has 2 cores; the baseline gets one worker per core. */
#define BASELINE_WORKERS 2u

static void empty_task(uint32_t task, void *user)
{
    (void)task;
    (void)user;
}

/* The verifying run's body: stamps each task with its completion rank. */
struct order_check {
    atomic_uint next;
    uint32_t *rank;   /* 0 = not run; else 1 + completion order */
    unsigned twice;   /* tasks run more than once */
};

static void stamp_task(uint32_t task, void *user)
{
    struct order_check *c = user;
    if (c->rank[task] != 0)
        c->twice++;  /* never concurrent with itself: a task runs once */
    c->rank[task] = atomic_fetch_add(&c->next, 1) + 1;
}

/* 0 when one baseline run ran every task once, each after all its
 * predecessors; the first figure is not trusted before this holds. */
static int baseline_verify(struct baseline_pool *pool, const struct dag *d)
{
    struct order_check c = {.rank = calloc(d->task_count, sizeof(uint32_t))};
    uint64_t ns;
    if (c.rank == NULL || baseline_pool_run(pool, d, stamp_task, &c, &ns) != 0) {
        free(c.rank);
        return -1;
    }
    int bad = c.twice != 0;
    for (uint32_t t = 0; t < d->task_count && !bad; t++) {
        bad = c.rank[t] == 0;
        for (uint32_t e = d->succ_start[t]; e < d->succ_start[t + 1] && !bad; e++)
            bad = c.rank[t] >= c.rank[d->succ[e]];
    }
    free(c.rank);
    return bad ? -1 : 0;
}

static void bench_baseline(struct bench_report *r, struct baseline_pool *pool, const struct dag *d,
                           unsigned runs)
{
    double samples[BENCH_RUNS_MAX];
    uint64_t ns = 0;
    if (baseline_verify(pool, d) != 0) {
        fprintf(stderr, "bench_graph: %s: the baseline pool broke a dependency\n", d->name);
        exit(1);
    }
    for (unsigned run = 0; run < runs; run++) {
        if (baseline_pool_run(pool, d, empty_task, NULL, &ns) != 0) {
            fprintf(stderr, "bench_graph: baseline run out of memory\n");
            exit(1);
        }
        samples[run] = (double)ns / d->task_count;
    }
    char name[64];
    snprintf(name, sizeof(name), "%s: baseline pool execute", d->name);
    bench_report_add(r, name, "ns/task", samples, runs);
}

int main(int argc, char **argv)
{
    struct bench_options opt;
    int exit_code = 0;
    if (bench_options_parse(argc, argv, &opt, &exit_code))
        return exit_code;
    static struct bench_report report = {.title = "bench_graph"};
    struct baseline_pool *pool = baseline_pool_create(BASELINE_WORKERS);
    if (pool == NULL) {
        fprintf(stderr, "bench_graph: cannot start the baseline pool\n");
        return 1;
    }
    for (int shape = 0; shape < DAG_SHAPE_COUNT; shape++) {
        struct dag d;
        if (dag_create(&d, (enum dag_shape)shape) != 0) {
            fprintf(stderr, "bench_graph: out of memory building a DAG\n");
            return 1;
        }
        bench_baseline(&report, pool, &d, opt.runs);
        dag_destroy(&d);
    }
    baseline_pool_destroy(pool);
    bench_report_print(&report, opt.json);
    return 0;
}
