/* simpler run: kernel mode by default (SPEC §9). The caller's flow of
 * docs/kernel-mode.md on one example: CONFIGURE sized from the graph's
 * requirements, init, prepare, FREEZE, one eager launch, then a launch
 * captured on the caller stream and replayed N times with fresh inputs
 * copied in place, every run checked against the golden.
 * `--mode program` hands everything to the program-mode runner. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../examples/common/example_cases.h"
#include "../examples/common/example_driver.h"
#include "commands.h"
#include "common/host_alloc.h"
#include "context/kernel_trace.h"
#include "run_example.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"

#define RUN_CALLABLE_ID 0
#define RUN_DEFAULT_REPLAYS 10
#define RUN_PATH_MAX 4096

typedef struct run_opts {
    const char *name;
    const char *trace_path;
    int replays;
} run_opts;

/* The kernel session: what the summary prints. */
typedef struct run_session {
    example_case c;
    example_buffers b;
    ChipStorageTaskArgs args;
    DeviceContextHandle ctx;
    simdev_stream_t stream;
    simdev_graph_t graph;
    void *image;
    size_t image_size;
    uint64_t task_count;
    double eager_us, replay_us;
    uint64_t launch_allocs, launch_device_allocs;
    uint64_t heap_before, temp_before, heap_after, temp_after;
    int mismatches;
} run_session;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int image_path(const char *name, char *path, size_t size)
{
    char exe[RUN_PATH_MAX];
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

/* Returns 1 for program mode, 0 for kernel, -1 for a usage error. */
static int opts_parse(int argc, char **argv, run_opts *o)
{
    int program = 0;
    o->name = EXAMPLE_DEFAULT_NAME;
    o->trace_path = NULL;
    o->replays = RUN_DEFAULT_REPLAYS;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--mode") == 0 && i + 1 < argc) {
            const char *m = argv[++i];
            if (strcmp(m, "program") == 0)
                program = 1;
            else if (strcmp(m, "kernel") != 0)
                return -1;
        } else if (strcmp(a, "--replays") == 0 && i + 1 < argc) {
            o->replays = atoi(argv[++i]);
        } else if (strcmp(a, "--trace") == 0 && i + 1 < argc) {
            o->trace_path = argv[++i];
        } else if (a[0] != '-') {
            o->name = a;
        } else if (!program) {
            return strcmp(a, "--help") == 0 ? -2 : -1;
        }
    }
    if (o->replays < 1)
        o->replays = 1;
    return program;
}

/* CONFIGURE from the requirements of this call (the tensors as device
 * tensors: kernel mode uses the caller's device addresses). */
static int plan(run_session *s, SimplerKernelCtxControl *configure)
{
    SimplerGraphRequirements req;
    example_buffers host;
    ChipStorageTaskArgs args;
    int rc = example_buffers_create(&s->c, NULL, &host);
    rc = rc ? rc : example_args_make(&s->c, &host, &args);
    for (int32_t i = 0; rc == 0 && i < args.tensor_count; i++)
        args.tensors[i].address_space = SIMPLER_ADDRESS_SPACE_DEVICE;
    rc = rc ? rc : simpler_graph_requirements(s->image, s->image_size, &args, &req);
    rc = rc ? rc : simpler_kernel_plan_capacity(&req, 1, configure);
    example_buffers_destroy(NULL, &host);
    s->task_count = req.task_count;
    return rc;
}

static int step(const char *what, int rc)
{
    if (rc != 0)
        fprintf(stderr, "simpler run: %s failed: %d (%s)\n", what, rc, simpler_strerror(rc));
    return rc;
}

