/* The kernel-mode entry points' bad-input table (runtime_c_api.h): a NULL
 * context, NULL or malformed arguments, ids out of range or not resident.
 * Each refusal returns its documented status, makes no simdev call, and
 * leaves the context able to launch and compute the right result. */
#include "support.h"

#include <stdio.h>
#include <string.h>

#include "common/host_alloc.h"
#include "kernel_fixture.h"
#include "../program/image_fixture.h"

static simdev_counters counters(void)
{
    simdev_counters c;
    assert_int_equal(simdev_get_counters(&c), SIMDEV_SUCCESS);
    return c;
}

static void assert_no_simdev_call_since(const simdev_counters *before)
{
    simdev_counters now = counters();
    assert_memory_equal(&now, before, sizeof now);
}

/* One launch on `k` computes the vadd golden: the context still works. */
static void assert_launch_still_works(kfix *k)
{
    kbufs d;
    static vadd_buffers v;
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 1.5f);
    kfix_assert_golden(k, &d, &v, 2);
    int runtime_error = -1, teardown_error = -1;
    assert_int_equal(simpler_kernel_mode_errors(k->ctx, &runtime_error, &teardown_error), 0);
    assert_int_equal(runtime_error, 0);
    assert_int_equal(teardown_error, 0);
    kbufs_free(&d);
}

static void kernel_entries_refuse_null_context_with_invalid_argument(void **state)
{
    (void)state;
    ChipStorageTaskArgs args;
    vadd_args_make(&args, NULL, NULL, NULL, SIMPLER_ADDRESS_SPACE_DEVICE, 1, 0);
    simdev_stream_t stream;
    assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
    simdev_counters before = counters();
    int runtime_error = 7, teardown_error = 7;
    assert_int_equal(simpler_kernel_mode_supported(NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_init(NULL, 0, NULL, 1), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_prepare_callable(NULL, KFIX_ID, image.bytes, image.size, stream),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_launch(NULL, KFIX_ID, &args, stream), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_errors(NULL, &runtime_error, &teardown_error),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(runtime_error, 7);
    assert_int_equal(teardown_error, 7);
    assert_no_simdev_call_since(&before);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void kernel_launch_bad_input_table_enqueues_nothing(void **state)
{
    (void)state;
    SimplerKernelCtxControl configure = kfix_plan(&image, 2);
    kfix k;
    kfix_open(&k, &image, &configure);
    kbufs d;
    kbufs_alloc(&d);
    ChipStorageTaskArgs good, bad;
    vadd_args_make(&good, d.a, d.b, d.f, SIMPLER_ADDRESS_SPACE_DEVICE, 2, 0);
    simdev_counters before = counters();
    uint64_t host_allocs = host_alloc_count();

    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, NULL, k.stream), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &good, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, -1, &good, k.stream), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, SIMPLER_KERNEL_MAX_CALLABLES, &good, k.stream),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID + 1, &good, k.stream),
                     PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT);
    bad = good;
    bad.tensor_count = 2; /* disagrees with the callable's signature */
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &bad, k.stream), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = good;
    bad.scalar_count = 129; /* over the ABI's limit */
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &bad, k.stream), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = good;
    bad.tensors[1].ndims = 0;
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &bad, k.stream), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = good;
    bad.tensors[2].reserved[0] = 1; /* a tensor's reserved bytes must be zero */
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &bad, k.stream), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    /* No buffer at address 0, in either address space, and none that
     * wraps the address space. */
    for (uint8_t space = 0; space < 2; space++) {
        bad = good;
        bad.tensors[0].buffer_addr = 0;
        bad.tensors[0].address_space = space;
        assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &bad, k.stream),
                         PTO_RUNTIME_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(simpler_last_error_message(), "args.tensors[0].buffer_addr = 0"));
    }
    bad = good;
    bad.tensors[1].buffer_addr = UINT64_MAX - 16;
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &bad, k.stream), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(simpler_last_error_message(), "wraps"));

    assert_no_simdev_call_since(&before);
    assert_int_equal(host_alloc_count(), host_allocs);
    kbufs_free(&d);
    assert_launch_still_works(&k);
    kfix_close(&k);
}

/* A launch whose graph the device would refuse: refused on the host with
 * `rc` and a reason naming `needle`, nothing enqueued or allocated. */
static void expect_launch_refused_on_host(kfix *k, uint64_t mode, int rc, const char *needle)
{
    kbufs d;
    kbufs_alloc(&d);
    ChipStorageTaskArgs args;
    vadd_args_make(&args, d.a, d.b, d.f, SIMPLER_ADDRESS_SPACE_DEVICE, 1, mode);
    simdev_counters before = counters();
    uint64_t host_allocs = host_alloc_count();
    assert_int_equal(simpler_kernel_mode_launch(k->ctx, KFIX_ID, &args, k->stream), rc);
    if (strstr(simpler_last_error_message(), needle) == NULL)
        fail_msg("reason '%s' does not name '%s'", simpler_last_error_message(), needle);
    assert_no_simdev_call_since(&before);
    assert_int_equal(host_alloc_count(), host_allocs);
    kbufs_free(&d);
}

