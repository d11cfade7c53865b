/*
 * timing.h — the clock, the median and the result table shared by the
 * benchmarks. A benchmark collects one sample per run of a measurement,
 * reports the median of the runs (with min and max beside it), and prints
 * either an aligned table or, with --json, one JSON document.
 */
#ifndef SIMPLER_BENCH_TIMING_H
#define SIMPLER_BENCH_TIMING_H

#include <stddef.h>
#include <stdint.h>

/* Runs of every measurement unless --runs says otherwise. */
#define BENCH_RUNS_DEFAULT 7
#define BENCH_RUNS_MAX 64
#define BENCH_ROWS_MAX 64

/* Monotonic time in nanoseconds: simpler_clock_ns. */
uint64_t bench_now_ns(void);

/* Median of `count` samples (sorts `samples` in place); 0 for none. */
double bench_median(double *samples, size_t count);

struct bench_row {
    char name[64];      /* e.g. "kernel enqueue" */
    char unit[16];      /* e.g. "ns/launch" */
    char skipped[160];  /* why there is no figure (runs == 0) */
    double median, min, max;
    unsigned runs;
};

struct bench_report {
    const char *title;  /* printed above the table and as "bench" in JSON */
    struct bench_row rows[BENCH_ROWS_MAX];
    size_t row_count;
};

/* Adds a row from `count` samples (reorders them). Rows past
 * BENCH_ROWS_MAX are dropped. */
void bench_report_add(struct bench_report *r, const char *name, const char *unit, double *samples, size_t count);
/* Adds the ratio of two rows already added (same unit), unit "x": the
 * median column holds the ratio of their medians, min and max the
 * smallest and largest ratio any run of the one and any run of the other
 * could give (numerator's min over denominator's max, and the reverse),
 * so min <= median <= max. A missing or skipped row, or a denominator
 * with a run of 0 or less, makes it a skipped row that says why. */
void bench_report_ratio(struct bench_report *r, const char *name, const char *numerator, const char *denominator);
/* Adds a row that holds no figure (the measurement could not run); it
 * prints as "n/a" with `why` and as null in JSON. */
void bench_report_skip(struct bench_report *r, const char *name, const char *why);
/* Prints the report to stdout, as a table or as JSON. */
void bench_report_print(const struct bench_report *r, int json);

/* Shared command line: --json, --runs N (1..BENCH_RUNS_MAX), --help.
 * Returns 0, or 1 when the program should exit (after printing usage to
 * stderr, with status *exit_code). */
struct bench_options {
    int json;
    unsigned runs;
    const char *only; /* --only TEXT: NULL runs every group */
    int host_cpu;     /* --host-cpu N: -1 leaves the main thread unpinned */
};
int bench_options_parse(int argc, char **argv, struct bench_options *opt, int *exit_code);
/* Whether the group of rows named `group` runs: every group without
 * --only, else those whose name contains its text ("W3", "2 tasks",
 * "decode step 15"). */
int bench_selected(const struct bench_options *opt, const char *group);
/* Pins the calling thread to opt->host_cpu (nothing when -1); 0, or -1
 * when the CPU was refused. Called after simdev placed its engine
 * threads: pinning the whole process (taskset) would leave simdev one
 * CPU, and it places its engines only across two or more. A process's
 * clock figures are bimodal with the host's CPU (docs/performance.md,
 * sets AP and AW); this fixes the mode. */
int bench_pin_host(const struct bench_options *opt);
/* Gives the calling thread back the CPUs it had before its first
 * bench_pin_host (nothing if it was never pinned): threads a baseline
 * creates inherit them (bench_kernel's pool and oneTBB rows). */
void bench_unpin_host(void);

#endif