static int session_open(run_session *s, const run_opts *o)
{
    SimplerKernelCtxControl configure, freeze;
    CallConfig config;
    memset(&freeze, 0, sizeof(freeze));
    freeze.abi_version = SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION;
    freeze.struct_size = sizeof(freeze);
    freeze.action = SIMPLER_KERNEL_CTX_FREEZE;
    simpler_call_config_default(&config);
    config.trace = o->trace_path != NULL;
    int rc = step("plan", plan(s, &configure));
    if (rc == 0 && config.trace)
        configure.trace_records = (uint32_t)s->task_count;
    rc = rc ? rc : step("configure", simpler_kernel_mode_ctx_control(s->ctx, &configure));
    rc = rc ? rc : step("init", simpler_kernel_mode_init(s->ctx, 0, &config, 1));
    rc = rc ? rc : step("buffers", example_buffers_create(&s->c, s->ctx, &s->b));
    rc = rc ? rc : step("args", example_args_make(&s->c, &s->b, &s->args));
    rc = rc ? rc : step("prepare", simpler_kernel_mode_prepare_callable(s->ctx, RUN_CALLABLE_ID, s->image,
                                                                        s->image_size, s->stream));
    return rc ? rc : step("freeze", simpler_kernel_mode_ctx_control(s->ctx, &freeze));
}

static int check(run_session *s, const char *what)
{
    example_check_result r;
    int rc = step(what, simdev_stream_synchronize(s->stream) == SIMDEV_SUCCESS ? 0 : PTO_RUNTIME_ERR_DEVICE);
    rc = rc ? rc : step("copy back", example_output_check(s->ctx, &s->c, &s->b, &r));
    if (rc == 0 && r.mismatches != 0) {
        fprintf(stderr, "simpler run: %s: %llu of %llu elements differ from the golden\n", what,
                (unsigned long long)r.mismatches, (unsigned long long)r.elements);
        s->mismatches++;
    }
    return rc;
}

/* One eager launch and one captured launch, counting what they allocate. */
static int launches(run_session *s)
{
    simdev_counters c0, c1;
    int rc = step("inputs", example_inputs_prepare(s->ctx, &s->c, &s->b, 0));
    if (rc != 0)
        return rc;
    s->heap_before = get_arena_bank_gm_heap_base_ctx(s->ctx, 0);
    s->temp_before = get_retained_temp_addr_ctx(s->ctx, 0);
    uint64_t allocs = host_alloc_count();
    simdev_get_thread_counters(&c0);
    double t0 = now_us();
    rc = step("eager launch", simpler_kernel_mode_launch(s->ctx, RUN_CALLABLE_ID, &s->args, s->stream));
    s->eager_us = now_us() - t0;
    simdev_get_thread_counters(&c1);
    s->launch_allocs = host_alloc_count() - allocs;
    s->launch_device_allocs = c1.malloc_calls - c0.malloc_calls;
    rc = rc ? rc : check(s, "eager launch");
    rc = rc ? rc : step("capture begin", simdev_capture_begin(s->stream, SIMDEV_CAPTURE_MODE_GLOBAL));
    if (rc != 0)
        return rc;
    simdev_get_thread_counters(&c0);
    int launched = simpler_kernel_mode_launch(s->ctx, RUN_CALLABLE_ID, &s->args, s->stream);
    simdev_get_thread_counters(&c1);
    s->launch_device_allocs += c1.malloc_calls - c0.malloc_calls;
    int ended = simdev_capture_end(s->stream, &s->graph);
    rc = step("captured launch", launched);
    return rc ? rc : step("capture end", ended == SIMDEV_SUCCESS ? 0 : PTO_RUNTIME_ERR_DEVICE);
}

static int replays(run_session *s, int n)
{
    double total = 0;
    for (int r = 1; r <= n; r++) {
        int rc = step("inputs", example_inputs_prepare(s->ctx, &s->c, &s->b, (uint64_t)r));
        if (rc != 0)
            return rc;
        double t0 = now_us();
        rc = step("replay", simdev_graph_launch(s->graph, s->stream) == SIMDEV_SUCCESS ? 0 : PTO_RUNTIME_ERR_DEVICE);
        rc = rc ? rc : step("replay", simdev_stream_synchronize(s->stream) == SIMDEV_SUCCESS ? 0 : PTO_RUNTIME_ERR_DEVICE);
        total += now_us() - t0;
        rc = rc ? rc : check(s, "replay");
        if (rc != 0)
            return rc;
    }
    s->replay_us = total / n;
    s->heap_after = get_arena_bank_gm_heap_base_ctx(s->ctx, 0);
    s->temp_after = get_retained_temp_addr_ctx(s->ctx, 0);
    return 0;
}

