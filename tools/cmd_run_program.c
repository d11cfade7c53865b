/* simpler run --mode program [EXAMPLE]: one example end to end through the
 * public program-mode ABI, checked against its golden (run_program.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "example_cases.h"
#include "example_driver.h"
#include "commands.h"
#include "options.h"
#include "run_program.h"
#include "simpler/runtime_c_api.h"
#include "tool_clock.h"

/* The slot the example is registered under (any id < 64 would do). */
#define RUN_PROGRAM_CALLABLE_ID 0
#define RUN_PROGRAM_PATH_MAX 4096
#define RUN_PROGRAM_DEVICE 0

/* What a session did, for the summary. */
typedef struct run_report {
    const char *name;
    const char *image;
    const char *trace;
    uint32_t cores;
    uint64_t tasks;
    int runs;             /* requested */
    int runs_done;        /* completed simpler_run calls */
    int status;           /* first failing status (0 = none) */
    const char *step;     /* the call that failed */
    char reason[256];     /* its simpler_last_error_message(), when it gave one */
    int bad_run;          /* first run that missed the golden (-1 = none) */
    example_check_result check; /* of bad_run, else of the last run */
    float got, want;      /* the first mismatch of bad_run */
    double first_ms, total_ms, min_ms, max_ms;
    double *times_ms;     /* NULL, or one entry per run */
} run_report;

static int fail(run_report *rep, const char *step, int status)
{
    if (rep->status == 0) {
        rep->status = status;
        rep->step = step;
        snprintf(rep->reason, sizeof rep->reason, "%s", simpler_last_error_message());
    }
    return status;
}

int example_image_path(const char *name, char *path, size_t size)
{
    char exe[RUN_PROGRAM_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL)
        *slash = '\0';
    int w = snprintf(path, size, "%s/examples/%s.callable", exe, name);
    return w > 0 && (size_t)w < size ? 0 : -1;
}

static void timing_add(run_report *rep, double ms)
{
    if (rep->runs_done == 0) {
        rep->first_ms = rep->min_ms = rep->max_ms = ms;
    }
    rep->min_ms = ms < rep->min_ms ? ms : rep->min_ms;
    rep->max_ms = ms > rep->max_ms ? ms : rep->max_ms;
    rep->total_ms += ms;
    if (rep->times_ms != NULL)
        rep->times_ms[rep->runs_done] = ms;
    rep->runs_done++;
}

/* The config of run `r`: the last run is traced when a trace was asked. */
static void config_make(const run_report *rep, int r, CallConfig *cfg)
{
    simpler_call_config_default(cfg);
    cfg->aicore_count = rep->cores;
    if (rep->trace != NULL && r + 1 == rep->runs) {
        cfg->trace = 1;
        snprintf(cfg->output_prefix, sizeof(cfg->output_prefix), "%s.", rep->trace);
    }
}

/* One run on fresh inputs (seed r), timed and checked. */
static int run_once(DeviceContextHandle ctx, example_case *c, example_buffers *b, ChipStorageTaskArgs *args,
                    int r, run_report *rep)
{
    CallConfig cfg;
    int rc = example_inputs_prepare(ctx, c, b, (uint64_t)r);
    if (rc != 0)
        return fail(rep, "copy_to_device_ctx", rc);
    rc = example_args_make(c, b, args);
    if (rc != 0)
        return fail(rep, "simpler_tensor_make", rc);
    config_make(rep, r, &cfg);
    uint64_t t0 = simpler_clock_ns();
    rc = simpler_run(ctx, RUN_PROGRAM_CALLABLE_ID, args, &cfg);
    uint64_t t1 = simpler_clock_ns();
    if (rc != 0)
        return fail(rep, "simpler_run", rc);
    timing_add(rep, tool_clock_ms_between(t0, t1));
    example_check_result res = {0, 0, 0, 0.0};
    rc = example_output_check(ctx, c, b, &res);
    if (rc != 0)
        return fail(rep, "copy_from_device_ctx", rc);
    if (rep->bad_run < 0)
        rep->check = res;
    if (res.mismatches != 0 && rep->bad_run < 0) {
        rep->bad_run = r;
        rep->got = ((const float *)b->host[c->output_index])[res.first_bad];
        rep->want = b->expected[res.first_bad];
    }
    return 0;
}

