/* simpler run --mode program [EXAMPLE]: one example end to end through the
 * public program-mode ABI, checked against its golden (run_program.h),
 * reported in the layout both modes share (run_common.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "example_cases.h"
#include "example_driver.h"
#include "commands.h"
#include "run_program.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"
#include "tool_clock.h"

/* The slot the example is registered under (any id < 64 would do). */
#define RUN_PROGRAM_CALLABLE_ID 0
#define RUN_PROGRAM_PATH_MAX 4096
#define RUN_PROGRAM_DEVICE 0

/* A program-mode session: the report it fills and where each run's
 * time goes (bench keeps them). */
typedef struct program_session {
    run_report *rep;
    double *times_us; /* NULL, or one entry per run */
} program_session;

static int fail(program_session *ps, const char *step, int status)
{
    return run_outcome_fail(&ps->rep->out, step, status);
}

static void timing_add(program_session *ps, double us)
{
    if (ps->times_us != NULL)
        ps->times_us[ps->rep->runs_done] = us;
    if (ps->rep->runs_done == 0)
        ps->rep->first_us = us;
    run_report_time(ps->rep, us);
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

/* One run on fresh inputs (seed r), timed, counted and checked. */
static int run_once(DeviceContextHandle ctx, example_case *c, example_buffers *b, ChipStorageTaskArgs *args,
                    int r, program_session *ps)
{
    CallConfig cfg;
    simdev_counters c0, c1;
    int rc = example_inputs_prepare(ctx, c, b, (uint64_t)r);
    if (rc != 0)
        return fail(ps, "copy_to_device_ctx", rc);
    rc = example_args_make(c, b, args);
    if (rc != 0)
        return fail(ps, "simpler_tensor_make", rc);
    config_make(ps->rep, r, &cfg);
    uint64_t allocs = simpler_host_alloc_count();
    simdev_get_thread_counters(&c0);
    uint64_t t0 = simpler_clock_ns();
    rc = simpler_run(ctx, RUN_PROGRAM_CALLABLE_ID, args, &cfg);
    uint64_t t1 = simpler_clock_ns();
    simdev_get_thread_counters(&c1);
    ps->rep->host_allocs += simpler_host_alloc_count() - allocs;
    ps->rep->device_allocs += c1.malloc_calls - c0.malloc_calls;
    if (rc != 0)
        return fail(ps, "simpler_run", rc);
    timing_add(ps, tool_clock_us_between(t0, t1));
    example_check_result res = {0, 0, 0, 0.0};
    rc = example_output_check(ctx, c, b, &res);
    if (rc != 0)
        return fail(ps, "copy_from_device_ctx", rc);
    run_outcome_check(&ps->rep->out, r, &res, b->host[c->output_index], b->expected);
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
static void runs_do(DeviceContextHandle ctx, const void *image, size_t size, example_case *c, program_session *ps)
{
    example_buffers b;
    run_report *rep = ps->rep;
    ChipStorageTaskArgs *args = calloc(1, sizeof(*args));
    int rc = args == NULL ? PTO_RUNTIME_ERR_OUT_OF_MEMORY : example_buffers_create(c, ctx, &b);
    if (rc != 0) {
        free(args);
        fail(ps, "device_malloc_ctx", rc);
        return;
    }
    tasks_count(image, size, c, &b, args, rep);
    rep->heap_before = get_arena_bank_gm_heap_base_ctx(ctx, 0);
    rep->temp_before = get_retained_temp_addr_ctx(ctx, 0);
    for (int r = 0; r < rep->runs && rep->out.status == 0; r++)
        run_once(ctx, c, &b, args, r, ps);
    rep->heap_after = get_arena_bank_gm_heap_base_ctx(ctx, 0);
    rep->temp_after = get_retained_temp_addr_ctx(ctx, 0);
    rep->committed_bytes = committed_device_memory_ctx(ctx);
    example_buffers_destroy(ctx, &b);
    free(args);
}

static void session_run(const void *image, size_t size, example_case *c, program_session *ps)
{
    DeviceContextHandle ctx = create_device_context();
    if (ctx == NULL) {
        fail(ps, "create_device_context", PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        return;
    }
    int rc = simpler_init(ctx, RUN_PROGRAM_DEVICE, NULL);
    if (rc != 0) {
        fail(ps, "simpler_init", rc);
        goto out_destroy;
    }
    rc = simpler_register_callable(ctx, RUN_PROGRAM_CALLABLE_ID, image, size);
    if (rc != 0)
        fail(ps, "simpler_register_callable", rc);
    else
        runs_do(ctx, image, size, c, ps);
    rc = finalize_device(ctx);
    if (rc != 0)
        fail(ps, "finalize_device", rc);
out_destroy:
    destroy_device_context(ctx);
}

/* The runtime writes "<prefix>trace.json"; move it to the asked name. */
static void trace_move(program_session *ps)
{
    char made[RUN_PROGRAM_PATH_MAX];
    if (ps->rep->trace == NULL || ps->rep->out.status != 0)
        return;
    snprintf(made, sizeof(made), "%s.trace.json", ps->rep->trace);
    if (rename(made, ps->rep->trace) != 0)
        fail(ps, "writing the trace file", PTO_RUNTIME_ERR_INTERNAL);
    else
        snprintf(ps->rep->trace_holds, sizeof ps->rep->trace_holds, "simpler_run %d of %d (the last)", ps->rep->runs,
                 ps->rep->runs);
}

/* Runs the session of `o` into *rep; 0, or 2 for an unreadable image.
 * The default image path is built in `path`, which the report points
 * to. */
static int report_make(const run_options *o, run_report *rep, double *times_us, char path[RUN_PROGRAM_PATH_MAX])
{
    example_case c;
    const char *image_path = o->image_path;
    run_report_init(rep, o, "program");
    rep->first_what = "the first simpler_run";
    rep->run_what = "simpler_run";
    rep->allocs_what = "the simpler_run calls";
    if (example_case_default(o->name, &c) != 0) {
        fprintf(stderr, "simpler run: unknown example '%s' (examples: %s)\n", o->name, EXAMPLE_NAMES);
        return 2;
    }
    if (image_path == NULL && example_image_path(o->name, path, RUN_PROGRAM_PATH_MAX) != 0) {
        fprintf(stderr, "simpler run: no image of '%s' found (tried %s); build it first, or pass --image\n",
                o->name, path);
        return 2;
    }
    if (image_path == NULL)
        image_path = path;
    void *image = NULL;
    size_t size = 0;
    int read = example_image_read(image_path, &image, &size);
    if (read != 0) {
        char prefix[RUN_PROGRAM_PATH_MAX + 256];
        snprintf(prefix, sizeof(prefix), "simpler run: cannot read the image of '%s' (%s; build it first, or pass "
                                         "--image)",
                 o->name, image_path);
        cli_refusal(prefix, read, NULL);
        return 2;
    }
    rep->image = image_path;
    program_session ps = {rep, times_us};
    session_run(image, size, &c, &ps);
    trace_move(&ps);
    simpler_callable_free(image);
    return 0;
}

int run_program(const run_options *o)
{
    run_report rep;
    char path[RUN_PROGRAM_PATH_MAX];
    if (report_make(o, &rep, NULL, path) != 0)
        return 2;
    run_report_print(&rep, o->json);
    return run_report_ok(&rep) ? 0 : 1;
}

int run_program_measure(const run_options *o, double *times_us, uint64_t *task_count, run_outcome *out)
{
    run_report rep;
    char path[RUN_PROGRAM_PATH_MAX];
    if (report_make(o, &rep, times_us, path) != 0)
        return 2;
    *task_count = rep.tasks;
    *out = rep.out;
    return run_report_ok(&rep) ? 0 : 1;
}
