/* simpler bench: one example measured in both modes. Program
 * mode: N simpler_run calls through the program-mode runner. Kernel mode:
 * N eager launches, each followed by its synchronize, and N replays of
 * one captured launch, through the same kernel session `simpler run`
 * drives. Every run is checked against the golden; a table or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "kernel_session.h"
#include "options.h"
#include "run_program.h"

#define BENCH_DEFAULT_RUNS 20

typedef struct bench_opts {
    const char *name;
    int runs;
    uint32_t cores;
    int json;
} bench_opts;

/* One measured row: the per-run microseconds, summarized. */
typedef struct bench_row {
    const char *mode, *what;
    double median_us, min_us, max_us;
} bench_row;

enum { BENCH_PROGRAM, BENCH_EAGER, BENCH_REPLAY, BENCH_ROWS };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts `us` in place and summarizes it into *row. */
static void row_fill(bench_row *row, double *us, int n)
{
    qsort(us, (size_t)n, sizeof(*us), cmp_double);
    row->min_us = us[0];
    row->max_us = us[n - 1];
    row->median_us = n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
}

static int bench_program(const bench_opts *o, double *us, bench_row *row, uint64_t *tasks)
{
    run_program_options ro = {o->name, NULL, NULL, NULL, 0, o->runs, o->cores};
    int rc = run_program_measure(&ro, us, tasks);
    if (rc != 0)
        return rc;
    for (int i = 0; i < o->runs; i++)
        us[i] *= 1e3;
    row_fill(row, us, o->runs);
    return 0;
}

/* The eager and replay rows on one session; 0, 1 failed, 2 usage. */
static int bench_kernel(const bench_opts *o, double *us, bench_row *rows, uint64_t *tasks)
{
    static kernel_session s;
    int rc = kernel_session_open(&s, o->name, o->cores, 0);
    rc = rc ? rc : kernel_session_first(&s);
    for (int i = 0; rc == 0 && i < o->runs; i++)
        rc = kernel_session_eager(&s, (uint64_t)i + 1, &us[i]);
    if (rc == 0)
        row_fill(&rows[BENCH_EAGER], us, o->runs);
    for (int i = 0; rc == 0 && i < o->runs; i++)
        rc = kernel_session_replay(&s, (uint64_t)i + 1, &us[i]);
    if (rc == 0)
        row_fill(&rows[BENCH_REPLAY], us, o->runs);
    *tasks = s.task_count;
    int closed = kernel_session_close(&s);
    if (rc == 2)
        return 2;
    return rc != 0 || closed != 0 || s.mismatches != 0 ? 1 : 0;
}

static double ns_per_task(double us, uint64_t tasks)
{
    return us * 1e3 / (double)(tasks ? tasks : 1);
}

static void print_table(const bench_opts *o, const bench_row *rows, uint64_t tasks)
{
    printf("simpler bench: %s, %llu tasks, %d runs per row", o->name, (unsigned long long)tasks, o->runs);
    if (o->cores != 0)
        printf(", %u AICores", o->cores);
    printf("\n%-8s %-24s %12s %12s %12s %10s\n", "mode", "measure", "median us", "min us", "max us",
           "ns/task");
    for (int i = 0; i < BENCH_ROWS; i++)
        printf("%-8s %-24s %12.1f %12.1f %12.1f %10.0f\n", rows[i].mode, rows[i].what, rows[i].median_us,
               rows[i].min_us, rows[i].max_us, ns_per_task(rows[i].median_us, tasks));
}

static void print_json(const bench_opts *o, const bench_row *rows, uint64_t tasks)
{
    static const char *const keys[BENCH_ROWS] = {"program", "kernel_eager", "kernel_replay"};
    printf("{\"example\":\"%s\",\"tasks\":%llu,\"runs\":%d,\"cores\":%u", o->name, (unsigned long long)tasks,
           o->runs, o->cores);
    for (int i = 0; i < BENCH_ROWS; i++)
        printf(",\"%s\":{\"median_us\":%.3f,\"min_us\":%.3f,\"max_us\":%.3f,\"ns_per_task\":%.1f}", keys[i],
               rows[i].median_us, rows[i].min_us, rows[i].max_us, ns_per_task(rows[i].median_us, tasks));
    printf("}\n");
}

static int usage(FILE *out, int status)
{
    fprintf(out,
            "usage: simpler bench [EXAMPLE] [--runs N] [--cores N] [--json]\n"
            "  EXAMPLE is one of: %s (default %s).\n"
            "  Measures N runs (1..%d, default %d) of simpler_run (program mode),\n"
            "  N eager launches each with its synchronize and N replays of one\n"
            "  captured launch (kernel mode); every run is\n"
            "  checked against the golden. A table, or one JSON object with --json.\n",
            EXAMPLE_NAMES, EXAMPLE_DEFAULT_NAME, CMD_REPLAYS_MAX, BENCH_DEFAULT_RUNS);
    return status;
}

enum { BENCH_OPT_JSON, BENCH_OPT_RUNS, BENCH_OPT_CORES, BENCH_OPTS };

static const options_spec bench_specs[BENCH_OPTS] = {
    [BENCH_OPT_JSON] = {"--json", NULL, OPTIONS_FLAG, 0, NULL},
    [BENCH_OPT_RUNS] = {"--runs", NULL, OPTIONS_COUNT, CMD_REPLAYS_MAX, NULL},
    [BENCH_OPT_CORES] = {"--cores", NULL, OPTIONS_COUNT, CMD_CORES_MAX, NULL},
};

/* 0, 1 for --help, -1 for a usage error: whichever comes first. A later
 * EXAMPLE replaces an earlier one. */
static int opts_parse(int argc, char **argv, bench_opts *o)
{
    options_parser p;
    options_item it;
    memset(o, 0, sizeof(*o));
    o->name = EXAMPLE_DEFAULT_NAME;
    o->runs = BENCH_DEFAULT_RUNS;
    options_init(&p, argc, argv, bench_specs, BENCH_OPTS);
    while (options_next(&p, &it) != OPTIONS_END) {
        if (it.event == OPTIONS_HELP)
            return 1;
        if (it.event == OPTIONS_POSITIONAL)
            o->name = it.arg;
        else if (it.event != OPTIONS_OPTION)
            return -1;
        else if (it.index == BENCH_OPT_JSON)
            o->json = 1;
        else if (it.index == BENCH_OPT_RUNS)
            o->runs = (int)it.count;
        else
            o->cores = (uint32_t)it.count;
    }
    return 0;
}

int cmd_bench(int argc, char **argv)
{
    bench_opts o;
    bench_row rows[BENCH_ROWS] = {{"program", "simpler_run", 0, 0, 0},
                                  {"kernel", "eager launch + sync", 0, 0, 0},
                                  {"kernel", "replay + sync", 0, 0, 0}};
    int parsed = opts_parse(argc, argv, &o);
    if (parsed != 0)
        return parsed > 0 ? usage(stdout, 0) : usage(stderr, 2);
    double *us = calloc((size_t)o.runs, sizeof(*us));
    if (us == NULL) {
        fprintf(stderr, "simpler bench: out of memory for %d runs\n", o.runs);
        return 1;
    }
    uint64_t tasks = 0, kernel_tasks = 0;
    int rc = bench_program(&o, us, &rows[BENCH_PROGRAM], &tasks);
    rc = rc ? rc : bench_kernel(&o, us, rows, &kernel_tasks);
    free(us);
    if (rc != 0)
        return rc;
    if (o.json)
        print_json(&o, rows, tasks);
    else
        print_table(&o, rows, tasks);
    return 0;
}