/* Task count of one run, from the host-only sizing entry. */
static void tasks_count(const void *image, size_t size, example_case *c, example_buffers *b,
                        ChipStorageTaskArgs *args, run_report *rep)
{
    SimplerGraphRequirements req;
    if (example_args_make(c, b, args) == 0 && simpler_graph_requirements(image, size, args, &req) == 0)
        rep->tasks = req.task_count;
}

/* The runs on an initialized context with the image registered. */
static void runs_do(DeviceContextHandle ctx, const void *image, size_t size, example_case *c, run_report *rep)
{
    example_buffers b;
    ChipStorageTaskArgs *args = calloc(1, sizeof(*args));
    int rc = args == NULL ? PTO_RUNTIME_ERR_OUT_OF_MEMORY : example_buffers_create(c, ctx, &b);
    if (rc != 0) {
        free(args);
        fail(rep, "device_malloc_ctx", rc);
        return;
    }
    tasks_count(image, size, c, &b, args, rep);
    for (int r = 0; r < rep->runs && rep->status == 0; r++)
        run_once(ctx, c, &b, args, r, rep);
    example_buffers_destroy(ctx, &b);
    free(args);
}

static void session_run(const void *image, size_t size, example_case *c, run_report *rep)
{
    DeviceContextHandle ctx = create_device_context();
    if (ctx == NULL) {
        fail(rep, "create_device_context", PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        return;
    }
    int rc = simpler_init(ctx, RUN_PROGRAM_DEVICE, NULL);
    if (rc != 0) {
        fail(rep, "simpler_init", rc);
        goto out_destroy;
    }
    rc = simpler_register_callable(ctx, RUN_PROGRAM_CALLABLE_ID, image, size);
    if (rc != 0)
        fail(rep, "simpler_register_callable", rc);
    else
        runs_do(ctx, image, size, c, rep);
    rc = finalize_device(ctx);
    if (rc != 0)
        fail(rep, "finalize_device", rc);
out_destroy:
    destroy_device_context(ctx);
}

/* The runtime writes "<prefix>trace.json"; move it to the asked name. */
static void trace_move(run_report *rep)
{
    char made[RUN_PROGRAM_PATH_MAX];
    if (rep->trace == NULL || rep->status != 0)
        return;
    snprintf(made, sizeof(made), "%s.trace.json", rep->trace);
    if (rename(made, rep->trace) != 0)
        fail(rep, "writing the trace file", PTO_RUNTIME_ERR_INTERNAL);
}

static int report_ok(const run_report *rep)
{
    return rep->status == 0 && rep->bad_run < 0 && rep->runs_done == rep->runs;
}

static void report_text(const run_report *rep)
{
    printf("example  %s (program mode)\n", rep->name);
    printf("image    %s\n", rep->image);
    printf("tasks    %llu per run\n", (unsigned long long)rep->tasks);
    printf("runs     %d of %d, fresh inputs each\n", rep->runs_done, rep->runs);
    if (rep->cores != 0)
        printf("cores    %u AICores\n", rep->cores);
    if (rep->status != 0)
    {
        printf("result   FAILED: %s returned %d (%s)\n", rep->step, rep->status, simpler_strerror(rep->status));
        if (rep->reason[0] != '\0')
            printf("reason   %s\n", rep->reason);
    }
    else if (rep->bad_run >= 0)
        printf("result   FAILED: run %d: %llu of %llu elements differ from the golden "
               "(first at %llu: got %.6g, want %.6g)\n",
               rep->bad_run, (unsigned long long)rep->check.mismatches,
               (unsigned long long)rep->check.elements, (unsigned long long)rep->check.first_bad,
               (double)rep->got, (double)rep->want);
    else
        printf("result   ok: %llu elements match the golden in every run (max abs err %.3g)\n",
               (unsigned long long)rep->check.elements, rep->check.max_abs_err);
    if (rep->runs_done > 0)
        printf("time     simpler_run first %.3f ms, mean %.3f ms, min %.3f ms, max %.3f ms\n", rep->first_ms,
               rep->total_ms / rep->runs_done, rep->min_ms, rep->max_ms);
    if (rep->trace != NULL)
        printf("trace    %s%s\n", rep->trace, rep->status == 0 ? "" : " (not written)");
}

/* A JSON string: quotes and backslashes escaped, control bytes dropped. */
static void json_string(const char *s)
{
    putchar('"');
    for (; s != NULL && *s != '\0'; s++) {
        if (*s == '"' || *s == '\\')
            putchar('\\');
        if ((unsigned char)*s >= 0x20)
            putchar(*s);
    }
    putchar('"');
}

static void report_json(const run_report *rep)
{
    printf("{\"example\":");
    json_string(rep->name);
    printf(",\"mode\":\"program\",\"image\":");
    json_string(rep->image);
    printf(",\"tasks\":%llu,\"runs\":%d,\"runs_done\":%d,\"result\":\"%s\",", (unsigned long long)rep->tasks,
           rep->runs, rep->runs_done, report_ok(rep) ? "ok" : "FAILED");
    printf("\"cores\":%u,\"status\":%d,\"failed_step\":", rep->cores, rep->status);
    json_string(rep->step != NULL ? rep->step : "");
    printf(",\"bad_run\":%d,\"elements\":%llu,\"mismatches\":%llu,\"max_abs_err\":%.9g,", rep->bad_run,
           (unsigned long long)rep->check.elements, (unsigned long long)rep->check.mismatches,
           rep->check.max_abs_err);
    printf("\"time_ms\":{\"first\":%.6f,\"mean\":%.6f,\"min\":%.6f,\"max\":%.6f},\"trace\":", rep->first_ms,
           rep->runs_done > 0 ? rep->total_ms / rep->runs_done : 0.0, rep->min_ms, rep->max_ms);
    if (rep->trace != NULL)
        json_string(rep->trace);
    else
        printf("null");
    printf("}\n");
}

/* Runs the session of `o` into *rep; 0, or 2 for a usage error. The
 * default image path is built in `path`, which the report points to. */
static int report_make(const run_program_options *o, run_report *rep, double *times_ms,
                       char path[RUN_PROGRAM_PATH_MAX])
{
    example_case c;
    const char *name = o->name != NULL ? o->name : EXAMPLE_DEFAULT_NAME, *image_path = o->image_path;
    if (o->mode != NULL && strcmp(o->mode, "program") != 0) {
        fprintf(stderr, "simpler run: the example runner runs --mode program only, not '%s'\n", o->mode);
        return 2;
    }
    if (example_case_default(name, &c) != 0) {
        fprintf(stderr, "simpler run: unknown example '%s' (examples: %s)\n", name, EXAMPLE_NAMES);
        return 2;
    }
    if (image_path == NULL && example_image_path(name, path, RUN_PROGRAM_PATH_MAX) == 0)
        image_path = path;
    void *image = NULL;
    size_t size = 0;
    if (image_path == NULL || example_image_read(image_path, &image, &size) != 0) {
        fprintf(stderr, "simpler run: cannot read the image of '%s' (%s); build it first, or pass --image\n",
                name, image_path != NULL ? image_path : "no path");
        return 2;
    }
    run_report r = {name, image_path, o->trace_path, o->cores, 0, o->replays > 0 ? o->replays : 1, 0, 0,
                    NULL, "", -1, {0, 0, 0, 0.0}, 0.0f, 0.0f, 0.0, 0.0, 0.0, 0.0, times_ms};
    *rep = r;
    session_run(image, size, &c, rep);
    trace_move(rep);
    free(image);
    return 0;
}

int run_program(const run_program_options *o)
{
    run_report rep;
    char path[RUN_PROGRAM_PATH_MAX];
    if (report_make(o, &rep, NULL, path) != 0)
        return 2;
    if (o->json)
        report_json(&rep);
    else
        report_text(&rep);
    return report_ok(&rep) ? 0 : 1;
}

int run_program_measure(const run_program_options *o, double *times_ms, uint64_t *task_count)
{
    run_report rep;
    char path[RUN_PROGRAM_PATH_MAX];
    if (report_make(o, &rep, times_ms, path) != 0)
        return 2;
    *task_count = rep.tasks;
    if (report_ok(&rep))
        return 0;
    report_text(&rep);
    return 1;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: simpler run --mode program [EXAMPLE] [--image PATH] [--trace FILE] [--json]\n"
            "                   [--replays N] [--cores N]\n"
            "  EXAMPLE is one of: %s (default %s).\n"
            "  Runs the example N times (default 1) on fresh inputs and checks each run\n"
            "  against its golden; --trace writes the last run's Chrome/Perfetto trace;\n"
            "  --cores limits the AICores a run uses (default: all).\n",
            EXAMPLE_NAMES, EXAMPLE_DEFAULT_NAME);
}

