/* simpler run: kernel mode by default. One eager launch, then a
 * launch captured on the caller stream and replayed N times with fresh
 * inputs copied in place, every run checked against the golden
 * (kernel_session.h); a summary or one JSON object on stdout.
 * `--mode program` hands everything to the program-mode runner. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "kernel_session.h"
#include "options.h"
#include "run_program.h"

#define RUN_DEFAULT_REPLAYS 10

typedef struct run_opts {
    const char *name;
    const char *trace_path;
    int replays;
    uint32_t cores;
    int json;
} run_opts;

/* What the replays measured. */
typedef struct run_result {
    double replay_us; /* mean, launch + synchronize */
    uint64_t heap_after, temp_after;
} run_result;

enum { RUN_OPT_JSON, RUN_OPT_MODE, RUN_OPT_REPLAYS, RUN_OPT_CORES, RUN_OPT_TRACE, RUN_OPT_IMAGE, RUN_OPTS };

static const char *const run_modes[] = {"kernel", "program", NULL};

static const options_spec run_specs[RUN_OPTS] = {
    [RUN_OPT_JSON] = {"--json", NULL, OPTIONS_FLAG, 0, NULL},
    [RUN_OPT_MODE] = {"--mode", NULL, OPTIONS_CHOICE, 0, run_modes},
    [RUN_OPT_REPLAYS] = {"--replays", NULL, OPTIONS_COUNT, CMD_REPLAYS_MAX, NULL},
    [RUN_OPT_CORES] = {"--cores", NULL, OPTIONS_COUNT, CMD_CORES_MAX, NULL},
    [RUN_OPT_TRACE] = {"--trace", NULL, OPTIONS_TEXT, 0, NULL},
    [RUN_OPT_IMAGE] = {"--image", NULL, OPTIONS_TEXT, 0, NULL}, /* program mode only */
};

static void opt_apply(const options_item *it, run_opts *o, int *program)
{
    switch (it->index) {
    case RUN_OPT_JSON:
        o->json = 1;
        break;
    case RUN_OPT_MODE:
        *program = strcmp(it->value, "program") == 0;
        break;
    case RUN_OPT_REPLAYS:
        o->replays = (int)it->count;
        break;
    case RUN_OPT_CORES:
        o->cores = (uint32_t)it->count;
        break;
    case RUN_OPT_TRACE:
        o->trace_path = it->value;
        break;
    }
}

/* Returns 1 for program mode, 0 for kernel, -1 for a usage error, -2
 * for --help. The whole line is read first: a later --mode program
 * hands every argument to program mode's parser, which judges them by
 * its own options; otherwise --help wins over a mistake. */
static int opts_parse(int argc, char **argv, run_opts *o)
{
    options_parser p;
    options_item it;
    int program = 0, bad = 0, help = 0;
    memset(o, 0, sizeof(*o));
    o->name = EXAMPLE_DEFAULT_NAME;
    o->replays = RUN_DEFAULT_REPLAYS;
    options_init(&p, argc, argv, run_specs, RUN_OPTS);
    while (options_next(&p, &it) != OPTIONS_END) {
        if (it.event == OPTIONS_HELP)
            help = 1;
        else if (it.event == OPTIONS_POSITIONAL)
            o->name = it.arg;
        else if (it.event != OPTIONS_OPTION || it.index == RUN_OPT_IMAGE)
            bad = 1;
        else
            opt_apply(&it, o, &program);
    }
    if (program)
        return 1;
    if (help)
        return -2;
    return bad ? -1 : 0;
}

static int replays(kernel_session *s, int n, run_result *res)
{
    double total = 0, us = 0;
    for (int r = 1; r <= n; r++) {
        int rc = kernel_session_replay(s, (uint64_t)r, &us);
        if (rc != 0)
            return rc;
        total += us;
    }
    res->replay_us = total / n;
    res->heap_after = get_arena_bank_gm_heap_base_ctx(s->ctx, 0);
    res->temp_after = get_retained_temp_addr_ctx(s->ctx, 0);
    return 0;
}

static double ns_per_task(double us, uint64_t tasks)
{
    return us * 1e3 / (double)(tasks ? tasks : 1);
}

