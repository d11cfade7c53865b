/* What `simpler run` and `simpler bench` share (run_common.h). */
#include "run_common.h"

#include <stdarg.h>
#include <string.h>

#include "commands.h"
#include "example_cases.h"
#include "options.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"

/* ---- usage errors and statuses ---- */

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "simpler %s: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'simpler %s --help'.\n", command);
    return 2;
}

void cli_reason_take(char *reason, size_t size)
{
    if (size == 0)
        return;
    snprintf(reason, size, "%s", simpler_last_error_message());
}

/* simpler_strerror's "NAME: message" split in two. */
static void status_split(int status, char *name, size_t name_size, const char **message)
{
    const char *text = simpler_strerror(status);
    const char *colon = strstr(text, ": ");
    size_t len = colon != NULL ? (size_t)(colon - text) : strlen(text);
    snprintf(name, name_size, "%.*s", (int)len, text);
    *message = colon != NULL ? colon + 2 : "";
}

void cli_status_format(char *buf, size_t size, int status, const char *reason)
{
    char name[96];
    const char *message;
    status_split(status, name, sizeof(name), &message);
    if (reason != NULL && reason[0] != '\0')
        snprintf(buf, size, "%d %s: %s", status, name, reason);
    else
        snprintf(buf, size, "%d %s (%s)", status, name, message);
}

void cli_refusal(const char *prefix, int status, const char *reason)
{
    char taken[RUN_REASON_MAX], text[RUN_REASON_MAX + 128];
    if (reason == NULL) {
        cli_reason_take(taken, sizeof(taken));
        reason = taken;
    }
    cli_status_format(text, sizeof(text), status, reason);
    fprintf(stderr, "%s: %s\n", prefix, text);
}

/* ---- options ---- */

enum { OPT_JSON, OPT_MODE, OPT_RUNS, OPT_CORES, OPT_TRACE, OPT_IMAGE, OPTS };

static const char *const run_modes[] = {"kernel", "program", NULL};

static const options_spec run_specs[OPTS] = {
    [OPT_JSON] = {"--json", NULL, OPTIONS_FLAG, 0, NULL},
    [OPT_MODE] = {"--mode", NULL, OPTIONS_CHOICE, 0, run_modes},
    [OPT_RUNS] = {"--runs", "--replays", OPTIONS_COUNT, CMD_RUNS_MAX, NULL},
    [OPT_CORES] = {"--cores", NULL, OPTIONS_COUNT, CMD_CORES_MAX, NULL},
    [OPT_TRACE] = {"--trace", NULL, OPTIONS_TEXT, 0, NULL},
    [OPT_IMAGE] = {"--image", NULL, OPTIONS_TEXT, 0, NULL},
};

/* The AICores of the device simdev runs (its configuration). */
static uint32_t device_cores(void)
{
    simdev_config cfg;
    if (simdev_get_config(&cfg) != SIMDEV_SUCCESS)
        return 0;
    return cfg.aic_cores + cfg.aiv_cores;
}

static void option_apply(const options_item *it, run_options *o, const char **image)
{
    switch (it->index) {
    case OPT_JSON:
        o->json = 1;
        break;
    case OPT_MODE:
        o->mode = strcmp(it->value, "program") == 0 ? RUN_MODE_PROGRAM : RUN_MODE_KERNEL;
        break;
    case OPT_RUNS:
        o->runs = (int)it->count;
        break;
    case OPT_CORES:
        o->cores = (uint32_t)it->count;
        break;
    case OPT_TRACE:
        o->trace_path = it->value;
        break;
    default:
        *image = it->arg;
        o->image_path = it->value;
        break;
    }
}

/* The first mistake of the line into `msg`; 0 when there is none, 1 for
 * --help anywhere. */
static int line_read(run_command command, int argc, char **argv, run_options *o, char *msg, unsigned size,
                     const char **image)
{
    options_parser p;
    options_item it;
    int help = 0, named = 0;
    options_init(&p, argc, argv, run_specs, command == RUN_COMMAND_RUN ? OPTS : OPT_TRACE);
    while (options_next(&p, &it) != OPTIONS_END) {
        if (it.event == OPTIONS_HELP) {
            help = 1;
        } else if (it.event == OPTIONS_POSITIONAL && !named) {
            o->name = it.arg;
            named = 1;
        } else if (it.event == OPTIONS_OPTION) {
            option_apply(&it, o, image);
        } else if (msg[0] == '\0') {
            options_error(&it, run_specs, msg, size);
            if (it.event == OPTIONS_POSITIONAL)
                snprintf(msg, size, "unexpected argument '%s' (the example is already '%s')", it.arg, o->name);
        }
    }
    return help;
}

