/* A kernel-mode session on one example (kernel_session.h). */
#include "kernel_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_program.h"
#include "tool_clock.h"

#define SESSION_CALLABLE_ID 0
#define SESSION_PATH_MAX 4096

/* A session's call: its failure is recorded in s->out (the first, with
 * the library's reason) and printed on stderr. */
static int step(kernel_session *s, const char *what, int rc)
{
    return rc != 0 ? run_outcome_fail(&s->out, what, rc) : 0;
}

/* A simdev call, whose failure is PTO_RUNTIME_ERR_DEVICE. */
static int device(kernel_session *s, const char *what, int st)
{
    return step(s, what, st == SIMDEV_SUCCESS ? 0 : PTO_RUNTIME_ERR_DEVICE);
}

/* Synchronizes the session's stream. A failed synchronize reports the
 * code the device latched (simpler_kernel_mode_errors), as program mode's
 * simpler_run does, so one fault has one code in both modes; -1008 only
 * when the device latched nothing. */
static int synchronize(kernel_session *s, const char *what)
{
    if (simdev_stream_synchronize(s->stream) == SIMDEV_SUCCESS)
        return 0;
    int latched = 0;
    if (simpler_kernel_mode_errors(s->ctx, &latched, NULL) != 0 || latched == 0)
        latched = PTO_RUNTIME_ERR_DEVICE;
    return step(s, what, latched);
}

/* CONFIGURE from the requirements of this call (the tensors as device
 * tensors: kernel mode uses the caller's device addresses). */
static int plan(kernel_session *s, SimplerKernelCtxControl *configure)
{
    SimplerGraphRequirements req;
    example_buffers host;
    ChipStorageTaskArgs args;
    int rc = example_buffers_create(&s->c, NULL, &host);
    if (rc != 0)
        return rc;
    rc = example_args_make(&s->c, &host, &args);
    for (int32_t i = 0; rc == 0 && i < args.tensor_count; i++)
        args.tensors[i].address_space = SIMPLER_ADDRESS_SPACE_DEVICE;
    rc = rc ? rc : simpler_graph_requirements(s->image, s->image_size, &args, &req);
    rc = rc ? rc : simpler_kernel_plan_capacity(&req, 1, configure);
    example_buffers_destroy(NULL, &host);
    s->task_count = req.task_count;
    return rc;
}

static int prepare(kernel_session *s, uint32_t cores, int trace)
{
    SimplerKernelCtxControl configure;
    CallConfig config;
    simpler_call_config_default(&config);
    config.trace = trace != 0;
    config.aicore_count = cores;
    int rc = step(s, "plan", plan(s, &configure));
    if (rc == 0 && config.trace)
        configure.trace_records = (uint32_t)s->task_count;
    rc = rc ? rc : step(s, "configure", simpler_kernel_mode_ctx_control(s->ctx, &configure));
    rc = rc ? rc : step(s, "init", simpler_kernel_mode_init(s->ctx, 0, &config, 1));
    rc = rc ? rc : step(s, "buffers", example_buffers_create(&s->c, s->ctx, &s->b));
    rc = rc ? rc : step(s, "prepare", simpler_kernel_mode_prepare_callable(s->ctx, SESSION_CALLABLE_ID, s->image,
                                                                        s->image_size, s->stream));
    return rc ? rc : step(s, "freeze", simpler_kernel_mode_freeze(s->ctx));
}

int kernel_session_open(kernel_session *s, const char *name, uint32_t cores, int trace)
{
    char path[SESSION_PATH_MAX];
    memset(s, 0, sizeof(*s));
    run_outcome_init(&s->out);
    if (example_case_default(name, &s->c) != 0) {
        fprintf(stderr, "simpler: unknown example '%s' (examples: %s)\n", name, EXAMPLE_NAMES);
        return 2;
    }
    if (example_image_path(name, path, sizeof(path)) != 0) {
        fprintf(stderr, "simpler: no image of example '%s' found (tried %s)\n", name, path);
        return 2;
    }
    int read = example_image_read(path, &s->image, &s->image_size);
    if (read != 0) {
        char prefix[sizeof(path) + 128];
        snprintf(prefix, sizeof(prefix), "simpler: cannot read the image of example '%s' (%s)", name, path);
        cli_refusal(prefix, read, NULL);
        return 2;
    }
    snprintf(s->image_path, sizeof(s->image_path), "%s", path);
    s->ctx = create_device_context();
    if (s->ctx == NULL || simdev_stream_create(&s->stream) != SIMDEV_SUCCESS) {
        fprintf(stderr, "simpler: cannot create a context and a stream\n");
        return 1;
    }
    return prepare(s, cores, trace) == 0 ? 0 : 1;
}