static void kernel_launch_graph_the_device_would_refuse_is_refused_on_host(void **state)
{
    (void)state;
    SimplerKernelCtxControl configure = kfix_plan(&image, 2);
    configure.task_window += 1; /* room for the extra task */
    kfix k;
    kfix_open(&k, &image, &configure);
    expect_launch_refused_on_host(&k, VADD_MODE_MISSING, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "func_id 9");
    expect_launch_refused_on_host(&k, VADD_MODE_WRONG_CORE, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                  "func_id 2 is an AIC kernel");
    expect_launch_refused_on_host(&k, VADD_MODE_EMPTY, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "submitted no task");
    assert_launch_still_works(&k);
    kfix_close(&k);
}

static void kernel_launch_core_type_without_cores_is_refused_on_host(void **state)
{
    (void)state;
    SimplerKernelCtxControl configure = kfix_plan(&image, 2), freeze = kfix_freeze();
    CallConfig one_core;
    simpler_call_config_default(&one_core);
    one_core.aicore_count = 1; /* one AIC core, no AIV core; vadd needs both */
    kfix k;
    k.configure = configure;
    k.ctx = create_device_context();
    assert_non_null(k.ctx);
    assert_int_equal(simdev_stream_create(&k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_ctx_control(k.ctx, &configure), 0);
    assert_int_equal(simpler_kernel_mode_init(k.ctx, 0, &one_core, 1), 0);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, KFIX_ID, image.bytes, image.size, k.stream), 0);
    assert_int_equal(simpler_kernel_mode_ctx_control(k.ctx, &freeze), 0);
    expect_launch_refused_on_host(&k, 0, PTO_RUNTIME_ERR_UNSUPPORTED, "AIV cores");
    int runtime_error = -1, teardown_error = -1;
    assert_int_equal(simpler_kernel_mode_errors(k.ctx, &runtime_error, &teardown_error), 0);
    assert_int_equal(runtime_error, 0); /* nothing poisoned */
    kfix_close(&k);
}

static void kernel_prepare_bad_input_table_changes_nothing(void **state)
{
    (void)state;
    SimplerKernelCtxControl configure = kfix_plan(&image, 2);
    kfix k;
    kfix_open(&k, &image, &configure);
    void *corrupt = aligned_alloc(64, (image.size + 63) / 64 * 64);
    assert_non_null(corrupt);
    memcpy(corrupt, image.bytes, image.size);
    ((uint8_t *)corrupt)[0] ^= 0xff; /* the magic */
    size_t dlopens = get_host_dlopen_count(k.ctx), aicpu_dlopens = get_aicpu_dlopen_count(k.ctx);
    simdev_counters before = counters();

    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, KFIX_ID, NULL, image.size, k.stream),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, KFIX_ID, image.bytes, 0, k.stream),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, KFIX_ID, image.bytes, image.size - 1, k.stream),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, KFIX_ID, corrupt, image.size, k.stream),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, -1, image.bytes, image.size, k.stream),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(
        simpler_kernel_mode_prepare_callable(k.ctx, SIMPLER_KERNEL_MAX_CALLABLES, image.bytes, image.size, k.stream),
        PTO_RUNTIME_ERR_INVALID_ARGUMENT);

    /* No load, no device work; the resident slot keeps its generation, so
     * the device still accepts the frozen packet's launch. */
    assert_int_equal(get_host_dlopen_count(k.ctx), dlopens);
    assert_int_equal(get_aicpu_dlopen_count(k.ctx), aicpu_dlopens);
    assert_int_equal(counters().kernel_launches, before.kernel_launches);
    assert_int_equal(counters().malloc_calls, before.malloc_calls);
    free(corrupt);
    assert_launch_still_works(&k);
    kfix_close(&k);
}

static void kernel_init_bad_arguments_refused_then_init_works(void **state)
{
    (void)state;
    SimplerKernelCtxControl configure = kfix_plan(&image, 2);
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &configure), 0);
    CallConfig config;
    simpler_call_config_default(&config);
    config.struct_size = sizeof(config) + 8;
    simdev_counters before = counters();

    assert_int_equal(simpler_kernel_mode_init(ctx, -1, NULL, 1), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, &config, 1), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(counters().stream_create_calls, before.stream_create_calls);
    assert_int_equal(counters().event_create_calls, before.event_create_calls);
    assert_int_equal(counters().malloc_calls, before.malloc_calls);
    assert_int_equal(committed_device_memory_ctx(ctx), 0);
    /* Not latched to PROGRAM either: kernel mode is still on offer. */
    assert_int_equal(simpler_kernel_mode_supported(ctx), 1);

    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
    assert_true(committed_device_memory_ctx(ctx) > 0);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

/* runtime_c_api.h, simpler_kernel_mode_init: "-1004 when the capacity
 * does not fit (sizes or the launch packet)", and "Validates every
 * argument and capability, then ... creates the context's streams".
 * A CONFIGURE whose retained temp bytes make the launch packet larger
 * than the platform's by-value limit must be refused with -1004 before
 * anything is created, also when the packet's byte count, summed in 64
 * bits, wraps around (kernel_init.c: kernel_packet_args_bytes). */