int run_options_parse(run_command command, int argc, char **argv, run_options *o)
{
    const char *name = command == RUN_COMMAND_RUN ? "run" : "bench";
    const char *image = NULL;
    char msg[256] = "";
    memset(o, 0, sizeof(*o));
    o->name = EXAMPLE_DEFAULT_NAME;
    o->mode = command == RUN_COMMAND_RUN ? RUN_MODE_KERNEL : RUN_MODE_BOTH;
    o->runs = command == RUN_COMMAND_RUN ? RUN_DEFAULT_RUNS : BENCH_DEFAULT_RUNS;
    if (line_read(command, argc, argv, o, msg, sizeof(msg), &image))
        return 1;
    if (msg[0] != '\0')
        return cli_usage_error(name, "%s", msg);
    if (image != NULL && o->mode != RUN_MODE_PROGRAM)
        return cli_usage_error(name, "%s '%s': program mode only (add --mode program)", image, o->image_path);
    uint32_t cores = o->cores != 0 ? device_cores() : 0;
    if (o->cores > cores)
        return cli_usage_error(name, "--cores '%u': the device has %u AICores (1..%u)", o->cores, cores, cores);
    example_case c;
    if (example_case_default(o->name, &c) != 0)
        return cli_usage_error(name, "unknown example '%s' (examples: %s)", o->name, EXAMPLE_NAMES);
    return 0;
}

/* ---- the outcome of a session ---- */

void run_outcome_init(run_outcome *out)
{
    memset(out, 0, sizeof(*out));
    out->bad_run = -1;
}

int run_outcome_fail(run_outcome *out, const char *step, int status)
{
    char reason[RUN_REASON_MAX], text[RUN_REASON_MAX + 128];
    cli_reason_take(reason, sizeof(reason));
    cli_status_format(text, sizeof(text), status, reason);
    fprintf(stderr, "simpler: %s failed: %s\n", step, text);
    if (out->status == 0) {
        out->status = status;
        out->step = step;
        memcpy(out->reason, reason, sizeof(reason));
    }
    return status;
}

void run_outcome_check(run_outcome *out, int run, const example_check_result *res, const float *got,
                       const float *want)
{
    if (out->bad_run >= 0)
        return;
    out->check = *res;
    if (res->mismatches != 0) {
        out->bad_run = run;
        out->got = got[res->first_bad];
        out->want = want[res->first_bad];
    }
}

/* ---- the report ---- */

void run_report_init(run_report *r, const run_options *o, const char *mode)
{
    memset(r, 0, sizeof(*r));
    r->example = o->name;
    r->mode = mode;
    r->trace = o->trace_path;
    r->cores = o->cores;
    r->runs = o->runs;
    run_outcome_init(&r->out);
}

void run_report_time(run_report *r, double us)
{
    if (r->runs_done == 0 || us < r->min_us)
        r->min_us = us;
    if (r->runs_done == 0 || us > r->max_us)
        r->max_us = us;
    r->total_us += us;
    r->runs_done++;
}

int run_report_ok(const run_report *r)
{
    return r->out.status == 0 && r->out.bad_run < 0 && r->runs_done == r->runs;
}

static const char *result_name(const run_report *r)
{
    if (r->out.status != 0)
        return "error";
    return r->out.bad_run >= 0 ? "mismatch" : (r->runs_done == r->runs ? "ok" : "error");
}

static double mean_us(const run_report *r)
{
    return r->runs_done > 0 ? r->total_us / r->runs_done : 0.0;
}

static double ns_per_task(const run_report *r)
{
    return mean_us(r) * 1e3 / (double)(r->tasks ? r->tasks : 1);
}

static void golden_text(const run_report *r)
{
    const run_outcome *o = &r->out;
    if (o->bad_run >= 0)
        printf("  golden              MISMATCH: run %d: %llu of %llu elements differ "
               "(first at %llu: got %.6g, want %.6g)\n",
               o->bad_run, (unsigned long long)o->check.mismatches, (unsigned long long)o->check.elements,
               (unsigned long long)o->check.first_bad, o->got, o->want);
    else if (o->status == 0)
        printf("  golden              every run matched (%llu elements, max abs err %.3g)\n",
               (unsigned long long)o->check.elements, o->check.max_abs_err);
}