enum { PROG_OPT_JSON, PROG_OPT_MODE, PROG_OPT_IMAGE, PROG_OPT_TRACE, PROG_OPT_REPLAYS, PROG_OPT_CORES, PROG_OPTS };

/* --mode takes any word here: run_program refuses one it cannot run. */
static const options_spec program_specs[PROG_OPTS] = {
    [PROG_OPT_JSON] = {"--json", NULL, OPTIONS_FLAG, 0, NULL},
    [PROG_OPT_MODE] = {"--mode", NULL, OPTIONS_TEXT, 0, NULL},
    [PROG_OPT_IMAGE] = {"--image", NULL, OPTIONS_TEXT, 0, NULL},
    [PROG_OPT_TRACE] = {"--trace", NULL, OPTIONS_TEXT, 0, NULL},
    [PROG_OPT_REPLAYS] = {"--replays", NULL, OPTIONS_COUNT, CMD_REPLAYS_MAX, NULL},
    [PROG_OPT_CORES] = {"--cores", NULL, OPTIONS_COUNT, CMD_CORES_MAX, NULL},
};

static void option_apply(const options_item *it, run_program_options *o)
{
    switch (it->index) {
    case PROG_OPT_JSON:
        o->json = 1;
        break;
    case PROG_OPT_MODE:
        o->mode = it->value;
        break;
    case PROG_OPT_IMAGE:
        o->image_path = it->value;
        break;
    case PROG_OPT_TRACE:
        o->trace_path = it->value;
        break;
    case PROG_OPT_REPLAYS:
        o->replays = (int)it->count;
        break;
    case PROG_OPT_CORES:
        o->cores = (uint32_t)it->count;
        break;
    }
}

/* Stops at the first --help (usage on stdout, 0) or the first mistake,
 * a second EXAMPLE included (usage on stderr, 2). */
int cmd_run_program(int argc, char **argv)
{
    run_program_options o = {NULL, NULL, NULL, NULL, 0, 1, 0};
    options_parser p;
    options_item it;
    options_init(&p, argc, argv, program_specs, PROG_OPTS);
    while (options_next(&p, &it) != OPTIONS_END) {
        if (it.event == OPTIONS_HELP) {
            usage(stdout);
            return 0;
        }
        if (it.event == OPTIONS_POSITIONAL && o.name == NULL) {
            o.name = it.arg;
        } else if (it.event == OPTIONS_OPTION) {
            option_apply(&it, &o);
        } else {
            usage(stderr);
            return 2;
        }
    }
    return run_program(&o);
}
