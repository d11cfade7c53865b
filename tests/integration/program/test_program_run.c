/* Program mode end to end: simpler_run over real simdev with the "vadd"
 * image — results, HOST staging, DEVICE tensors, repeated runs, growth,
 * device and orchestration statuses, and the trace file. */
#include "support.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "program_fixture.h"
#include "context/context.h"
#include "graph/graph_build.h"


typedef struct suite {
    vadd_image image;
    DeviceContextHandle ctx;
} suite;

static int setup(void **state)
{
    static suite s;
    if (program_simdev_setup() != 0)
        return -1;
    s.image = vadd_image_load();
    s.ctx = create_device_context();
    if (s.image.size == 0 || s.ctx == NULL || simpler_init(s.ctx, 0, NULL) != 0)
        return -1;
    if (simpler_register_callable(s.ctx, 3, s.image.bytes, s.image.size) != 0)
        return -1;
    *state = &s;
    return 0;
}

static int teardown(void **state)
{
    suite *s = *state;
    int rc = finalize_device(s->ctx);
    destroy_device_context(s->ctx);
    vadd_image_free(&s->image);
    return rc == 0 && program_simdev_teardown() == 0 ? 0 : -1;
}

static simdev_counters counters(void)
{
    simdev_counters c;
    assert_int_equal(simdev_get_counters(&c), SIMDEV_SUCCESS);
    return c;
}

static void program_run_host_tensors_staged_in_and_copied_back(void **state)
{
    suite *s = *state;
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 3, 0);
    assert_int_equal(simpler_run(s->ctx, 3, &args, NULL), 0);
    assert_int_equal(vadd_check(&v, 3), 0);
    assert_int_not_equal(get_retained_temp_addr_ctx(s->ctx, 0), 0);
}

static void program_run_device_tensors_used_in_place(void **state)
{
    suite *s = *state;
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    size_t bytes = sizeof(v.a);
    void *a = device_malloc_ctx(s->ctx, bytes), *b = device_malloc_ctx(s->ctx, bytes);
    void *f = device_malloc_ctx(s->ctx, bytes);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(f);
    vadd_buffers_fill(&v, 7.0f);
    assert_int_equal(copy_to_device_ctx(s->ctx, a, v.a, bytes), 0);
    assert_int_equal(copy_to_device_ctx(s->ctx, b, v.b, bytes), 0);
    vadd_args_make(&args, a, b, f, SIMPLER_ADDRESS_SPACE_DEVICE, 0, 0);
    assert_int_equal(simpler_run(s->ctx, 3, &args, NULL), 0);
    assert_int_equal(copy_from_device_ctx(s->ctx, v.f, f, bytes), 0);
    assert_int_equal(vadd_check(&v, 0), 0);
    device_free_ctx(s->ctx, a);
    device_free_ctx(s->ctx, b);
    device_free_ctx(s->ctx, f);
}

static void program_run_repeated_runs_reuse_capacity_without_allocating(void **state)
{
    suite *s = *state;
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    vadd_buffers_fill(&v, 2.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 2, 0);
    assert_int_equal(simpler_run(s->ctx, 3, &args, NULL), 0);
    uint64_t heap = get_arena_bank_gm_heap_base_ctx(s->ctx, 0);
    uint64_t temp = get_retained_temp_addr_ctx(s->ctx, 0);
    size_t committed = committed_device_memory_ctx(s->ctx);
    simdev_counters before = counters();
    for (int i = 0; i < 5; i++) {
        vadd_buffers_fill(&v, (float)i);
        assert_int_equal(simpler_run(s->ctx, 3, &args, NULL), 0);
        assert_int_equal(vadd_check(&v, 2), 0);
    }
    simdev_counters after = counters();
    assert_int_equal(after.malloc_calls, before.malloc_calls);
    assert_int_equal(after.free_calls, before.free_calls);
    assert_int_equal(get_arena_bank_gm_heap_base_ctx(s->ctx, 0), heap);
    assert_int_equal(get_retained_temp_addr_ctx(s->ctx, 0), temp);
    assert_int_equal(committed_device_memory_ctx(s->ctx), committed);
}

static void program_run_bigger_graph_grows_the_bank(void **state)
{
    suite *s = *state;
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    vadd_buffers_fill(&v, 3.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
    assert_int_equal(simpler_run(s->ctx, 3, &args, NULL), 0);
    size_t small = committed_device_memory_ctx(s->ctx);
    /* 600 rounds: more tasks than the default window (the host scratch
     * regrows) and a heap of 601 intermediates (the bank re-bases). */
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 600, 0);
    assert_int_equal(simpler_run(s->ctx, 3, &args, NULL), 0);
    assert_int_equal(vadd_check(&v, 600), 0);
    assert_true(committed_device_memory_ctx(s->ctx) > small);
    assert_true(committed_device_memory_ctx(s->ctx) >= 601u * 1024u);
}

