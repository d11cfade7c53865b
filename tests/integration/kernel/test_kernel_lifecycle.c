#define _GNU_SOURCE
/* Kernel-mode lifecycle over real simdev: the CONFIGURE/FREEZE table,
 * identity between the modes, the capacity guards, the stream-switch
 * rule, and the phase machine under faults (init creation failures,
 * teardown failures, device faults, stale generations). */
#include "support.h"

#include <stdatomic.h>
#include <unistd.h>

#include "common/host_alloc.h"
#include "context/context.h"
#include "kernel/kernel_state.h"
#include "kernel_fixture.h"
#include "reason_check.h"
#include "../program/image_fixture.h"
#include "platform/platform_counter.h"

#define SWEEP_LIMIT 200u
/* The graph size small_configure plans for. */
#define SMALL_ROUNDS_MAX 2u

static SimplerKernelCtxControl small_configure(void)
{
    return kfix_plan(&image, SMALL_ROUNDS_MAX);
}

/* ---- context control ---- */

static void control_structural_rejections_record_nothing(void **state)
{
    (void)state;
    DeviceContextHandle ctx = create_device_context();
    SimplerKernelCtxControl good = small_configure(), bad;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_ctx_control(NULL, &good), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = good, bad.abi_version = 2, bad.task_window++;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &bad), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = good, bad.struct_size = sizeof(bad) - 8, bad.task_window++;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &bad), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = good, bad.action = 3, bad.task_window++;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &bad), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = good, bad.mode = 2, bad.task_window++;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &bad), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = good, bad.reserved[3] = 1, bad.task_window++;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &bad), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = kfix_freeze(), bad.trace_records = 1;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &bad), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = kfix_freeze(), bad.mode = SIMPLER_MODE_KERNEL;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &bad), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    /* Nothing was recorded: the first valid CONFIGURE is accepted, and a
     * different one after it is refused. */
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &good), 0);
    bad = good, bad.task_window++;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &bad), PTO_RUNTIME_ERR_INVALID_STATE);
    destroy_device_context(ctx);
}

static void control_configure_same_tuple_is_idempotent_different_refused(void **state)
{
    (void)state;
    DeviceContextHandle ctx = create_device_context();
    SimplerKernelCtxControl c = small_configure(), other = c;
    other.gm_heap_bytes += 1024;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &c), 0);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &c), 0);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &other), PTO_RUNTIME_ERR_INVALID_STATE);
    destroy_device_context(ctx);
}

static void control_configure_after_init_refused(void **state)
{
    kfix k;
    (void)state;
    kfix_open_plan(&k, &image, SMALL_ROUNDS_MAX);
    assert_int_equal(simpler_kernel_mode_ctx_control(k.ctx, &k.configure), PTO_RUNTIME_ERR_INVALID_STATE);
    kfix_close(&k);
}

static void control_freeze_before_init_refused(void **state)
{
    (void)state;
    DeviceContextHandle ctx = create_device_context();
    SimplerKernelCtxControl c = small_configure(), f = kfix_freeze();
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &f), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &c), 0);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &f), PTO_RUNTIME_ERR_INVALID_STATE);
    destroy_device_context(ctx);
}

static void control_freeze_without_kernel_configure_refused(void **state)
{
    (void)state;
    SimplerKernelCtxControl c = small_configure(), f = kfix_freeze();
    /* No CONFIGURE at all. */
    DeviceContextHandle ctx = create_device_context();
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &f), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
    /* A program-mode CONFIGURE never leads to a successful FREEZE. */
    ctx = create_device_context();
    c.mode = SIMPLER_MODE_PROGRAM;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &c), 0);
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &f), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

static void control_freeze_only_once(void **state)
{
    kfix k;
    (void)state;
    SimplerKernelCtxControl c = small_configure(), f = kfix_freeze();
    kfix_open(&k, &image, &c);
    assert_int_equal(simpler_kernel_mode_ctx_control(k.ctx, &f), PTO_RUNTIME_ERR_INVALID_STATE);
    kfix_close(&k);
}

/* ---- identity ---- */