static void summary(const run_session *s, const run_opts *o)
{
    printf("simpler run: %s, kernel mode, %llu tasks\n", o->name, (unsigned long long)s->task_count);
    printf("  eager launch        %.1f us (enqueue only)\n", s->eager_us);
    printf("  replay              %.1f us per replay (launch + synchronize), %d replays\n", s->replay_us,
           o->replays);
    printf("  ns per task         %.0f\n", s->replay_us * 1e3 / (double)(s->task_count ? s->task_count : 1));
    printf("  allocations         %llu host, %llu device during launches\n", (unsigned long long)s->launch_allocs,
           (unsigned long long)s->launch_device_allocs);
    printf("  committed device    %zu bytes\n", committed_device_memory_ctx(s->ctx));
    printf("  gm_heap base        0x%llx before, 0x%llx after\n", (unsigned long long)s->heap_before,
           (unsigned long long)s->heap_after);
    printf("  retained temp base  0x%llx before, 0x%llx after\n", (unsigned long long)s->temp_before,
           (unsigned long long)s->temp_after);
    printf("  golden              %s\n", s->mismatches == 0 ? "every run matched" : "MISMATCH");
}

static int session_close(run_session *s)
{
    int rc = 0;
    if (s->graph != NULL && simdev_graph_destroy(s->graph) != SIMDEV_SUCCESS)
        rc = PTO_RUNTIME_ERR_DEVICE;
    (void)simdev_stream_synchronize(s->stream);
    example_buffers_destroy(s->ctx, &s->b);
    int fin = finalize_device(s->ctx);
    if (fin != 0 && fin != PTO_RUNTIME_ERR_INVALID_STATE)
        rc = rc ? rc : step("finalize", fin);
    destroy_device_context(s->ctx);
    (void)simdev_stream_destroy(s->stream);
    free(s->image);
    return rc;
}

static int run_kernel(const run_opts *o)
{
    static run_session s;
    char path[RUN_PATH_MAX];
    memset(&s, 0, sizeof(s));
    if (example_case_default(o->name, &s.c) != 0 || image_path(o->name, path, sizeof(path)) != 0 ||
        example_image_read(path, &s.image, &s.image_size) != 0) {
        fprintf(stderr, "simpler run: unknown example or unreadable image '%s' (examples: %s)\n", o->name,
                EXAMPLE_NAMES);
        return 2;
    }
    s.ctx = create_device_context();
    if (s.ctx == NULL || simdev_stream_create(&s.stream) != SIMDEV_SUCCESS) {
        fprintf(stderr, "simpler run: cannot create a context and a stream\n");
        destroy_device_context(s.ctx);
        free(s.image);
        return 1;
    }
    int rc = session_open(&s, o);
    rc = rc ? rc : launches(&s);
    rc = rc ? rc : replays(&s, o->replays);
    if (rc == 0 && o->trace_path != NULL)
        rc = step("trace export", kernel_trace_export(s.ctx, o->trace_path));
    if (rc == 0)
        summary(&s, o);
    int closed = session_close(&s);
    return rc != 0 || closed != 0 || s.mismatches != 0 ? 1 : 0;
}

int cmd_run(int argc, char **argv)
{
    run_opts o;
    int mode = opts_parse(argc, argv, &o);
    if (mode == 1)
        return cmd_run_example(argc, argv);
    if (mode < 0) {
        fprintf(stderr, "usage: simpler run [EXAMPLE] [--mode kernel|program] [--replays N] [--trace FILE]\n"
                        "  (program mode also takes the options of the program runner)\n");
        return mode == -2 ? 0 : 2;
    }
    return run_kernel(&o);
}