static void program_run_returns_orchestration_failure_code(void **state)
{
    suite *s = *state;
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, (uint64_t)(int64_t)-42);
    assert_int_equal(simpler_run(s->ctx, 3, &args, NULL), -42);
    assert_true(v.f[0] == -1.0f);
}

/* simpler_run refuses `args` with `rc` and a reason naming `needle`,
 * before any device call, with the HOST output untouched; the context
 * then runs fine. */
static void expect_run_refused_on_host(suite *s, uint64_t mode, const CallConfig *config, int rc, const char *needle)
{
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, mode);
    simdev_counters before = counters();
    assert_int_equal(simpler_run(s->ctx, 3, &args, config), rc);
    if (strstr(simpler_last_error_message(), needle) == NULL)
        fail_msg("reason '%s' does not name '%s'", simpler_last_error_message(), needle);
    simdev_counters after = counters();
    assert_memory_equal(&after, &before, sizeof after);
    assert_true(v.f[0] == -1.0f); /* vadd_buffers_fill's marker: nothing copied back */
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
    assert_int_equal(simpler_run(s->ctx, 3, &args, NULL), 0);
    assert_int_equal(vadd_check(&v, 1), 0);
}

static void program_run_null_or_wrapping_buffer_refused_with_no_effect(void **state)
{
    suite *s = *state;
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    for (int k = 0; k < 3; k++) {
        vadd_buffers_fill(&v, 1.0f);
        vadd_args_make(&args, v.a, v.b, v.f, k == 1 ? SIMPLER_ADDRESS_SPACE_DEVICE : SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
        args.tensors[0].buffer_addr = k == 2 ? UINT64_MAX - 64 : 0;
        simdev_counters before = counters();
        assert_int_equal(simpler_run(s->ctx, 3, &args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(simpler_last_error_message(), "args.tensors[0]"));
        simdev_counters after = counters();
        assert_memory_equal(&after, &before, sizeof after);
        assert_true(v.f[0] == -1.0f);
    }
}

static void program_run_missing_kernel_refused_on_host_with_no_effect(void **state)
{
    expect_run_refused_on_host(*state, VADD_MODE_MISSING, NULL, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "func_id 9");
}

static void program_run_wrong_core_type_refused_on_host_with_no_effect(void **state)
{
    expect_run_refused_on_host(*state, VADD_MODE_WRONG_CORE, NULL, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                               "func_id 2 is an AIC kernel");
}

static void program_run_graph_without_tasks_refused_on_host_with_no_effect(void **state)
{
    expect_run_refused_on_host(*state, VADD_MODE_EMPTY, NULL, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "submitted no task");
}

static void program_run_core_type_without_cores_refused_on_host_with_no_effect(void **state)
{
    CallConfig one_core;
    simpler_call_config_default(&one_core);
    one_core.aicore_count = 1; /* one AIC core, no AIV core; the graph needs both */
    expect_run_refused_on_host(*state, 0, &one_core, PTO_RUNTIME_ERR_UNSUPPORTED, "AIV cores");
}

/* A graph larger than program mode's automatic regrowth
 * (PROGRAM_REGROW_WINDOW_MAX, 65536 tasks) with no CallConfig.task_window:
 * simpler_run's documented statuses (runtime_c_api.h) have no -1004, and
 * "a call that fails has no effect: nothing is allocated". The refusal
 * must say what to change (CallConfig.task_window), run nothing, and
 * leave the context's host build scratch as it was: today it keeps the
 * 65536-task scratch (about 100 MiB) the refused build grew to. */
static void program_run_graph_over_the_regrow_limit_refused_with_no_effect(void **state)
{
    suite *s = *state;
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    simpler_context *ctx = s->ctx;
    uint32_t window = graph_scratch_limits(ctx->scratch)->task_max;
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 70000, 0); /* 70002 tasks */
    simdev_counters before = counters();
    int rc = simpler_run(s->ctx, 3, &args, NULL);
    char reason[512];
    snprintf(reason, sizeof reason, "%s", simpler_last_error_message());
    simdev_counters after = counters();
    uint32_t window_after = graph_scratch_limits(ctx->scratch)->task_max;
    assert_int_equal(rc, PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_memory_equal(&after, &before, sizeof after); /* nothing ran */
    assert_true(v.f[0] == -1.0f);                      /* no HOST output written */
    int names_field = strstr(reason, "task_window") != NULL;
    if (!names_field || window_after != window)
        fail_msg("reason '%s'%s; build scratch %u tasks before, %u after the refused run", reason,
                 names_field ? "" : " does not say to raise CallConfig.task_window", window, window_after);
}

/* Where the last completed run spent its time (simpler_run_times, for
 * benchmarks): only after a run that completed, on a context of its own
 * on device 1 (finalize resets its device, which the suite's context
 * uses). */
static void times_poison(SimplerRunTimes *t)
{
    memset(t, 7, sizeof(*t));
    t->struct_size = sizeof(*t);
}

static int times_untouched(const SimplerRunTimes *t)
{
    SimplerRunTimes seven;
    times_poison(&seven);
    return memcmp(t, &seven, sizeof(seven)) == 0;
}

static void times_check(DeviceContextHandle ctx, SimplerRunTimes *t)
{
    t->struct_size = sizeof(*t);
    assert_int_equal(simpler_run_times(ctx, t), 0);
    assert_int_equal(t->struct_size, sizeof(*t));
    assert_int_equal(t->reserved, 0);
    assert_true(t->host_build_ns > 0 && t->upload_ns > 0 && t->launch_ns > 0 && t->wait_ns > 0 && t->finish_ns > 0);
    assert_true(t->device_prepare_ns > 0 && t->device_graph_ns > 0);
    /* The scheduler ran after its launch was enqueued and before the
     * wait ended, on the same clock (it may start before the host's
     * enqueue call returns, so launch and wait together). */
    assert_true(t->device_prepare_ns + t->device_graph_ns <= t->launch_ns + t->wait_ns);
}

static void times_absent(DeviceContextHandle ctx)
{
    SimplerRunTimes t;
    times_poison(&t);
    assert_int_equal(simpler_run_times(ctx, &t), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_true(times_untouched(&t));
}

static void program_run_times_of_the_last_completed_run(void **state)
{
    suite *s = *state;
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    SimplerRunTimes t = {.struct_size = sizeof(t)};
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    times_absent(ctx);
    assert_int_equal(simpler_init(ctx, 1, NULL), 0);
    assert_int_equal(simpler_register_callable(ctx, 3, s->image.bytes, s->image.size), 0);
    times_absent(ctx);

    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 3, 0);
    assert_int_equal(simpler_run(ctx, 3, &args, NULL), 0);
    assert_int_equal(simpler_run_times(NULL, &t), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_run_times(ctx, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    t.struct_size = sizeof(t) - 8;
    assert_int_equal(simpler_run_times(ctx, &t), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    times_check(ctx, &t);

    /* A run that failed before the device (here the orchestration, after
     * which the next commit may re-base the arena) leaves nothing to
     * report; nor does a run the device refused. */
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, (uint64_t)(int64_t)-42);
    assert_int_equal(simpler_run(ctx, 3, &args, NULL), -42);
    times_absent(ctx);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 3, 0);
    assert_int_equal(simpler_run(ctx, 3, &args, NULL), 0);
    times_check(ctx, &t);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, VADD_MODE_MISSING);
    assert_true(simpler_run(ctx, 3, &args, NULL) < 0);
    times_absent(ctx);

    /* Nor does a run whose k-th synchronous copy failed, for every k up
     * to the first run that needs fewer: staging in, the upload, the
     * status word and the copy back (after the device finished). */
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
    int rc = -1;
    for (uint64_t k = 1; rc != 0; k++) {
        assert_int_equal(simdev_fault_inject(SIMDEV_CALL_MEMCPY_SYNC, k, SIMDEV_ERROR_INVALID_PARAM), SIMDEV_SUCCESS);
        rc = simpler_run(ctx, 3, &args, NULL);
        assert_int_equal(simdev_fault_clear(), SIMDEV_SUCCESS);
        if (rc != 0)
            times_absent(ctx);
        assert_true(k < 16);
    }
    times_check(ctx, &t);

    /* Its one device call fails: the device status, nothing written, and
     * the times are still there once the device answers again. */
    SimplerRunTimes kept = t;
    times_poison(&t);
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_MEMCPY_SYNC, 1, SIMDEV_ERROR_INVALID_PARAM), SIMDEV_SUCCESS);
    rc = simpler_run_times(ctx, &t);
    assert_int_equal(simdev_fault_clear(), SIMDEV_SUCCESS);
    assert_true(rc < 0 && rc != PTO_RUNTIME_ERR_INVALID_STATE && rc != PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_true(times_untouched(&t));
    assert_int_equal(simpler_run_times(ctx, &t), 0);
    assert_memory_equal(&t, &kept, sizeof(t));

    assert_int_equal(finalize_device(ctx), 0);
    times_absent(ctx);
    destroy_device_context(ctx);
}

static void program_run_with_trace_writes_one_event_per_task(void **state)
{
    suite *s = *state;
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    CallConfig config;
    char path[600];
    char text[65536];
    assert_int_equal(simpler_call_config_default(&config), 0);
    config.trace = 1;
    snprintf(config.output_prefix, sizeof(config.output_prefix), "%s/program_run_", SIMPLER_BINARY_DIR);
    snprintf(path, sizeof(path), "%strace.json", config.output_prefix);
    remove(path);
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 4, 0);
    assert_int_equal(simpler_run(s->ctx, 3, &args, &config), 0);
    assert_int_equal(vadd_check(&v, 4), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    int events = 0;
    for (const char *p = text; (p = strstr(p, "\"cat\":\"task\"")) != NULL; p++)
        events++;
    assert_int_equal(events, 6); /* 4 rounds + add + scale */
    /* The host's phases, the scheduler's, named tracks. */
    assert_non_null(strstr(text, "\"name\":\"build\",\"cat\":\"host\""));
    assert_non_null(strstr(text, "\"name\":\"wait\",\"cat\":\"host\""));
    assert_non_null(strstr(text, "\"name\":\"dispatch\",\"cat\":\"scheduler\""));
    assert_non_null(strstr(text, "\"args\":{\"name\":\"scheduler\"}"));
    assert_non_null(strstr(text, "\"args\":{\"name\":\"host\"}"));
    /* Tasks carry the image's kernel names, not "func N". */
    assert_non_null(strstr(text, "\"name\":\"vadd_kernel\",\"cat\":\"task\""));
    assert_null(strstr(text, "\"name\":\"func "));
    remove(path);
}

static void program_run_trace_path_that_cannot_be_written_refused_before_run(void **state)
{
    suite *s = *state;
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    CallConfig config;
    assert_int_equal(simpler_call_config_default(&config), 0);
    config.trace = 1;
    /* A missing directory, then a directory where the file should be. */
    for (int k = 0; k < 2; k++) {
        if (k == 0)
            snprintf(config.output_prefix, sizeof(config.output_prefix), "%s/no_such_dir/x_", SIMPLER_BINARY_DIR);
        else
            snprintf(config.output_prefix, sizeof(config.output_prefix), "%s/tests/", SIMPLER_BINARY_DIR);
        if (k == 1) {
            char dir[600];
            snprintf(dir, sizeof dir, "%strace.json", config.output_prefix);
            (void)mkdir(dir, 0755);
        }
        vadd_buffers_fill(&v, 1.0f);
        vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
        simdev_counters before = counters();
        assert_int_equal(simpler_run(s->ctx, 3, &args, &config), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(simpler_last_error_message(), "output_prefix"));
        simdev_counters after = counters();
        assert_memory_equal(&after, &before, sizeof after); /* nothing ran */
        assert_true(v.f[0] == -1.0f);                      /* no HOST output written */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(program_run_host_tensors_staged_in_and_copied_back),
        cmocka_unit_test(program_run_device_tensors_used_in_place),
        cmocka_unit_test(program_run_repeated_runs_reuse_capacity_without_allocating),
        cmocka_unit_test(program_run_bigger_graph_grows_the_bank),
        cmocka_unit_test(program_run_returns_orchestration_failure_code),
        cmocka_unit_test(program_run_null_or_wrapping_buffer_refused_with_no_effect),
        cmocka_unit_test(program_run_missing_kernel_refused_on_host_with_no_effect),
        cmocka_unit_test(program_run_wrong_core_type_refused_on_host_with_no_effect),
        cmocka_unit_test(program_run_core_type_without_cores_refused_on_host_with_no_effect),
        cmocka_unit_test(program_run_graph_without_tasks_refused_on_host_with_no_effect),
        cmocka_unit_test(program_run_graph_over_the_regrow_limit_refused_with_no_effect),
        cmocka_unit_test(program_run_with_trace_writes_one_event_per_task),
        cmocka_unit_test(program_run_trace_path_that_cannot_be_written_refused_before_run),
        cmocka_unit_test(program_run_times_of_the_last_completed_run),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