static void identity_program_context_refuses_every_kernel_entry(void **state)
{
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    /* Refused before the stream is looked at; program mode's finalize
     * resets the device, so no real stream is used here. */
    void *s = &args;
    (void)state;
    DeviceContextHandle ctx = create_device_context();
    SimplerKernelCtxControl f = kfix_freeze();
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
    assert_int_equal(simpler_kernel_mode_supported(ctx), 0);
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_prepare_callable(ctx, 0, image.bytes, image.size, s),
                     PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_launch(ctx, 0, &args, s), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &f), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_errors(ctx, NULL, NULL), PTO_RUNTIME_ERR_INVALID_STATE);
    /* After finalize the latch still says PROGRAM. */
    assert_int_equal(finalize_device(ctx), 0);
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), PTO_RUNTIME_ERR_INVALID_STATE);
    destroy_device_context(ctx);
}

static void identity_kernel_context_refuses_every_program_entry(void **state)
{
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    kfix k;
    (void)state;
    kfix_open_plan(&k, &image, SMALL_ROUNDS_MAX);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
    assert_int_equal(simpler_kernel_mode_supported(k.ctx), 1);
    assert_int_equal(simpler_init(k.ctx, 0, NULL), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_register_callable(k.ctx, 0, image.bytes, image.size), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_unregister_callable(k.ctx, KFIX_ID), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_run(k.ctx, KFIX_ID, &args, NULL), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_init(k.ctx, 0, NULL, 1), PTO_RUNTIME_ERR_INVALID_STATE);
    kfix_close(&k);
}

static void identity_kernel_init_latches_again_after_finalize(void **state)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    (void)state;
    SimplerKernelCtxControl c = small_configure(), f = kfix_freeze();
    kfix_open(&k, &image, &c);
    assert_int_equal(finalize_device(k.ctx), 0);
    assert_int_equal(simpler_kernel_mode_init(k.ctx, 0, NULL, 2), 0);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, KFIX_ID, image.bytes, image.size, k.stream), 0);
    assert_int_equal(simpler_kernel_mode_ctx_control(k.ctx, &f), 0);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 3.0f);
    kfix_assert_golden(&k, &d, &v, 2);
    kbufs_free(&d);
    kfix_close(&k);
}

static void identity_init_on_another_device_refused_nothing_created(void **state)
{
    (void)state;
    DeviceContextHandle ctx = create_device_context();
    assert_int_equal(simpler_kernel_mode_init(ctx, 1, NULL, 1), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_null(((simpler_context *)ctx)->mode_state);
    assert_int_equal(committed_device_memory_ctx(ctx), 0);
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

static void identity_launch_before_freeze_and_after_close_refused(void **state)
{
    kfix k;
    kbufs d;
    (void)state;
    SimplerKernelCtxControl c = small_configure();
    k.ctx = create_device_context();
    assert_int_equal(simdev_stream_create(&k.stream), SIMDEV_SUCCESS);
    kbufs_alloc(&d);
    assert_int_equal(simpler_kernel_mode_ctx_control(k.ctx, &c), 0);
    assert_int_equal(simpler_kernel_mode_init(k.ctx, 0, NULL, 1), 0);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, KFIX_ID, image.bytes, image.size, k.stream), 0);
    assert_int_equal(kfix_launch(&k, &d, 1), PTO_RUNTIME_ERR_INVALID_STATE);
    SimplerKernelCtxControl f = kfix_freeze();
    assert_int_equal(simpler_kernel_mode_ctx_control(k.ctx, &f), 0);
    assert_int_equal(kfix_launch(&k, &d, 1), 0);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(finalize_device(k.ctx), 0);
    assert_int_equal(kfix_launch(&k, &d, 1), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, 0, image.bytes, image.size, k.stream),
                     PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(finalize_device(k.ctx), PTO_RUNTIME_ERR_INVALID_STATE);
    /* Closed: program entries stay refused. */
    assert_int_equal(simpler_init(k.ctx, 0, NULL), PTO_RUNTIME_ERR_INVALID_STATE);
    /* The memory helpers still work: the borrowed device is never reset,
     * so what they allocate must stay freeable (runtime_c_api.h). */
    void *block = device_malloc_ctx(k.ctx, 64);
    assert_non_null(block);
    uint8_t bytes[64] = {1, 2, 3}, back[64] = {0};
    assert_int_equal(copy_to_device_ctx(k.ctx, block, bytes, sizeof bytes), 0);
    assert_int_equal(copy_from_device_ctx(k.ctx, back, block, sizeof back), 0);
    assert_int_equal(back[2], 3);
    device_free_ctx(k.ctx, block);
    destroy_device_context(k.ctx);
    kbufs_free(&d);
    assert_int_equal(simdev_stream_destroy(k.stream), SIMDEV_SUCCESS);
}