static void kernel_init_refuses_a_launch_packet_whose_size_wraps_before_creating_anything(void **state)
{
    (void)state;
    SimplerKernelCtxControl configure = kfix_plan(&image, 2);
    /* The packet is a few KiB of descriptor, headers and image plus the
     * retained temp bytes: 2^64 - 8 of them wrap the sum to a few KiB. */
    configure.retained_temp_bytes = UINT64_MAX - 7;
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &configure), 0);
    simdev_counters before = counters();
    int rc = simpler_kernel_mode_init(ctx, 0, NULL, 1);
    simdev_counters after = counters();
    char reason[512];
    snprintf(reason, sizeof reason, "%s", simpler_last_error_message());
    int committed = (int)committed_device_memory_ctx(ctx);
    destroy_device_context(ctx);
    if (rc != PTO_RUNTIME_ERR_CAPACITY_EXCEEDED)
        fail_msg("init returned %d (reason '%s'): expected -1004 for a launch packet over the by-value limit", rc,
                 reason);
    assert_non_null(strstr(reason, "retained_temp_bytes"));
    assert_int_equal(after.stream_create_calls, before.stream_create_calls);
    assert_int_equal(after.event_create_calls, before.event_create_calls);
    assert_int_equal(after.malloc_calls, before.malloc_calls);
    assert_int_equal(committed, 0);
}

/* simpler_kernel_mode_ctx_control records a CONFIGURE once ("a
 * different one is refused"), and init refuses a task window above the
 * graph limit (-1005). A CONFIGURE init can never accept must therefore
 * be refused when it is given, or be replaceable after init refused it:
 * today it is recorded, every init is refused, and the corrected
 * CONFIGURE is refused with -1003, so the context can never run kernel
 * mode (the refusal's reason names a field the user can no longer
 * change). */
static void kernel_configure_that_init_must_refuse_does_not_lock_the_context(void **state)
{
    (void)state;
    SimplerKernelCtxControl good = kfix_plan(&image, 2);
    SimplerKernelCtxControl bad = good;
    bad.task_window = (1u << 20) + 1; /* GRAPH_TASK_WINDOW_MAX + 1 */
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    int rc = simpler_kernel_mode_ctx_control(ctx, &bad);
    if (rc == 0)
        assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    else
        assert_int_equal(rc, PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    /* The user acts on the reason: the corrected CONFIGURE, then init. */
    rc = simpler_kernel_mode_ctx_control(ctx, &good);
    char reason[512];
    snprintf(reason, sizeof reason, "%s", simpler_last_error_message());
    if (rc != 0) {
        destroy_device_context(ctx);
        fail_msg("the corrected CONFIGURE was refused with %d ('%s'): the context is locked", rc, reason);
    }
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
    assert_int_equal(simpler_kernel_mode_freeze(ctx), 0);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

/* A CONFIGURE whose task window init could never take (above 1 << 20)
 * is refused when it is given, with the field named, and records
 * nothing: the next, different CONFIGURE is taken as a first one. */
static void kernel_configure_task_window_above_the_limit_refused_recording_nothing(void **state)
{
    (void)state;
    SimplerKernelCtxControl good = kfix_plan(&image, 2), bad = good;
    bad.task_window = (1u << 20) + 1;
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &bad), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(simpler_last_error_message(), "control.task_window"));
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &good), 0);
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

/* A CONFIGURE is recorded once: a different tuple is refused (-1003)
 * while no init has tried it, and replaces it once an init refused it,
 * so that a refusal naming one of its fields can be acted on. */
static void kernel_configure_is_replaced_only_after_an_init_refused_it(void **state)
{
    (void)state;
    SimplerKernelCtxControl good = kfix_plan(&image, 2);
    SimplerKernelCtxControl big = good, other = good;
    big.graph_definition_bytes = 64ull << 20; /* over the launch packet's limit: init refuses */
    other.gm_heap_bytes += 1024;
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &big), 0);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &other), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &big), 0); /* the same tuple: a no-op */
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_non_null(strstr(simpler_last_error_message(), "graph_definition_bytes"));
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &good), 0);
    /* Replaced: recorded once again until another init refuses it. */
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &other), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &other), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_freeze(ctx), 0);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_entries_refuse_null_context_with_invalid_argument),
        cmocka_unit_test(kernel_launch_bad_input_table_enqueues_nothing),
        cmocka_unit_test(kernel_launch_graph_the_device_would_refuse_is_refused_on_host),
        cmocka_unit_test(kernel_launch_core_type_without_cores_is_refused_on_host),
        cmocka_unit_test(kernel_prepare_bad_input_table_changes_nothing),
        cmocka_unit_test(kernel_init_bad_arguments_refused_then_init_works),
        cmocka_unit_test(kernel_init_refuses_a_launch_packet_whose_size_wraps_before_creating_anything),
        cmocka_unit_test(kernel_configure_that_init_must_refuse_does_not_lock_the_context),
        cmocka_unit_test(kernel_configure_is_replaced_only_after_an_init_refused_it),
        cmocka_unit_test(kernel_configure_task_window_above_the_limit_refused_recording_nothing),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
