/* simpler bench: one example measured in one mode or both. Program
 * mode: N simpler_run calls through the program-mode runner. Kernel mode:
 * N eager launches, each followed by its synchronize, and N replays of
 * one captured launch, through the same kernel session `simpler run`
 * drives. Every run is checked against the golden; a table or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "kernel_session.h"
#include "run_common.h"
#include "run_program.h"

/* One measured row: the per-run microseconds, summarized. */
typedef struct bench_row {
    const char *mode, *what;
    int done;
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
    row->done = 1;
    row->min_us = us[0];
    row->max_us = us[n - 1];
    row->median_us = n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
}

/* The program row; 0, 1 failed or mismatched, 2 usage. */
static int bench_program(const run_options *o, double *us, bench_row *row, uint64_t *tasks, run_outcome *out)
{
    int rc = run_program_measure(o, us, tasks, out);
    if (rc == 0)
        row_fill(row, us, o->runs);
    return rc;
}

/* The eager and replay rows on one session; 0, 1 failed, 2 usage. */
static int bench_kernel(const run_options *o, double *us, bench_row *rows, uint64_t *tasks, run_outcome *out)
{
    static kernel_session s;
    int rc = kernel_session_open(&s, o->name, o->cores, 0);
    rc = rc ? rc : kernel_session_first(&s);
    for (int i = 0; rc == 0 && i < o->runs; i++)
        rc = kernel_session_eager(&s, (uint64_t)i + 1, &us[i]);
    if (rc == 0 && s.mismatches == 0)
        row_fill(&rows[BENCH_EAGER], us, o->runs);
    for (int i = 0; rc == 0 && i < o->runs; i++)
        rc = kernel_session_replay(&s, (uint64_t)i + 1, &us[i]);
    if (rc == 0 && s.mismatches == 0)
        row_fill(&rows[BENCH_REPLAY], us, o->runs);
    *tasks = s.task_count;
    int closed = kernel_session_close(&s);
    *out = s.out;
    if (rc == 2)
        return 2;
    return rc != 0 || closed != 0 || s.mismatches != 0 ? 1 : 0;
}

static double ns_per_task(double us, uint64_t tasks)
{
    return us * 1e3 / (double)(tasks ? tasks : 1);
}

static void print_table(const run_options *o, const bench_row *rows, uint64_t tasks)
{
    printf("simpler bench: %s, %llu tasks, %d runs per row", o->name, (unsigned long long)tasks, o->runs);
    if (o->cores != 0)
        printf(", %u AICores", o->cores);
    printf("\n%-8s %-24s %12s %12s %12s %10s\n", "mode", "measure", "median us", "min us", "max us",
           "ns/task");
    for (int i = 0; i < BENCH_ROWS; i++) {
        if (rows[i].done)
            printf("%-8s %-24s %12.1f %12.1f %12.1f %10.0f\n", rows[i].mode, rows[i].what, rows[i].median_us,
                   rows[i].min_us, rows[i].max_us, ns_per_task(rows[i].median_us, tasks));
    }
}

static void print_json(const run_options *o, const bench_row *rows, uint64_t tasks, const run_outcome *out)
{
    const char *result = out->status != 0 ? "error" : out->bad_run >= 0 ? "mismatch" : "ok";
    printf("{\"example\":");
    json_string(stdout, o->name);
    printf(",\"tasks\":%llu,\"runs\":%d,\"cores\":%u,\"result\":\"%s\",\"rows\":[", (unsigned long long)tasks,
           o->runs, o->cores, result);
    for (int i = 0, n = 0; i < BENCH_ROWS; i++) {
        if (!rows[i].done)
            continue;
        printf("%s{\"mode\":\"%s\",\"measure\":\"%s\",\"median_us\":%.3f,\"min_us\":%.3f,\"max_us\":%.3f,"
               "\"ns_per_task\":%.1f}",
               n++ ? "," : "", rows[i].mode, rows[i].what, rows[i].median_us, rows[i].min_us, rows[i].max_us,
               ns_per_task(rows[i].median_us, tasks));
    }
    printf("],\"error\":");
    json_error(stdout, out);
    printf("}\n");
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: simpler bench [EXAMPLE] [--mode kernel|program] [--runs N] [--cores N] [--json]\n"
            "  EXAMPLE is one of: %s (default %s).\n"
            "  Measures N runs (1..%d, default %d; --replays is the same option) of\n"
            "  simpler_run (program mode), and N eager launches each with its\n"
            "  synchronize and N replays of one captured launch (kernel mode); both\n"
            "  modes unless --mode names one. Every run is checked against the golden.\n"
            "  --cores N uses N AICores (1..the device's; default all). A table, or\n"
            "  one JSON object with --json (docs/cli.md).\n",
            EXAMPLE_NAMES, EXAMPLE_DEFAULT_NAME, CMD_RUNS_MAX, BENCH_DEFAULT_RUNS);
}

int cmd_bench(int argc, char **argv)
{
    run_options o;
    bench_row rows[BENCH_ROWS] = {{"program", "simpler_run", 0, 0, 0, 0},
                                  {"kernel", "eager launch + sync", 0, 0, 0, 0},
                                  {"kernel", "replay + sync", 0, 0, 0, 0}};
    int parsed = run_options_parse(RUN_COMMAND_BENCH, argc, argv, &o);
    if (parsed == 1) {
        usage(stdout);
        return 0;
    }
    if (parsed != 0)
        return parsed;
    double *us = calloc((size_t)o.runs, sizeof(*us));
    if (us == NULL) {
        fprintf(stderr, "simpler bench: out of memory for %d runs\n", o.runs);
        return 1;
    }
    uint64_t tasks = 0;
    run_outcome out;
    run_outcome_init(&out);
    int rc = 0;
    if (o.mode != RUN_MODE_KERNEL)
        rc = bench_program(&o, us, &rows[BENCH_PROGRAM], &tasks, &out);
    if (rc == 0 && o.mode != RUN_MODE_PROGRAM)
        rc = bench_kernel(&o, us, rows, &tasks, &out);
    free(us);
    if (rc == 2)
        return 2;
    if (o.json)
        print_json(&o, rows, tasks, &out);
    else if (rc == 0)
        print_table(&o, rows, tasks);
    return rc;
}