/* ---- capacity ---- */

static void capacity_bigger_graph_refused_nothing_enqueued_context_usable(void **state)
{
    static vadd_buffers v;
    simdev_counters before, after;
    kfix k;
    kbufs d;
    (void)state;
    kfix_open_plan(&k, &image, SMALL_ROUNDS_MAX);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 4.0f);
    assert_int_equal(simdev_get_thread_counters(&before), SIMDEV_SUCCESS);
    assert_int_equal(kfix_launch(&k, &d, 40), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(simdev_get_thread_counters(&after), SIMDEV_SUCCESS);
    assert_memory_equal(&before, &after, sizeof(before));
    int runtime = 1, teardown_err = 1;
    assert_int_equal(simpler_kernel_mode_errors(k.ctx, &runtime, &teardown_err), 0);
    assert_int_equal(runtime, 0);
    assert_int_equal(teardown_err, 0);
    kfix_assert_golden(&k, &d, &v, 2);
    kbufs_free(&d);
    kfix_close(&k);
}

static void capacity_prepare_on_capturing_stream_refused(void **state)
{
    kfix k;
    simdev_graph_t captured = NULL;
    (void)state;
    kfix_open_plan(&k, &image, SMALL_ROUNDS_MAX);
    size_t opens = get_host_dlopen_count(k.ctx);
    assert_int_equal(simdev_capture_begin(k.stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, 4, image.bytes, image.size, k.stream),
                     PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simdev_capture_end(k.stream, &captured), SIMDEV_SUCCESS);
    assert_int_equal(get_host_dlopen_count(k.ctx), opens);
    assert_int_equal(simdev_graph_destroy(captured), SIMDEV_SUCCESS);
    kfix_close(&k);
}

static void capacity_host_tensors_beyond_retained_temp_refused(void **state)
{
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    kfix k;
    (void)state;
    SimplerKernelCtxControl c = kfix_plan_space(&image, 2, SIMPLER_ADDRESS_SPACE_HOST);
    c.retained_temp_bytes = 2048; /* three 1 KiB host tensors need 3072 */
    kfix_open(&k, &image, &c);
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &args, k.stream), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(get_retained_temp_addr_ctx(k.ctx, 0) != 0, 1);
    kfix_close(&k);
}

static void capacity_host_tensors_staged_by_value_and_copied_back(void **state)
{
    static vadd_buffers v, w;
    ChipStorageTaskArgs args;
    kfix k;
    (void)state;
    /* Planned from host arguments: the image carries the staged table. */
    SimplerKernelCtxControl c = kfix_plan_space(&image, 2, SIMPLER_ADDRESS_SPACE_HOST);
    assert_int_equal(c.retained_temp_bytes, 3 * 1024);
    kfix_open(&k, &image, &c);
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 2, 0);
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &args, k.stream), 0);
    /* The inputs were taken at launch: changing them now changes nothing. */
    w = v;
    for (uint32_t i = 0; i < VADD_N; i++)
        v.a[i] = 1e6f;
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    memcpy(w.f, v.f, sizeof(w.f));
    assert_int_equal(vadd_check(&w, 2), 0);
    kfix_close(&k);
}

/* ---- stream switch ---- */

static atomic_int gate;

static void wait_gate(void *user)
{
    (void)user;
    while (!atomic_load(&gate))
        usleep(200);
}

/* Runs after the test even when an assertion failed with the gate shut:
 * the stream drains, so the failure is reported instead of the suite's
 * teardown waiting forever for the stream. */
static int gate_open(void **state)
{
    (void)state;
    atomic_store(&gate, 1);
    return 0;
}

