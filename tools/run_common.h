/*
 * run_common — what `simpler run` and `simpler bench` share in both
 * modes: the run options and their parser, the outcome of a session (the
 * first failure with its refusal reason, the first golden mismatch), the
 * report of a `run` with its one text layout and its one JSON schema
 * (docs/cli.md), and how usage errors and statuses are printed.
 */
#ifndef SIMPLER_TOOLS_RUN_COMMON_H
#define SIMPLER_TOOLS_RUN_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "example_case.h"

/* The repeat count of `run` and `bench` when --runs is not given. */
#define RUN_DEFAULT_RUNS 10
#define BENCH_DEFAULT_RUNS 20
#define RUN_REASON_MAX 512

typedef enum run_mode { RUN_MODE_KERNEL, RUN_MODE_PROGRAM, RUN_MODE_BOTH } run_mode;

/* The options of `simpler run` (and, but for image and trace, `bench`). */
typedef struct run_options {
    const char *name;       /* the example; EXAMPLE_DEFAULT_NAME when not given */
    const char *image_path; /* --image: program mode only; NULL = the example's */
    const char *trace_path; /* --trace FILE, or NULL */
    run_mode mode;          /* --mode; run: kernel by default, bench: both */
    int runs;               /* --runs N (alias --replays) */
    uint32_t cores;         /* --cores N; 0 = every AICore */
    int json;               /* --json */
} run_options;

/* The commands that parse run_options. */
typedef enum run_command { RUN_COMMAND_RUN, RUN_COMMAND_BENCH } run_command;

/* Parses `command`'s line (argv[0] is the command's name) into *o: a
 * positional EXAMPLE, --mode, --runs (alias --replays), --cores, --json,
 * and for `run` also --trace and --image. Reads the whole line; --help
 * anywhere wins. Returns 0; 1 for --help; 2 for a usage error, printed
 * on stderr naming the option and the value (the first mistake). A
 * --cores above the device's AICore count, a second EXAMPLE and --image
 * outside program mode are usage errors too. */
int run_options_parse(run_command command, int argc, char **argv, run_options *o);

/* Prints "simpler <command>: <message>" and a hint to use --help on
 * stderr; returns 2, the usage exit status. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The refusal reason the library recorded for this thread's last call
 * ("" when there is none), copied into `reason` (`size` bytes). */
void cli_reason_take(char *reason, size_t size);

/* "<status> <NAME>: <reason>" when `reason` is not empty, else
 * "<status> <NAME> (<message>)", into `buf`. */
void cli_status_format(char *buf, size_t size, int status, const char *reason);

/* Prints "<prefix>: <status> <NAME>: <reason>" on stderr (the
 * cli_status_format of `status`), with `reason`, or when it is NULL the
 * reason the library recorded for this thread's last call. Every refusal
 * of a library call the CLI reports goes through here. */
void cli_refusal(const char *prefix, int status, const char *reason);

/* What went wrong in a session: the first failing call, the first run
 * that missed the golden. */
typedef struct run_outcome {
    int status;                  /* the first failing status; 0 = none */
    const char *step;            /* the call that returned it */
    char reason[RUN_REASON_MAX]; /* the library's refusal reason right after it, or "" */
    int bad_run;                 /* the first run that missed the golden; -1 = none */
    example_check_result check;  /* of bad_run, else of the last run checked */
    double got, want;            /* bad_run's first mismatching element */
} run_outcome;

void run_outcome_init(run_outcome *out);

/* Records a failure of `step` (the first one only), with the reason the
 * library recorded, and prints it on stderr. Returns `status`. */
int run_outcome_fail(run_outcome *out, const char *step, int status);

/* Records the golden check of run `run` (`got`/`want`: the output and
 * the golden it was compared with). */
void run_outcome_check(run_outcome *out, int run, const example_check_result *res, const float *got,
                       const float *want);

/* The report of one `simpler run`, in either mode. */
typedef struct run_report {
    const char *example, *mode, *image, *trace;
    char trace_holds[64];   /* which execution the trace file holds; "" until it is written */
    const char *first_what; /* what the first run's time covers */
    const char *run_what;   /* what each timed run covers */
    uint32_t cores;
    uint64_t tasks;
    int runs, runs_done;    /* the timed runs asked for and completed */
    double first_us;        /* the first run, which the timed runs follow (kernel) or open (program) */
    double total_us, min_us, max_us;
    uint64_t host_allocs, device_allocs; /* during the calls the summary names */
    const char *allocs_what;
    uint64_t committed_bytes;
    uint64_t heap_before, heap_after, temp_before, temp_after;
    run_outcome out;
} run_report;

void run_report_init(run_report *r, const run_options *o, const char *mode);

/* Adds one timed run of `us` microseconds. */
void run_report_time(run_report *r, double us);

/* 1 when every call succeeded, every run was done and matched. */
int run_report_ok(const run_report *r);

/* The summary, or with `json` the one JSON object, on stdout. */
void run_report_print(const run_report *r, int json);

/* A JSON string literal of `s` on `fp` (NULL prints null). */
void json_string(FILE *fp, const char *s);

/* The "error" member's value: null when status is 0, else
 * {"status":N,"name":"...","message":"...","reason":"...","step":"..."}. */
void json_error(FILE *fp, const run_outcome *out);

#endif