/* Waits for run `run` and checks its output against the golden. */
static int check(kernel_session *s, const char *what, int run)
{
    example_check_result r;
    int rc = synchronize(s, what);
    rc = rc ? rc : step(s, "copy back", example_output_check(s->ctx, &s->c, &s->b, &r));
    if (rc == 0) {
        uint32_t o = s->c.output_index;
        run_outcome_check(&s->out, run, &r, s->b.host[o], s->b.expected);
        if (r.mismatches != 0) {
            fprintf(stderr, "simpler: %s: %llu of %llu elements differ from the golden\n", what,
                    (unsigned long long)r.mismatches, (unsigned long long)r.elements);
            s->mismatches++;
        }
    }
    return rc;
}

int kernel_session_first(kernel_session *s)
{
    simdev_counters c0, c1;
    int rc = step(s, "inputs", example_inputs_prepare(s->ctx, &s->c, &s->b, 0));
    rc = rc ? rc : step(s, "args", example_args_make(&s->c, &s->b, &s->args));
    if (rc != 0)
        return rc;
    /* The captured launch below keeps these scalars for every replay. */
    memcpy(s->captured_scalars, s->c.scalars, sizeof(s->captured_scalars));
    s->heap_before = get_arena_bank_gm_heap_base_ctx(s->ctx, 0);
    s->temp_before = get_retained_temp_addr_ctx(s->ctx, 0);
    uint64_t allocs = simpler_host_alloc_count();
    simdev_get_thread_counters(&c0);
    uint64_t t0 = simpler_clock_ns();
    rc = step(s, "eager launch", simpler_kernel_mode_launch(s->ctx, SESSION_CALLABLE_ID, &s->args, s->stream));
    s->eager_us = tool_clock_us_between(t0, simpler_clock_ns());
    simdev_get_thread_counters(&c1);
    s->launch_allocs = simpler_host_alloc_count() - allocs;
    s->launch_device_allocs = c1.malloc_calls - c0.malloc_calls;
    rc = rc ? rc : synchronize(s, "eager launch");
    s->first_us = tool_clock_us_between(t0, simpler_clock_ns());
    rc = rc ? rc : check(s, "eager launch", 0);
    rc = rc ? rc : device(s, "capture begin", simdev_capture_begin(s->stream, SIMDEV_CAPTURE_MODE_GLOBAL));
    if (rc != 0)
        return rc;
    simdev_get_thread_counters(&c0);
    int launched = simpler_kernel_mode_launch(s->ctx, SESSION_CALLABLE_ID, &s->args, s->stream);
    simdev_get_thread_counters(&c1);
    s->launch_device_allocs += c1.malloc_calls - c0.malloc_calls;
    int ended = simdev_capture_end(s->stream, &s->graph);
    rc = step(s, "captured launch", launched);
    return rc ? rc : device(s, "capture end", ended);
}

int kernel_session_eager(kernel_session *s, uint64_t seed, double *us)
{
    /* An eager launch builds its packet from these arguments: it takes
     * the scalars this seed draws. */
    int rc = step(s, "inputs", example_inputs_prepare(s->ctx, &s->c, &s->b, seed));
    rc = rc ? rc : step(s, "args", example_args_make(&s->c, &s->b, &s->args));
    if (rc != 0)
        return rc;
    uint64_t t0 = simpler_clock_ns();
    rc = step(s, "eager launch", simpler_kernel_mode_launch(s->ctx, SESSION_CALLABLE_ID, &s->args, s->stream));
    rc = rc ? rc : synchronize(s, "eager launch");
    *us = tool_clock_us_between(t0, simpler_clock_ns());
    return rc ? rc : check(s, "eager launch", (int)seed);
}

int kernel_session_replay(kernel_session *s, uint64_t seed, double *us)
{
    /* A replay runs the captured packet: fresh tensor contents, the
     * captured scalars (the golden follows them). */
    int rc = step(s, "inputs", example_inputs_prepare_scalars(s->ctx, &s->c, &s->b, seed, s->captured_scalars));
    if (rc != 0)
        return rc;
    uint64_t t0 = simpler_clock_ns();
    rc = device(s, "replay", simdev_graph_launch(s->graph, s->stream));
    rc = rc ? rc : synchronize(s, "replay");
    *us = tool_clock_us_between(t0, simpler_clock_ns());
    return rc ? rc : check(s, "replay", (int)seed);
}

int kernel_session_close(kernel_session *s)
{
    int rc = 0;
    if (s->graph != NULL)
        rc = device(s, "simdev_graph_destroy", simdev_graph_destroy(s->graph));
    s->graph = NULL;
    if (s->stream != NULL)
        (void)simdev_stream_synchronize(s->stream);
    if (s->ctx != NULL) {
        example_buffers_destroy(s->ctx, &s->b);
        int fin = finalize_device(s->ctx);
        if (fin != 0 && fin != PTO_RUNTIME_ERR_INVALID_STATE)
            rc = rc ? rc : step(s, "finalize", fin);
        destroy_device_context(s->ctx);
        s->ctx = NULL;
    }
    if (s->stream != NULL)
        (void)simdev_stream_destroy(s->stream);
    s->stream = NULL;
    simpler_callable_free(s->image);
    s->image = NULL;
    return rc;
}