static void stream_switch_refused_while_tail_pending_accepted_after(void **state)
{
    static vadd_buffers v;
    simdev_counters before, after;
    simdev_stream_t other;
    kfix k;
    kbufs d;
    (void)state;
    kfix_open_plan(&k, &image, SMALL_ROUNDS_MAX);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 8.0f);
    assert_int_equal(simdev_stream_create(&other), SIMDEV_SUCCESS);
    atomic_store(&gate, 0);
    assert_int_equal(simdev_launch_host_func(k.stream, wait_gate, NULL), SIMDEV_SUCCESS);
    assert_int_equal(kfix_launch(&k, &d, 1), 0);
    ChipStorageTaskArgs args;
    vadd_args_make(&args, d.a, d.b, d.f, SIMPLER_ADDRESS_SPACE_DEVICE, 1, 0);
    assert_int_equal(simdev_get_thread_counters(&before), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &args, other), PTO_RUNTIME_ERR_PREPARED_INCOMPATIBLE);
    assert_int_equal(simdev_get_thread_counters(&after), SIMDEV_SUCCESS);
    assert_int_equal(after.event_record_calls, before.event_record_calls);
    assert_int_equal(after.kernel_launches, before.kernel_launches);
    atomic_store(&gate, 1);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &args, other), 0);
    assert_int_equal(simdev_stream_synchronize(other), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&d, &v, 1), 0);
    assert_int_equal(simdev_stream_destroy(other), SIMDEV_SUCCESS);
    kbufs_free(&d);
    kfix_close(&k);
}

/* ---- faults ---- */

static void assert_new_again(DeviceContextHandle handle)
{
    simpler_context *ctx = handle;
    assert_null(ctx->mode); /* not latched: a refused init changes nothing */
    assert_null(ctx->mode_state);
    assert_false(context_holds_resources(ctx));
    for (int s = 0; s < CONTEXT_STREAM_COUNT; s++)
        assert_null(ctx->streams[s]);
    for (int e = 0; e < CONTEXT_EVENT_COUNT; e++)
        assert_null(ctx->events[e]);
    assert_null(ctx->scratch);
    assert_int_equal(committed_device_memory_ctx(ctx), 0);
}

static void init_sweep(int host)
{
    platform_counter counter;
    SimplerKernelCtxControl c = small_configure();
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        DeviceContextHandle ctx = create_device_context();
        assert_int_equal(context_set_platform_ops(ctx, platform_ops_counting(platform_ops_simdev(), &counter)), 0);
        assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &c), 0);
        if (host)
            host_alloc_fail_nth(k);
        else
            platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, k, SIMDEV_ERROR_MEMORY_ALLOCATION);
        int rc = simpler_kernel_mode_init(ctx, 0, NULL, 1);
        host_alloc_fail_nth(0);
        platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, 0, 0);
        assert_reason_fits_status(rc);
        if (rc == 0) {
            assert_true(k > 1);
            assert_int_equal(finalize_device(ctx), 0);
            destroy_device_context(ctx);
            return;
        }
        assert_true(rc == PTO_RUNTIME_ERR_OUT_OF_MEMORY || rc == PTO_RUNTIME_ERR_DEVICE);
        assert_new_again(ctx);
        assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
        assert_int_equal(finalize_device(ctx), 0);
        destroy_device_context(ctx);
    }
    fail_msg("simpler_kernel_mode_init never succeeded");
}

static void fault_every_init_device_call_fails_in_turn_new_again(void **state)
{
    (void)state;
    init_sweep(0);
}

static void fault_every_init_host_allocation_fails_in_turn_new_again(void **state)
{
    (void)state;
    init_sweep(1);
}

/* A ReadyEnqueued context with KFIX_ID prepared, calling the device
 * through `counter`. */
static void open_counting(kfix *k, platform_counter *counter)
{
    SimplerKernelCtxControl c = small_configure(), f = kfix_freeze();
    k->ctx = create_device_context();
    assert_int_equal(context_set_platform_ops(k->ctx, platform_ops_counting(platform_ops_simdev(), counter)), 0);
    assert_int_equal(simdev_stream_create(&k->stream), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_ctx_control(k->ctx, &c), 0);
    assert_int_equal(simpler_kernel_mode_init(k->ctx, 0, NULL, 1), 0);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k->ctx, KFIX_ID, image.bytes, image.size, k->stream), 0);
    assert_int_equal(simpler_kernel_mode_ctx_control(k->ctx, &f), 0);
}

