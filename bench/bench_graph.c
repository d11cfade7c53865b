/*
 * bench_graph — the three DAG shapes of dag_shapes.h (W1 chain, W2 fan,
 * W3 layers) with empty task bodies, side by side in one run:
 *   baseline execute  the mutex+condvar pool of baseline_pool.h;
 *   naive build       the explicit-edge build of naive_build.h (what
 *                     simpler's host build is measured against), and
 *                     naive build + the pool's execute, timed as one;
 *   oneTBB build      oneTBB's flow graph of the shape (tbb_flow.h),
 *                     its construction, and construction + execution
 *                     (n/a when the bench was built without oneTBB);
 *   simpler build     the host graph build of the shape, as a
 *                     SimplerGraphSizer measure (orchestration, TensorMap,
 *                     requirements; no image written), no device;
 *   simpler run       simpler_run in program mode, end to end (build,
 *                     upload, device execution on simdev, wait);
 *   simpler execute   each run less its own host build (the library
 *                     times its phases: simpler_run_times), and
 *     of which        the parts of that: upload (staging and image
 *                     copy), launch (chain enqueue), wait (until the
 *                     streams are idle; in it the scheduler's own
 *                     timings: validation, and the loop from seed to
 *                     last completion) and finish (status, copies back).
 * Each figure is ns per task, the median of --runs runs (default 7); the
 * first row is the machine's cross-CPU cache-line round trip (handoff.h),
 * which the device rows scale with. Each shape ends with issue 16's
 * goals as ratios (unit "x", timing.h's bench_report_ratio): host build /
 * naive build (<= 2), run / naive build + pool and run / oneTBB build +
 * execute (both <= 1: the run at or below the better baseline).
 * Before timing, one run of each side is checked: the baseline's order of
 * completion, the build's task count, and, with a kernel that stores a
 * check value per task instead of the empty one, the values simpler's
 * tasks left. A simpler row that cannot run prints n/a with the failing status;
 * a wrong result stops the bench with exit status 1.
 * Usage: bench_graph [--json] [--runs N] [--only TEXT] [--host-cpu N]
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline_pool.h"
#include "dag_shapes.h"
#include "handoff.h"
#include "naive_build.h"
#include "simpler/runtime_c_api.h"
#include "simpler_side.h"
#include "tbb_flow.h"
#include "timing.h"

#ifndef BENCH_DAG_CALLABLE
#define BENCH_DAG_CALLABLE "bench_dag.callable"
#endif

/* Where the naive build pretends the slot buffer lives (it never touches it). */
#define FAKE_SLOT_ADDR 0x40000000ull

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

/* Runs every task of a DAG once with `fn`: the pool or oneTBB. */
typedef int (*dag_runner)(void *runner, const struct dag *d, baseline_task_fn fn, void *user);

static int run_on_pool(void *runner, const struct dag *d, baseline_task_fn fn, void *user)
{
    uint64_t ns;
    return baseline_pool_run(runner, d, fn, user, &ns);
}

static int run_on_tbb(void *runner, const struct dag *d, baseline_task_fn fn, void *user)
{
    uint64_t build_ns, total_ns;
    return tbb_flow_run(runner, d, fn, user, &build_ns, &total_ns);
}

/* 0 when one run ran every task once, each after all its predecessors;
 * the first figure is not trusted before this holds. */