static void report_text(const run_report *r)
{
    printf("simpler run: %s, %s mode, %llu tasks\n", r->example, r->mode, (unsigned long long)r->tasks);
    printf("  image               %s\n", r->image != NULL ? r->image : "(none)");
    printf("  runs                %d of %d, fresh inputs each\n", r->runs_done, r->runs);
    if (r->cores != 0)
        printf("  cores               %u AICores\n", r->cores);
    else
        printf("  cores               every AICore\n");
    printf("  first run           %.1f us (%s)\n", r->first_us, r->first_what);
    if (r->runs_done > 0) {
        printf("  per run             mean %.1f us, min %.1f us, max %.1f us (%s)\n", mean_us(r), r->min_us,
               r->max_us, r->run_what);
        printf("  ns per task         %.0f\n", ns_per_task(r));
    }
    printf("  allocations         %llu host, %llu device during %s\n", (unsigned long long)r->host_allocs,
           (unsigned long long)r->device_allocs, r->allocs_what);
    printf("  committed device    %llu bytes\n", (unsigned long long)r->committed_bytes);
    printf("  gm_heap base        0x%llx before, 0x%llx after\n", (unsigned long long)r->heap_before,
           (unsigned long long)r->heap_after);
    printf("  retained temp base  0x%llx before, 0x%llx after\n", (unsigned long long)r->temp_before,
           (unsigned long long)r->temp_after);
    if (r->trace != NULL && r->out.status == 0 && r->trace_holds[0] != '\0')
        printf("  trace               %s (holds %s)\n", r->trace, r->trace_holds);
    else if (r->trace != NULL)
        printf("  trace               %s (not written)\n", r->trace);
    golden_text(r);
    if (r->out.status != 0) {
        char text[RUN_REASON_MAX + 128];
        cli_status_format(text, sizeof(text), r->out.status, r->out.reason);
        printf("  result              FAILED: %s: %s\n", r->out.step, text);
    } else {
        printf("  result              %s\n", run_report_ok(r) ? "ok" : "FAILED");
    }
}

void json_string(FILE *fp, const char *s)
{
    if (s == NULL) {
        fputs("null", fp);
        return;
    }
    fputc('"', fp);
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(fp, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(fp, "\\u%04x", ch);
        else
            fputc(ch, fp);
    }
    fputc('"', fp);
}

void json_error(FILE *fp, const run_outcome *out)
{
    if (out->status == 0) {
        fputs("null", fp);
        return;
    }
    char name[96];
    const char *message;
    status_split(out->status, name, sizeof(name), &message);
    fprintf(fp, "{\"status\":%d,\"name\":", out->status);
    json_string(fp, name);
    fputs(",\"message\":", fp);
    json_string(fp, message);
    fputs(",\"reason\":", fp);
    json_string(fp, out->reason);
    fputs(",\"step\":", fp);
    json_string(fp, out->step);
    fputc('}', fp);
}

static void report_json(const run_report *r)
{
    printf("{\"example\":");
    json_string(stdout, r->example);
    printf(",\"mode\":\"%s\",\"image\":", r->mode);
    json_string(stdout, r->image);
    printf(",\"tasks\":%llu,\"runs\":%d,\"runs_done\":%d,\"cores\":%u,\"result\":\"%s\",",
           (unsigned long long)r->tasks, r->runs, r->runs_done, r->cores, result_name(r));
    printf("\"time_us\":{\"first\":%.3f,\"mean\":%.3f,\"min\":%.3f,\"max\":%.3f},\"ns_per_task\":%.1f,",
           r->first_us, mean_us(r), r->min_us, r->max_us, ns_per_task(r));
    printf("\"allocations\":{\"host\":%llu,\"device\":%llu},\"committed_device_bytes\":%llu,",
           (unsigned long long)r->host_allocs, (unsigned long long)r->device_allocs,
           (unsigned long long)r->committed_bytes);
    printf("\"gm_heap_base\":{\"before\":%llu,\"after\":%llu},\"retained_temp_base\":{\"before\":%llu,\"after\":%llu},",
           (unsigned long long)r->heap_before, (unsigned long long)r->heap_after,
           (unsigned long long)r->temp_before, (unsigned long long)r->temp_after);
    printf("\"golden\":{\"elements\":%llu,\"mismatches\":%llu,\"bad_run\":%d,\"max_abs_err\":%.9g},\"trace\":",
           (unsigned long long)r->out.check.elements, (unsigned long long)r->out.check.mismatches, r->out.bad_run,
           r->out.check.max_abs_err);
    json_string(stdout, r->trace);
    printf(",\"trace_holds\":");
    json_string(stdout, r->trace != NULL && r->out.status == 0 && r->trace_holds[0] != '\0' ? r->trace_holds : NULL);
    printf(",\"error\":");
    json_error(stdout, &r->out);
    printf("}\n");
}

void run_report_print(const run_report *r, int json)
{
    if (json)
        report_json(r);
    else
        report_text(r);
}