static uint64_t slot_generation(DeviceContextHandle handle, int32_t id, int *resident)
{
    simpler_context *ctx = handle;
    uint64_t generation = ctx->residency.slots[id].generation;
    *resident = ctx->residency.slots[id].callable != NULL;
    return generation;
}

/* A replacing prepare whose registration cannot be enqueued leaves the
 * slot as it was: the same callable and generation, the same dlopen
 * counts, and launches still run it. A fresh slot stays empty. When only
 * the caller's wait behind an enqueued registration fails, the device
 * applies the registration, so the host installs it too. */
static void fault_failed_registration_leaves_the_slot_as_it_was(void **state)
{
    static vadd_buffers v;
    platform_counter counter;
    kfix k;
    kbufs d;
    int resident = 0;
    (void)state;
    open_counting(&k, &counter);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 1.0f);
    size_t host = get_host_dlopen_count(k.ctx), aicpu = get_aicpu_dlopen_count(k.ctx);
    assert_int_equal(slot_generation(k.ctx, KFIX_ID, &resident), 1);

    platform_counter_fail_nth(&counter, PLATFORM_CALL_LAUNCH_KERNEL, 1, SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, KFIX_ID, image.bytes, image.size, k.stream),
                     PTO_RUNTIME_ERR_DEVICE);
    assert_int_equal(slot_generation(k.ctx, KFIX_ID, &resident), 1);
    assert_true(resident);
    assert_int_equal(get_host_dlopen_count(k.ctx), host);
    assert_int_equal(get_aicpu_dlopen_count(k.ctx), aicpu);
    kfix_assert_golden(&k, &d, &v, 1);

    platform_counter_fail_nth(&counter, PLATFORM_CALL_LAUNCH_KERNEL, 1, SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, 7, image.bytes, image.size, k.stream),
                     PTO_RUNTIME_ERR_DEVICE);
    assert_int_equal(slot_generation(k.ctx, 7, &resident), 0);
    assert_false(resident);

    platform_counter_fail_nth(&counter, PLATFORM_CALL_STREAM_WAIT_EVENT, 1, SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, KFIX_ID, image.bytes, image.size, k.stream),
                     PTO_RUNTIME_ERR_DEVICE);
    platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, 0, 0);
    assert_int_equal(slot_generation(k.ctx, KFIX_ID, &resident), 2);
    assert_true(resident);
    assert_int_equal(get_host_dlopen_count(k.ctx), host + 1);
    kfix_assert_golden(&k, &d, &v, 1);

    kbufs_free(&d);
    kfix_close(&k);
}

static void fault_teardown_failure_keeps_closing_and_retry_closes(void **state)
{
    static vadd_buffers v;
    platform_counter counter;
    kfix k;
    kbufs d;
    (void)state;
    open_counting(&k, &counter);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 1.0f);
    assert_int_equal(kfix_launch(&k, &d, 1), 0);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    platform_counter_fail_nth(&counter, PLATFORM_CALL_STREAM_DESTROY, 1, SIMDEV_ERROR_INVALID_PARAM);
    int rc = finalize_device(k.ctx);
    assert_int_not_equal(rc, 0);
    int runtime = 1, teardown_err = 0;
    assert_int_equal(simpler_kernel_mode_errors(k.ctx, &runtime, &teardown_err), 0);
    assert_int_equal(runtime, 0);
    assert_int_equal(teardown_err, rc);
    assert_int_equal(kernel_phase(k.ctx), KERNEL_PHASE_CLOSING);
    assert_int_equal(kfix_launch(&k, &d, 1), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, 1, image.bytes, image.size, k.stream),
                     PTO_RUNTIME_ERR_INVALID_STATE);
    destroy_device_context(k.ctx); /* refused: not Closed */
    assert_int_equal(kernel_phase(k.ctx), KERNEL_PHASE_CLOSING);
    uint64_t destroys = platform_counter_calls(&counter, PLATFORM_CALL_STREAM_DESTROY);
    assert_int_equal(finalize_device(k.ctx), 0);
    /* The retry destroyed only the stream that was left. */
    assert_int_equal(platform_counter_calls(&counter, PLATFORM_CALL_STREAM_DESTROY) - destroys, 1);
    assert_int_equal(kernel_phase(k.ctx), KERNEL_PHASE_CLOSED);
    assert_int_equal(simpler_kernel_mode_errors(k.ctx, &runtime, &teardown_err), 0);
    assert_int_equal(teardown_err, rc);
    destroy_device_context(k.ctx);
    kbufs_free(&d);
    assert_int_equal(simdev_stream_destroy(k.stream), SIMDEV_SUCCESS);
}