static int order_verify(dag_runner run, void *runner, const struct dag *d)
{
    struct order_check c = {.rank = calloc(d->task_count, sizeof(uint32_t))};
    if (c.rank == NULL || run(runner, d, stamp_task, &c) != 0) {
        free(c.rank);
        return -1;
    }
    static const uint32_t edges[DAG_SHAPE_COUNT] = {[DAG_CHAIN] = DAG_CHAIN_TASKS - 1,
                                                    [DAG_FAN] = 2 * DAG_FAN_WIDTH,
                                                    [DAG_LAYERS] = 2 * (DAG_LAYER_COUNT - 1) * DAG_LAYER_WIDTH};
    int bad = c.twice != 0 || d->edge_count != edges[d->shape];
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
    if (order_verify(run_on_pool, pool, d) != 0) {
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

static void row_name(char *name, size_t size, enum dag_shape shape, const char *what)
{
    snprintf(name, size, "%s: %s", dag_shape_name(shape), what);
}

static void skip_row(struct bench_report *r, enum dag_shape shape, const char *what, const char *stage, int rc)
{
    char name[64], why[160];
    row_name(name, sizeof(name), shape, what);
    snprintf(why, sizeof(why), "%s: %s", stage, simpler_strerror(rc));
    bench_report_skip(r, name, why);
}

static void wrong(const char *what, enum dag_shape shape, uint32_t got, uint32_t want)
{
    fprintf(stderr, "bench_graph: %s: %s: got %u, want %u\n", dag_shape_name(shape), what, got, want);
    exit(1);
}

/* 0 when the naive build of d's shape holds exactly d's edges. */
static int naive_verify(const struct dag *built, const struct dag *d)
{
    size_t n = d->task_count;
    return built->task_count == d->task_count && built->edge_count == d->edge_count &&
                   memcmp(built->fanin, d->fanin, n * sizeof(*d->fanin)) == 0 &&
                   memcmp(built->succ_start, d->succ_start, (n + 1) * sizeof(*d->succ_start)) == 0 &&
                   memcmp(built->succ, d->succ, d->edge_count * sizeof(*d->succ)) == 0
               ? 0
               : -1;
}

/* The naive explicit-edge build of d's shape alone, then with the
 * pool's execution of what it built, timed as one. */
static void bench_naive(struct bench_report *r, struct naive_build *nb, struct baseline_pool *pool,
                        const struct dag *d, unsigned runs)
{
    double build[BENCH_RUNS_MAX], total[BENCH_RUNS_MAX];
    const struct dag *built = NULL;
    uint64_t exec_ns = 0;
    if (nb == NULL || naive_build_run(nb, d->shape, FAKE_SLOT_ADDR, &built) != 0 || naive_verify(built, d) != 0 ||
        order_verify(run_on_pool, pool, built) != 0) {
        fprintf(stderr, "bench_graph: %s: the naive build is wrong or out of memory\n", d->name);
        exit(1);
    }
    for (unsigned run = 0; run < runs; run++) {
        uint64_t t0 = bench_now_ns();
        int rc = naive_build_run(nb, d->shape, FAKE_SLOT_ADDR, &built);
        build[run] = (double)(bench_now_ns() - t0) / d->task_count;
        t0 = bench_now_ns();
        rc = rc ? rc : naive_build_run(nb, d->shape, FAKE_SLOT_ADDR, &built);
        rc = rc ? rc : baseline_pool_run(pool, built, empty_task, NULL, &exec_ns);
        total[run] = (double)(bench_now_ns() - t0) / d->task_count;
        if (rc != 0) {
            fprintf(stderr, "bench_graph: naive build out of memory\n");
            exit(1);
        }
    }
    char name[64];
    row_name(name, sizeof(name), d->shape, "naive build (explicit edges)");
    bench_report_add(r, name, "ns/task", build, runs);
    row_name(name, sizeof(name), d->shape, "naive build + pool execute");
    bench_report_add(r, name, "ns/task", total, runs);
}

/* oneTBB's flow graph of d: construction, and construction + execution. */
static void bench_tbb(struct bench_report *r, struct tbb_flow *tbb, const struct dag *d, unsigned runs)
{
    double build[BENCH_RUNS_MAX], total[BENCH_RUNS_MAX];
    char name[64], name2[64];
    row_name(name, sizeof(name), d->shape, "oneTBB build");
    row_name(name2, sizeof(name2), d->shape, "oneTBB build + execute");
    if (tbb == NULL) {
        bench_report_skip(r, name, "built without oneTBB (libtbb-dev)");
        bench_report_skip(r, name2, "built without oneTBB (libtbb-dev)");
        return;
    }
    if (order_verify(run_on_tbb, tbb, d) != 0) {
        fprintf(stderr, "bench_graph: %s: the oneTBB flow graph broke a dependency\n", d->name);
        exit(1);
    }
    for (unsigned run = 0; run < runs; run++) {
        uint64_t build_ns, total_ns;
        if (tbb_flow_run(tbb, d, empty_task, NULL, &build_ns, &total_ns) != 0) {
            fprintf(stderr, "bench_graph: the oneTBB run failed\n");
            exit(1);
        }
        build[run] = (double)build_ns / d->task_count;
        total[run] = (double)total_ns / d->task_count;
    }
    bench_report_add(r, name, "ns/task", build, runs);
    bench_report_add(r, name2, "ns/task", total, runs);
}

/* Host build of `shape`, in-process. */
static void bench_build(struct bench_report *r, struct simpler_build *b, int build_status, const struct dag *d,
                        unsigned runs)
{
    double samples[BENCH_RUNS_MAX];
    enum dag_shape shape = d->shape;
    uint32_t tasks = 0;
    int rc = b == NULL ? build_status : simpler_build_once(b, shape, &samples[0], &tasks);
    if (rc == 0 && tasks != d->task_count)
        wrong("tasks collected by the host build", shape, tasks, d->task_count);
    for (unsigned run = 0; rc == 0 && run < runs; run++)
        rc = simpler_build_once(b, shape, &samples[run], &tasks);
    if (rc != 0) {
        skip_row(r, shape, "simpler host build", "simpler_graph_sizer_measure", rc);
        return;
    }
    char name[64];
    row_name(name, sizeof(name), shape, "simpler host build");
    bench_report_add(r, name, "ns/task", samples, runs);
}

/* One row per part of a program-mode run (simpler_run_sample), each the
 * median over the runs of that part. */
static const struct run_row {
    const char *name;
    size_t offset;
} run_rows[] = {
    {"simpler run (program mode)", offsetof(struct simpler_run_sample, run)},
    {"simpler execute (run - build)", offsetof(struct simpler_run_sample, execute)},
    {"  of which upload", offsetof(struct simpler_run_sample, upload)},
    {"  of which launch", offsetof(struct simpler_run_sample, launch)},
    {"  of which wait", offsetof(struct simpler_run_sample, wait)},
    {"    in it device validation", offsetof(struct simpler_run_sample, validation)},
    {"    in it scheduler loop", offsetof(struct simpler_run_sample, loop)},
    {"  of which finish", offsetof(struct simpler_run_sample, finish)},
};

/* Program-mode runs of `shape`, whole and by part. */
static void bench_run(struct bench_report *r, struct simpler_program *p, const char *stage, int status,
                      enum dag_shape shape, unsigned runs)
{
    struct simpler_run_sample samples[BENCH_RUNS_MAX];
    double column[BENCH_RUNS_MAX];
    int rc = status;
    uint32_t bad_task = 0;
    if (rc == 0) {
        stage = "simpler_run";
        rc = simpler_program_verify(p, shape, &bad_task); /* also grows capacity */
    }
    if (rc == SIMPLER_SIDE_WRONG_RESULT) {
        fprintf(stderr, "bench_graph: %s: task %u left a wrong check value\n", dag_shape_name(shape), bad_task);
        exit(1);
    }
    for (unsigned run = 0; rc == 0 && run < runs; run++)
        rc = simpler_program_run(p, shape, &samples[run]);
    if (rc != 0) {
        skip_row(r, shape, "simpler run (program mode)", stage, rc);
        return;
    }
    for (size_t row = 0; row < sizeof(run_rows) / sizeof(run_rows[0]); row++) {
        char name[64];
        for (unsigned run = 0; run < runs; run++)
            memcpy(&column[run], (const char *)&samples[run] + run_rows[row].offset, sizeof(double));
        row_name(name, sizeof(name), shape, run_rows[row].name);
        bench_report_add(r, name, "ns/task", column, runs);
    }
}

/* Issue 16's goals for `shape` as ratios of the rows above (unit "x"):
 * host build / naive build (goal <= 2), and the run against each of
 * the two baselines end to end (at or below the better one: both <= 1). */
static void goal_ratios(struct bench_report *r, enum dag_shape shape)
{
    static const char *const pairs[][3] = {
        {"host build / naive build", "simpler host build", "naive build (explicit edges)"},
        {"run / naive build + pool", "simpler run (program mode)", "naive build + pool execute"},
        {"run / oneTBB build + execute", "simpler run (program mode)", "oneTBB build + execute"},
    };
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        char name[64], num[64], den[64];
        row_name(name, sizeof(name), shape, pairs[i][0]);
        row_name(num, sizeof(num), shape, pairs[i][1]);
        row_name(den, sizeof(den), shape, pairs[i][2]);
        bench_report_ratio(r, name, num, den);
    }
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
    struct naive_build *naive = naive_build_create();
    struct tbb_flow *tbb = tbb_flow_create(BASELINE_WORKERS);
    struct simpler_build *build = NULL;
    int build_status = simpler_build_create(BENCH_DAG_CALLABLE, &build);
    struct simpler_program *program = NULL;
    const char *stage = "";
    int program_status = simpler_program_create(BENCH_DAG_CALLABLE, &program, &stage);
    bench_machine_row(&report, opt.runs); /* before the pin: it pins threads to two CPUs itself */
    if (bench_pin_host(&opt) != 0) {
        fprintf(stderr, "bench_graph: cannot pin the main thread to CPU %d\n", opt.host_cpu);
        return 1;
    }
    for (int shape = 0; shape < DAG_SHAPE_COUNT; shape++) {
        if (!bench_selected(&opt, dag_shape_name((enum dag_shape)shape)))
            continue;
        struct dag d;
        if (dag_create(&d, (enum dag_shape)shape) != 0) {
            fprintf(stderr, "bench_graph: out of memory building a DAG\n");
            return 1;
        }
        bench_baseline(&report, pool, &d, opt.runs);
        bench_naive(&report, naive, pool, &d, opt.runs);
        bench_tbb(&report, tbb, &d, opt.runs);
        bench_build(&report, build, build_status, &d, opt.runs);
        dag_destroy(&d);
        bench_run(&report, program, stage, program_status, (enum dag_shape)shape, opt.runs);
        goal_ratios(&report, (enum dag_shape)shape);
    }
    simpler_program_destroy(program);
    simpler_build_destroy(build);
    tbb_flow_destroy(tbb);
    naive_build_destroy(naive);
    baseline_pool_destroy(pool);
    bench_report_print(&report, opt.json);
    return 0;
}