static void summary(const kernel_session *s, const run_result *res, const run_opts *o)
{
    printf("simpler run: %s, kernel mode, %llu tasks\n", o->name, (unsigned long long)s->task_count);
    printf("  eager launch        %.1f us (enqueue only)\n", s->eager_us);
    printf("  replay              %.1f us per replay (launch + synchronize), %d replays\n", res->replay_us,
           o->replays);
    printf("  ns per task         %.0f\n", ns_per_task(res->replay_us, s->task_count));
    if (o->cores != 0)
        printf("  cores               %u AICores\n", o->cores);
    printf("  allocations         %llu host, %llu device during launches\n", (unsigned long long)s->launch_allocs,
           (unsigned long long)s->launch_device_allocs);
    printf("  committed device    %zu bytes\n", committed_device_memory_ctx(s->ctx));
    printf("  gm_heap base        0x%llx before, 0x%llx after\n", (unsigned long long)s->heap_before,
           (unsigned long long)res->heap_after);
    printf("  retained temp base  0x%llx before, 0x%llx after\n", (unsigned long long)s->temp_before,
           (unsigned long long)res->temp_after);
    printf("  golden              %s\n", s->mismatches == 0 ? "every run matched" : "MISMATCH");
}

static void summary_json(const kernel_session *s, const run_result *res, const run_opts *o)
{
    printf("{\"example\":\"%s\",\"mode\":\"kernel\",\"tasks\":%llu,\"replays\":%d,\"cores\":%u,", o->name,
           (unsigned long long)s->task_count, o->replays, o->cores);
    printf("\"eager_us\":%.3f,\"replay_us\":%.3f,\"ns_per_task\":%.1f,", s->eager_us, res->replay_us,
           ns_per_task(res->replay_us, s->task_count));
    printf("\"host_allocs\":%llu,\"device_allocs\":%llu,\"committed_device_bytes\":%zu,",
           (unsigned long long)s->launch_allocs, (unsigned long long)s->launch_device_allocs,
           committed_device_memory_ctx(s->ctx));
    printf("\"gm_heap_before\":%llu,\"gm_heap_after\":%llu,\"temp_before\":%llu,\"temp_after\":%llu,",
           (unsigned long long)s->heap_before, (unsigned long long)res->heap_after,
           (unsigned long long)s->temp_before, (unsigned long long)res->temp_after);
    printf("\"result\":\"%s\"}\n", s->mismatches == 0 ? "ok" : "FAILED");
}

static int run_kernel(const run_opts *o)
{
    static kernel_session s;
    run_result res = {0, 0, 0};
    int rc = kernel_session_open(&s, o->name, o->cores, o->trace_path != NULL);
    if (rc == 0)
        rc = kernel_session_first(&s);
    if (rc == 0)
        rc = replays(&s, o->replays, &res);
    if (rc == 0 && o->trace_path != NULL)
        rc = simpler_kernel_mode_trace_export(s.ctx, o->trace_path);
    if (rc != 0 && rc != 2)
        fprintf(stderr, "simpler run: failed: %d (%s)\n", rc, simpler_strerror(rc));
    if (rc == 0 && o->json)
        summary_json(&s, &res, o);
    else if (rc == 0)
        summary(&s, &res, o);
    int closed = kernel_session_close(&s);
    if (rc == 2)
        return 2;
    return rc != 0 || closed != 0 || s.mismatches != 0 ? 1 : 0;
}

int cmd_run(int argc, char **argv)
{
    run_opts o;
    int mode = opts_parse(argc, argv, &o);
    if (mode == 1)
        return cmd_run_program(argc, argv);
    if (mode < 0) {
        fprintf(mode == -2 ? stdout : stderr,
                "usage: simpler run [EXAMPLE] [--mode kernel|program] [--replays N] [--cores N]\n"
                "                   [--trace FILE] [--json]\n"
                "  EXAMPLE is one of: %s (default %s),\n"
                "  or decode (captured, eager and program mode in one run).\n"
                "  --replays is 1..%d (default %d), --cores 1..%d (default: every core).\n"
                "  Program mode also takes --image PATH;"
                " see 'simpler run --mode program --help'.\n",
                EXAMPLE_NAMES, EXAMPLE_DEFAULT_NAME, CMD_REPLAYS_MAX, RUN_DEFAULT_REPLAYS, CMD_CORES_MAX);
        return mode == -2 ? 0 : 2;
    }
    if (strcmp(o.name, "decode") == 0)
        return cmd_run_decode(o.json);
    return run_kernel(&o);
}