/* Device call k of a launch fails, k = 1, 2, ... until the launch
 * succeeds: the status-word peek (call 1) or the first enqueue (call 2)
 * failing changes nothing; any later one poisons the context (the error
 * kept), and close still works. */
static void fault_every_launch_enqueue_fails_in_turn(void **state)
{
    static vadd_buffers v;
    platform_counter counter;
    kbufs d;
    (void)state;
    SimplerKernelCtxControl c = small_configure(), f = kfix_freeze();
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 1.0f);
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        kfix kx;
        kx.ctx = create_device_context();
        assert_int_equal(context_set_platform_ops(kx.ctx, platform_ops_counting(platform_ops_simdev(), &counter)), 0);
        assert_int_equal(simdev_stream_create(&kx.stream), SIMDEV_SUCCESS);
        assert_int_equal(simpler_kernel_mode_ctx_control(kx.ctx, &c), 0);
        assert_int_equal(simpler_kernel_mode_init(kx.ctx, 0, NULL, 1), 0);
        assert_int_equal(simpler_kernel_mode_prepare_callable(kx.ctx, KFIX_ID, image.bytes, image.size, kx.stream), 0);
        assert_int_equal(simpler_kernel_mode_ctx_control(kx.ctx, &f), 0);
        platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, k, SIMDEV_ERROR_INVALID_PARAM);
        int rc = kfix_launch(&kx, &d, 1);
        platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, 0, 0);
        assert_reason_fits_status(rc);
        int runtime = 0;
        assert_int_equal(simpler_kernel_mode_errors(kx.ctx, &runtime, NULL), 0);
        if (rc == 0) {
            assert_true(k > 13);
            assert_int_equal(simdev_stream_synchronize(kx.stream), SIMDEV_SUCCESS);
            assert_int_equal(kbufs_check(&d, &v, 1), 0);
        } else if (k <= 2) {
            assert_int_equal(rc, PTO_RUNTIME_ERR_DEVICE);
            assert_int_equal(runtime, 0);
            assert_int_equal(kernel_phase(kx.ctx), KERNEL_PHASE_READY_ENQUEUED);
        } else {
            assert_int_equal(rc, PTO_RUNTIME_ERR_DEVICE);
            assert_int_equal(runtime, PTO_RUNTIME_ERR_DEVICE);
            assert_int_equal(kernel_phase(kx.ctx), KERNEL_PHASE_POISONED);
            assert_int_equal(kfix_launch(&kx, &d, 1), PTO_RUNTIME_ERR_INVALID_STATE);
        }
        (void)simdev_stream_synchronize(kx.stream);
        assert_int_equal(finalize_device(kx.ctx), 0);
        destroy_device_context(kx.ctx);
        assert_int_equal(simdev_stream_destroy(kx.stream), SIMDEV_SUCCESS);
        if (rc == 0) {
            kbufs_free(&d);
            return;
        }
    }
    fail_msg("simpler_kernel_mode_launch never succeeded");
}

