/* A kernel-mode session on one example (kernel_session.h). */
#include "kernel_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_program.h"
#include "tool_clock.h"

#define SESSION_CALLABLE_ID 0
#define SESSION_PATH_MAX 4096

static int step(const char *what, int rc)
{
    if (rc != 0)
        fprintf(stderr, "simpler: %s failed: %d (%s)%s%s\n", what, rc, simpler_strerror(rc),
                simpler_last_error_message()[0] != '\0' ? ": " : "", simpler_last_error_message());
    return rc;
}

static int device(const char *what, int st)
{
    return step(what, st == SIMDEV_SUCCESS ? 0 : PTO_RUNTIME_ERR_DEVICE);
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
    return step(what, latched);
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
    SimplerKernelCtxControl configure, freeze;
    CallConfig config;
    memset(&freeze, 0, sizeof(freeze));
    freeze.abi_version = SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION;
    freeze.struct_size = sizeof(freeze);
    freeze.action = SIMPLER_KERNEL_CTX_FREEZE;
    simpler_call_config_default(&config);
    config.trace = trace != 0;
    config.aicore_count = cores;
    int rc = step("plan", plan(s, &configure));
    if (rc == 0 && config.trace)
        configure.trace_records = (uint32_t)s->task_count;
    rc = rc ? rc : step("configure", simpler_kernel_mode_ctx_control(s->ctx, &configure));
    rc = rc ? rc : step("init", simpler_kernel_mode_init(s->ctx, 0, &config, 1));
    rc = rc ? rc : step("buffers", example_buffers_create(&s->c, s->ctx, &s->b));
    rc = rc ? rc : step("args", example_args_make(&s->c, &s->b, &s->args));
    rc = rc ? rc : step("prepare", simpler_kernel_mode_prepare_callable(s->ctx, SESSION_CALLABLE_ID, s->image,
                                                                        s->image_size, s->stream));
    return rc ? rc : step("freeze", simpler_kernel_mode_ctx_control(s->ctx, &freeze));
}

int kernel_session_open(kernel_session *s, const char *name, uint32_t cores, int trace)
{
    char path[SESSION_PATH_MAX];
    memset(s, 0, sizeof(*s));
    if (example_case_default(name, &s->c) != 0 || example_image_path(name, path, sizeof(path)) != 0 ||
        example_image_read(path, &s->image, &s->image_size) != 0) {
        fprintf(stderr, "simpler: unknown example or unreadable image '%s' (examples: %s)\n", name,
                EXAMPLE_NAMES);
        return 2;
    }
    s->ctx = create_device_context();
    if (s->ctx == NULL || simdev_stream_create(&s->stream) != SIMDEV_SUCCESS) {
        fprintf(stderr, "simpler: cannot create a context and a stream\n");
        return 1;
    }
    return prepare(s, cores, trace) == 0 ? 0 : 1;
}

static int check(kernel_session *s, const char *what)
{
    example_check_result r;
    int rc = synchronize(s, what);
    rc = rc ? rc : step("copy back", example_output_check(s->ctx, &s->c, &s->b, &r));
    if (rc == 0 && r.mismatches != 0) {
        fprintf(stderr, "simpler: %s: %llu of %llu elements differ from the golden\n", what,
                (unsigned long long)r.mismatches, (unsigned long long)r.elements);
        s->mismatches++;
    }
    return rc;
}

int kernel_session_first(kernel_session *s)
{
    simdev_counters c0, c1;
    int rc = step("inputs", example_inputs_prepare(s->ctx, &s->c, &s->b, 0));
    if (rc != 0)
        return rc;
    s->heap_before = get_arena_bank_gm_heap_base_ctx(s->ctx, 0);
    s->temp_before = get_retained_temp_addr_ctx(s->ctx, 0);
    uint64_t allocs = simpler_host_alloc_count();
    simdev_get_thread_counters(&c0);
    uint64_t t0 = simpler_clock_ns();
    rc = step("eager launch", simpler_kernel_mode_launch(s->ctx, SESSION_CALLABLE_ID, &s->args, s->stream));
    s->eager_us = tool_clock_us_between(t0, simpler_clock_ns());
    simdev_get_thread_counters(&c1);
    s->launch_allocs = simpler_host_alloc_count() - allocs;
    s->launch_device_allocs = c1.malloc_calls - c0.malloc_calls;
    rc = rc ? rc : check(s, "eager launch");
    rc = rc ? rc : device("capture begin", simdev_capture_begin(s->stream, SIMDEV_CAPTURE_MODE_GLOBAL));
    if (rc != 0)
        return rc;
    simdev_get_thread_counters(&c0);
    int launched = simpler_kernel_mode_launch(s->ctx, SESSION_CALLABLE_ID, &s->args, s->stream);
    simdev_get_thread_counters(&c1);
    s->launch_device_allocs += c1.malloc_calls - c0.malloc_calls;
    int ended = simdev_capture_end(s->stream, &s->graph);
    rc = step("captured launch", launched);
    return rc ? rc : device("capture end", ended);
}

int kernel_session_eager(kernel_session *s, uint64_t seed, double *us)
{
    int rc = step("inputs", example_inputs_prepare(s->ctx, &s->c, &s->b, seed));
    if (rc != 0)
        return rc;
    uint64_t t0 = simpler_clock_ns();
    rc = step("eager launch", simpler_kernel_mode_launch(s->ctx, SESSION_CALLABLE_ID, &s->args, s->stream));
    rc = rc ? rc : synchronize(s, "eager launch");
    *us = tool_clock_us_between(t0, simpler_clock_ns());
    return rc ? rc : check(s, "eager launch");
}

int kernel_session_replay(kernel_session *s, uint64_t seed, double *us)
{
    int rc = step("inputs", example_inputs_prepare(s->ctx, &s->c, &s->b, seed));
    if (rc != 0)
        return rc;
    uint64_t t0 = simpler_clock_ns();
    rc = device("replay", simdev_graph_launch(s->graph, s->stream));
    rc = rc ? rc : synchronize(s, "replay");
    *us = tool_clock_us_between(t0, simpler_clock_ns());
    return rc ? rc : check(s, "replay");
}

int kernel_session_close(kernel_session *s)
{
    int rc = 0;
    if (s->graph != NULL && simdev_graph_destroy(s->graph) != SIMDEV_SUCCESS)
        rc = PTO_RUNTIME_ERR_DEVICE;
    s->graph = NULL;
    if (s->stream != NULL)
        (void)simdev_stream_synchronize(s->stream);
    if (s->ctx != NULL) {
        example_buffers_destroy(s->ctx, &s->b);
        int fin = finalize_device(s->ctx);
        if (fin != 0 && fin != PTO_RUNTIME_ERR_INVALID_STATE)
            rc = rc ? rc : step("finalize", fin);
        destroy_device_context(s->ctx);
        s->ctx = NULL;
    }
    if (s->stream != NULL)
        (void)simdev_stream_destroy(s->stream);
    s->stream = NULL;
    free(s->image);
    s->image = NULL;
    return rc;
}