static void fault_device_error_poisons_and_close_still_works(void **state)
{
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    kfix k;
    kbufs d;
    (void)state;
    kfix_open_plan(&k, &image, 3);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 1.0f);
    /* The host refuses a graph naming a kernel the callable lacks, so the
     * device's own check is reached by taking kernel 3 out of the frozen
     * kernel table behind the host's back: the device refuses. The
     * prepare's registration fills that table on the device, after the
     * caller stream's earlier work and asynchronously to the host, so the
     * stream is synchronized first: an edit made before the registration
     * ran would be overwritten by it. */
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    kernel_state *ks = kernel_state_of((simpler_context *)k.ctx);
    ks->slots[KFIX_ID]->table.entries[3].fn = NULL;
    vadd_args_make(&args, d.a, d.b, d.f, SIMPLER_ADDRESS_SPACE_DEVICE, 1, 0);
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &args, k.stream), 0);
    assert_int_not_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    int runtime = 0, teardown_err = 1;
    assert_int_equal(simpler_kernel_mode_errors(k.ctx, &runtime, &teardown_err), 0);
    assert_true(runtime >= SIMPLER_DEVICE_ERROR_MIN && runtime <= SIMPLER_DEVICE_ERROR_MAX);
    assert_int_equal(teardown_err, 0);
    assert_int_equal(kernel_phase(k.ctx), KERNEL_PHASE_POISONED);
    assert_int_equal(kfix_launch(&k, &d, 1), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(finalize_device(k.ctx), 0);
    destroy_device_context(k.ctx);
    kbufs_free(&d);
    assert_int_equal(simdev_stream_destroy(k.stream), SIMDEV_SUCCESS);
}

static void fault_stale_generation_refused_by_device_before_anything_written(void **state)
{
    static vadd_buffers v;
    simdev_graph_t captured = NULL;
    kfix k;
    kbufs d;
    (void)state;
    kfix_open_plan(&k, &image, SMALL_ROUNDS_MAX);
    kbufs_alloc(&d);
    captured = kfix_capture(&k, &d, 1);
    /* Re-preparing the id bumps its generation: the captured packet is stale. */
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, KFIX_ID, image.bytes, image.size, k.stream), 0);
    kbufs_upload(&d, &v, 1.0f);
    assert_int_equal(simdev_graph_launch(captured, k.stream), SIMDEV_SUCCESS);
    assert_int_not_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy(v.f, d.f, sizeof(v.f)), SIMDEV_SUCCESS);
    for (uint32_t i = 0; i < VADD_N; i++)
        assert_true(v.f[i] == -1.0f);
    int runtime = 0;
    assert_int_equal(simpler_kernel_mode_errors(k.ctx, &runtime, NULL), 0);
    assert_int_equal(runtime, KERNEL_PACKET_ERR_SLOT);
    assert_int_equal(simdev_graph_destroy(captured), SIMDEV_SUCCESS);
    assert_int_equal(finalize_device(k.ctx), 0);
    destroy_device_context(k.ctx);
    kbufs_free(&d);
    assert_int_equal(simdev_stream_destroy(k.stream), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(control_structural_rejections_record_nothing),
        cmocka_unit_test(control_configure_same_tuple_is_idempotent_different_refused),
        cmocka_unit_test(control_configure_after_init_refused),
        cmocka_unit_test(control_freeze_before_init_refused),
        cmocka_unit_test(control_freeze_without_kernel_configure_refused),
        cmocka_unit_test(control_freeze_only_once),
        cmocka_unit_test(identity_program_context_refuses_every_kernel_entry),
        cmocka_unit_test(identity_kernel_context_refuses_every_program_entry),
        cmocka_unit_test(identity_kernel_init_latches_again_after_finalize),
        cmocka_unit_test(identity_init_on_another_device_refused_nothing_created),
        cmocka_unit_test(identity_launch_before_freeze_and_after_close_refused),
        cmocka_unit_test(capacity_bigger_graph_refused_nothing_enqueued_context_usable),
        cmocka_unit_test(capacity_prepare_on_capturing_stream_refused),
        cmocka_unit_test(capacity_host_tensors_beyond_retained_temp_refused),
        cmocka_unit_test(capacity_host_tensors_staged_by_value_and_copied_back),
        cmocka_unit_test_teardown(stream_switch_refused_while_tail_pending_accepted_after, gate_open),
        cmocka_unit_test(fault_every_init_device_call_fails_in_turn_new_again),
        cmocka_unit_test(fault_every_init_host_allocation_fails_in_turn_new_again),
        cmocka_unit_test(fault_failed_registration_leaves_the_slot_as_it_was),
        cmocka_unit_test(fault_teardown_failure_keeps_closing_and_retry_closes),
        cmocka_unit_test(fault_every_launch_enqueue_fails_in_turn),
        cmocka_unit_test(fault_device_error_poisons_and_close_still_works),
        cmocka_unit_test(fault_stale_generation_refused_by_device_before_anything_written),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
