#define _GNU_SOURCE
/* Fault sweeps over the kernel-mode entries that test_kernel_lifecycle.c
 * and test_kernel_arg_slots.c do not sweep: write_args, launch_slot,
 * prepare_callable, trace_export, finalize_device, kernel_mode_errors,
 * and init with a trace buffer and argument slots. Each fails host
 * allocation k, or device call k through the counting platform table,
 * k = 1, 2, ... until the call runs with the fault left unfired, and
 * checks every failure: its documented status, a reason recorded (and
 * none left by a call that succeeded), the documented state after it,
 * that the call succeeds once the fault is gone, and that the device
 * holds no allocation more after close (ASan checks the host side).
 *
 * A reason missing (or left behind by a success) does not stop a sweep:
 * it is counted, printed, and fails the test at the end, so one sweep
 * reports every point that breaks the rule. */
#include "support.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/host_alloc.h"
#include "context/context.h"
#include "kernel/kernel_state.h"
#include "kernel_fixture.h"
#include "fault_sweep.h"
#include "text_file.h"
#include "reason_check.h"
#include "../program/image_fixture.h"
#include "platform/platform_counter.h"

#define ROUNDS 2u
#define SLOTS 2u
#define SLOT 1u
#define FRESH_ID 7
#define TRACE_PATH SIMPLER_BINARY_DIR "/tests/kernel_faults_trace.json"
#define TRACE_BEFORE "the file that was there\n"

static SimplerKernelCtxControl plan(void)
{
    return kfix_plan(&image, ROUNDS);
}

/* A ReadyEnqueued context over the counting table, KFIX_ID prepared,
 * device buffers with inputs of 1.0 and the output filled with -1. */
static void open_counting(kfix *k, sweep *s, const SimplerKernelCtxControl *c, kbufs *d, vadd_buffers *v)
{
    kfix_open_over(k, &image, c, platform_ops_counting(platform_ops_simdev(), &s->counter));
    kbufs_alloc(d);
    kbufs_upload(d, v, 1.0f);
    assert_int_equal(simdev_stream_synchronize(k->stream), SIMDEV_SUCCESS);
}

/* Closes a context that may have been poisoned (its stream faulted). */
static void close_any(kfix *k, kbufs *d, uint64_t base_live)
{
    (void)simdev_stream_synchronize(k->stream);
    assert_int_equal(finalize_device(k->ctx), 0);
    destroy_device_context(k->ctx);
    kbufs_free(d);
    assert_int_equal(simdev_stream_destroy(k->stream), SIMDEV_SUCCESS);
    assert_int_equal(sweep_live_allocations(), base_live);
}

static int launch_id(kfix *k, int32_t id, const kbufs *d, uint64_t rounds)
{
    ChipStorageTaskArgs args;
    vadd_args_make(&args, d->a, d->b, d->f, SIMPLER_ADDRESS_SPACE_DEVICE, rounds, 0);
    return simpler_kernel_mode_launch(k->ctx, id, &args, k->stream);
}

/* A launch of `id` computes the golden (the output reset first). */
static void assert_id_golden(kfix *k, int32_t id, const kbufs *d, vadd_buffers *v, uint64_t rounds)
{
    kbufs_upload(d, v, 1.0f);
    assert_int_equal(launch_id(k, id, d, rounds), 0);
    assert_int_equal(simdev_stream_synchronize(k->stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(d, v, rounds), 0);
}

static int runtime_error(kfix *k)
{
    int err = 0;
    assert_int_equal(simpler_kernel_mode_errors(k->ctx, &err, NULL), 0);
    return err;
}

/* ---- write_args ---- */

static SimplerKernelCtxControl slot_plan(void)
{
    SimplerKernelCtxControl c = plan();
    c.arg_slot_count = SLOTS;
    return c;
}

static int write_step(kfix *k, const kbufs *d, uint64_t rounds)
{
    ChipStorageTaskArgs args;
    vadd_args_make(&args, d->a, d->b, d->f, SIMPLER_ADDRESS_SPACE_DEVICE, rounds, 0);
    return simpler_kernel_mode_write_args(k->ctx, SLOT, KFIX_ID, &args, k->stream);
}

/* launch_slot of SLOT computes the golden of `rounds` (output reset). */
static void assert_slot_golden(kfix *k, const kbufs *d, vadd_buffers *v, uint64_t rounds)
{
    kbufs_upload(d, v, 1.0f);
    assert_int_equal(simpler_kernel_mode_launch_slot(k->ctx, SLOT, k->stream), 0);
    assert_int_equal(simdev_stream_synchronize(k->stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(d, v, rounds), 0);
}

/* The slot holds the packet of 1 round; write_args of 2 rounds fails at
 * fault k: -1007/-1008, the context still ReadyEnqueued with no error,
 * the slot still replays 1 round, and the retry stores 2 rounds. */
static void write_args_sweep(sweep *s)
{
    static vadd_buffers v;
    SimplerKernelCtxControl c = slot_plan();
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        uint64_t base_live = sweep_live_allocations();
        kfix kx;
        kbufs d;
        open_counting(&kx, s, &c, &d, &v);
        assert_int_equal(write_step(&kx, &d, 1), 0);
        assert_int_equal(simdev_stream_synchronize(kx.stream), SIMDEV_SUCCESS);
        sweep_arm(s, k);
        int rc = write_step(&kx, &d, 2);
        int fired = sweep_disarm(s);
        sweep_reason_check(s, "write_args", rc);
        if (rc != 0) {
            assert_true(fired);
            assert_true(sweep_failure_status(rc));
            assert_int_equal(kernel_phase(kx.ctx), KERNEL_PHASE_READY_ENQUEUED);
            assert_int_equal(runtime_error(&kx), 0);
            assert_slot_golden(&kx, &d, &v, 1); /* the slot kept its packet */
            assert_int_equal(write_step(&kx, &d, 2), 0);
        } else {
            assert_false(fired); /* a fault that fired is reported */
        }
        assert_slot_golden(&kx, &d, &v, 2);
        close_any(&kx, &d, base_live);
        if (!fired) {
            sweep_done(s, "simpler_kernel_mode_write_args", k);
            return;
        }
    }
    fail_msg("write_args never ran unfailed");
}

SWEEP_TEST(write_args_device_call_sweep, SWEEP_DEVICE_CALLS, write_args_sweep(&s))

/* It allocates nothing: the first host allocation armed never fires. */
SWEEP_TEST(write_args_host_allocation_sweep, SWEEP_HOST_ALLOCATIONS, write_args_sweep(&s))

/* ---- launch_slot ---- */

/* Fault k of a launch_slot: a failure before anything reached a stream
 * changes nothing (the retry runs the golden); one after part of the
 * chain was enqueued poisons the context (-1008 kept, launches refused),
 * and close still works. Once a point poisons, every later one does. */
static void launch_slot_sweep(sweep *s)
{
    static vadd_buffers v;
    SimplerKernelCtxControl c = slot_plan();
    int poisoned_seen = 0;
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        uint64_t base_live = sweep_live_allocations();
        kfix kx;
        kbufs d;
        open_counting(&kx, s, &c, &d, &v);
        assert_int_equal(write_step(&kx, &d, 2), 0);
        assert_int_equal(simdev_stream_synchronize(kx.stream), SIMDEV_SUCCESS);
        sweep_arm(s, k);
        int rc = simpler_kernel_mode_launch_slot(kx.ctx, SLOT, kx.stream);
        int fired = sweep_disarm(s);
        sweep_reason_check(s, "launch_slot", rc);
        if (rc != 0) {
            assert_true(fired);
            assert_true(sweep_failure_status(rc));
            if (kernel_phase(kx.ctx) == KERNEL_PHASE_READY_ENQUEUED) {
                assert_false(poisoned_seen);
                assert_int_equal(runtime_error(&kx), 0);
                assert_slot_golden(&kx, &d, &v, 2);
            } else {
                poisoned_seen = 1;
                assert_int_equal(kernel_phase(kx.ctx), KERNEL_PHASE_POISONED);
                assert_int_equal(runtime_error(&kx), rc);
                assert_int_equal(simpler_kernel_mode_launch_slot(kx.ctx, SLOT, kx.stream),
                                 PTO_RUNTIME_ERR_INVALID_STATE);
            }
        } else {
            assert_false(fired);
            assert_int_equal(simdev_stream_synchronize(kx.stream), SIMDEV_SUCCESS);
            assert_int_equal(kbufs_check(&d, &v, 2), 0);
        }
        close_any(&kx, &d, base_live);
        if (!fired) {
            assert_true(poisoned_seen);
            sweep_done(s, "simpler_kernel_mode_launch_slot", k);
            return;
        }
    }
    fail_msg("launch_slot never ran unfailed");
}

SWEEP_TEST(launch_slot_device_call_sweep, SWEEP_DEVICE_CALLS, launch_slot_sweep(&s))

/* ---- prepare_callable ---- */

static uint64_t slot_generation(DeviceContextHandle handle, int32_t id, int *resident)
{
    simpler_context *ctx = handle;
    *resident = ctx->residency.slots[id].callable != NULL;
    return ctx->residency.slots[id].generation;
}

/* prepare of `id` (KFIX_ID: replacing the resident callable; FRESH_ID:
 * an empty slot) fails at fault k. Before the registration was enqueued
 * the slot is as it was (callable, generation, dlopen counts, files);
 * after it (only the event record or the caller's wait failed) the new
 * callable is installed, as documented. Either way the slot's callable
 * runs, and the retry installs the next generation. */
static void prepare_sweep(sweep *s, int32_t id)
{
    static vadd_buffers v;
    SimplerKernelCtxControl c = plan();
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        uint64_t base_live = sweep_live_allocations();
        kfix kx;
        kbufs d;
        int resident0 = 0, resident = 0;
        open_counting(&kx, s, &c, &d, &v);
        uint64_t gen0 = slot_generation(kx.ctx, id, &resident0);
        size_t host0 = get_host_dlopen_count(kx.ctx), aicpu0 = get_aicpu_dlopen_count(kx.ctx);
        int fds0 = sweep_open_fds();
        uint64_t records0 = platform_counter_calls(&s->counter, PLATFORM_CALL_EVENT_RECORD);
        sweep_arm(s, k);
        int rc = simpler_kernel_mode_prepare_callable(kx.ctx, id, image.bytes, image.size, kx.stream);
        int fired = sweep_disarm(s);
        sweep_reason_check(s, "prepare_callable", rc);
        uint64_t gen = slot_generation(kx.ctx, id, &resident);
        if (rc != 0) {
            assert_true(fired);
            assert_true(sweep_failure_status(rc));
            assert_int_equal(kernel_phase(kx.ctx), KERNEL_PHASE_READY_ENQUEUED);
            int enqueued = platform_counter_calls(&s->counter, PLATFORM_CALL_EVENT_RECORD) > records0;
            if (enqueued) {
                assert_int_equal(s->kind, FAULT_DEVICE);
                assert_int_equal(gen, gen0 + 1);
                assert_true(resident);
                assert_int_equal(get_host_dlopen_count(kx.ctx), host0 + 1);
            } else {
                assert_int_equal(gen, gen0);
                assert_int_equal(resident, resident0);
                assert_int_equal(get_host_dlopen_count(kx.ctx), host0);
                assert_int_equal(get_aicpu_dlopen_count(kx.ctx), aicpu0);
                assert_int_equal(sweep_open_fds(), fds0);
            }
            if (resident)
                assert_id_golden(&kx, id, &d, &v, ROUNDS);
            assert_int_equal(simpler_kernel_mode_prepare_callable(kx.ctx, id, image.bytes, image.size, kx.stream),
                             0);
            assert_int_equal(slot_generation(kx.ctx, id, &resident), gen + 1);
        } else {
            assert_false(fired);
            assert_int_equal(gen, gen0 + 1);
        }
        assert_true(resident);
        assert_id_golden(&kx, id, &d, &v, ROUNDS);
        close_any(&kx, &d, base_live);
        if (!fired) {
            sweep_done(s, id == KFIX_ID ? "prepare_callable (replacing)" : "prepare_callable (empty slot)", k);
            return;
        }
    }
    fail_msg("prepare_callable never ran unfailed");
}

SWEEP_TEST(prepare_replacing_host_allocation_sweep, SWEEP_HOST_ALLOCATIONS, prepare_sweep(&s, KFIX_ID))

SWEEP_TEST(prepare_replacing_device_call_sweep, SWEEP_DEVICE_CALLS, prepare_sweep(&s, KFIX_ID))

SWEEP_TEST(prepare_empty_slot_host_allocation_sweep, SWEEP_HOST_ALLOCATIONS, prepare_sweep(&s, FRESH_ID))

SWEEP_TEST(prepare_empty_slot_device_call_sweep, SWEEP_DEVICE_CALLS, prepare_sweep(&s, FRESH_ID))

/* ---- trace_export ---- */

/* The text of `path` (a buffer of the file's). */
static char *file_get(const char *path)
{
    static char text[1u << 20];
    char *t = text_file_read(path, text, sizeof text);
    assert_non_null(t);
    return t;
}

/* A traced context that ran ROUNDS; an existing file at the path. The
 * export failing at fault k: -1007/-1008, the file keeps its bytes, no
 * partial file, the context as it was; the retry writes every task. */
static void trace_export_sweep(sweep *s)
{
    static vadd_buffers v;
    SimplerKernelCtxControl c = plan();
    c.trace_records = (uint32_t)kfix_task_count(&image, ROUNDS);
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        uint64_t base_live = sweep_live_allocations();
        kfix kx;
        kbufs d;
        open_counting(&kx, s, &c, &d, &v);
        assert_id_golden(&kx, KFIX_ID, &d, &v, ROUNDS);
        assert_int_equal(text_file_write(TRACE_PATH, TRACE_BEFORE), 0);
        sweep_arm(s, k);
        int rc = simpler_kernel_mode_trace_export(kx.ctx, TRACE_PATH);
        int fired = sweep_disarm(s);
        sweep_reason_check(s, "trace_export", rc);
        if (rc != 0) {
            assert_true(fired);
            assert_true(sweep_failure_status(rc));
            assert_string_equal(file_get(TRACE_PATH), TRACE_BEFORE);
            assert_int_equal(sweep_test_files_named("kernel_faults_trace.json.partial."), 0);
            assert_int_equal(kernel_phase(kx.ctx), KERNEL_PHASE_READY_ENQUEUED);
            assert_int_equal(simpler_kernel_mode_trace_export(kx.ctx, TRACE_PATH), 0);
        } else {
            assert_false(fired);
        }
        assert_int_equal(text_count(file_get(TRACE_PATH), "\"cat\":\"task\""), (int)kfix_task_count(&image, ROUNDS));
        close_any(&kx, &d, base_live);
        if (!fired) {
            remove(TRACE_PATH);
            sweep_done(s, "simpler_kernel_mode_trace_export", k);
            return;
        }
    }
    fail_msg("trace_export never ran unfailed");
}

SWEEP_TEST(trace_export_host_allocation_sweep, SWEEP_HOST_ALLOCATIONS, trace_export_sweep(&s))

SWEEP_TEST(trace_export_device_call_sweep, SWEEP_DEVICE_CALLS, trace_export_sweep(&s))

/* ---- finalize_device and kernel_mode_errors ---- */

/* finalize_device of a context that ran, failing at device call k: the
 * release error kept as the teardown error, Closing (launches refused,
 * destroy refused), and a retry closes; a call that returns 0 leaves no
 * reason. The device holds nothing more once closed. */
static void finalize_sweep(sweep *s)
{
    static vadd_buffers v;
    SimplerKernelCtxControl c = plan();
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        uint64_t base_live = sweep_live_allocations();
        kfix kx;
        kbufs d;
        open_counting(&kx, s, &c, &d, &v);
        assert_id_golden(&kx, KFIX_ID, &d, &v, ROUNDS);
        sweep_arm(s, k);
        int rc = finalize_device(kx.ctx);
        int fired = sweep_disarm(s);
        sweep_reason_check(s, "finalize_device (kernel)", rc);
        if (rc != 0) {
            int runtime = 1, teardown = 0;
            assert_true(fired);
            assert_true(sweep_failure_status(rc));
            assert_int_equal(kernel_phase(kx.ctx), KERNEL_PHASE_CLOSING);
            assert_int_equal(simpler_kernel_mode_errors(kx.ctx, &runtime, &teardown), 0);
            assert_int_equal(teardown, rc);
            assert_int_equal(launch_id(&kx, KFIX_ID, &d, 1), PTO_RUNTIME_ERR_INVALID_STATE);
            destroy_device_context(kx.ctx); /* refused: not Closed */
            assert_int_equal(kernel_phase(kx.ctx), KERNEL_PHASE_CLOSING);
            assert_int_equal(finalize_device(kx.ctx), 0);
        }
        assert_int_equal(kernel_phase(kx.ctx), KERNEL_PHASE_CLOSED);
        assert_int_equal(finalize_device(kx.ctx), PTO_RUNTIME_ERR_INVALID_STATE);
        destroy_device_context(kx.ctx);
        kbufs_free(&d);
        assert_int_equal(simdev_stream_destroy(kx.stream), SIMDEV_SUCCESS);
        assert_int_equal(sweep_live_allocations(), base_live);
        if (!fired) {
            sweep_done(s, "finalize_device (kernel mode)", k);
            return;
        }
    }
    fail_msg("finalize_device never ran unfailed");
}

SWEEP_TEST(finalize_kernel_device_call_sweep, SWEEP_DEVICE_CALLS, finalize_sweep(&s))

/* simpler_kernel_mode_errors reads the status word (mem_peek) and
 * documents no device status: it returns 0 whatever the read did, and
 * so must leave no reason. */
static void errors_device_call_sweep(void **state)
{
    static vadd_buffers v;
    sweep s = {.kind = FAULT_DEVICE, .code = SIMDEV_ERROR_INVALID_PARAM};
    SimplerKernelCtxControl c = plan();
    kfix kx;
    kbufs d;
    (void)state;
    uint64_t base_live = sweep_live_allocations();
    open_counting(&kx, &s, &c, &d, &v);
    assert_id_golden(&kx, KFIX_ID, &d, &v, ROUNDS);
    uint64_t k = 1;
    for (; k < SWEEP_LIMIT; k++) {
        int runtime = 1, teardown = 1;
        sweep_arm(&s, k);
        int rc = simpler_kernel_mode_errors(kx.ctx, &runtime, &teardown);
        int fired = sweep_disarm(&s);
        sweep_reason_check(&s, "simpler_kernel_mode_errors", rc);
        assert_int_equal(rc, 0);
        assert_int_equal(runtime, 0);
        assert_int_equal(teardown, 0);
        assert_int_equal(kernel_phase(kx.ctx), KERNEL_PHASE_READY_ENQUEUED);
        if (!fired)
            break;
    }
    assert_id_golden(&kx, KFIX_ID, &d, &v, ROUNDS);
    close_any(&kx, &d, base_live);
    sweep_done(&s, "simpler_kernel_mode_errors", k);
}

/* ---- init with a trace buffer and argument slots ---- */

static void assert_new_again(DeviceContextHandle handle)
{
    simpler_context *ctx = handle;
    assert_null(ctx->mode);
    assert_null(ctx->mode_state);
    assert_false(context_holds_resources(ctx));
    for (int i = 0; i < CONTEXT_STREAM_COUNT; i++)
        assert_null(ctx->streams[i]);
    for (int i = 0; i < CONTEXT_EVENT_COUNT; i++)
        assert_null(ctx->events[i]);
    assert_null(ctx->scratch);
    assert_null(ctx->trace.base);
    assert_null(ctx->arg_slots.base);
    assert_int_equal(committed_device_memory_ctx(ctx), 0);
}

/* The lifecycle sweeps cover init without a trace buffer (host and
 * device) and with slots (device, no reason check); this one commits
 * both, so every allocation and device call of init is reached. */
static void init_traced_slots_sweep(sweep *s)
{
    SimplerKernelCtxControl c = slot_plan();
    c.trace_records = (uint32_t)kfix_task_count(&image, ROUNDS);
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        uint64_t base_live = sweep_live_allocations();
        DeviceContextHandle ctx = create_device_context();
        assert_non_null(ctx);
        assert_int_equal(context_set_platform_ops(ctx, platform_ops_counting(platform_ops_simdev(), &s->counter)), 0);
        assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &c), 0);
        sweep_arm(s, k);
        int rc = simpler_kernel_mode_init(ctx, 0, NULL, 1);
        int fired = sweep_disarm(s);
        sweep_reason_check(s, "kernel_mode_init (trace + slots)", rc);
        if (rc != 0) {
            assert_true(fired);
            assert_true(sweep_failure_status(rc));
            assert_new_again(ctx);
            assert_int_equal(sweep_live_allocations(), base_live);
            assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
        } else {
            assert_false(fired);
        }
        assert_non_null(((simpler_context *)ctx)->trace.base);
        assert_non_null(((simpler_context *)ctx)->arg_slots.base);
        assert_int_equal(finalize_device(ctx), 0);
        destroy_device_context(ctx);
        assert_int_equal(sweep_live_allocations(), base_live);
        if (!fired) {
            sweep_done(s, "simpler_kernel_mode_init (trace + slots)", k);
            return;
        }
    }
    fail_msg("simpler_kernel_mode_init never ran unfailed");
}

SWEEP_TEST(init_traced_slots_host_allocation_sweep, SWEEP_HOST_ALLOCATIONS, init_traced_slots_sweep(&s))

SWEEP_TEST(init_traced_slots_device_call_sweep, SWEEP_DEVICE_CALLS, init_traced_slots_sweep(&s))

SWEEP_TEST(init_traced_slots_device_allocation_sweep, SWEEP_DEVICE_ALLOCATIONS, init_traced_slots_sweep(&s))

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(write_args_device_call_sweep),
        cmocka_unit_test(write_args_host_allocation_sweep),
        cmocka_unit_test(launch_slot_device_call_sweep),
        cmocka_unit_test(prepare_replacing_host_allocation_sweep),
        cmocka_unit_test(prepare_replacing_device_call_sweep),
        cmocka_unit_test(prepare_empty_slot_host_allocation_sweep),
        cmocka_unit_test(prepare_empty_slot_device_call_sweep),
        cmocka_unit_test(trace_export_host_allocation_sweep),
        cmocka_unit_test(trace_export_device_call_sweep),
        cmocka_unit_test(finalize_kernel_device_call_sweep),
        cmocka_unit_test(errors_device_call_sweep),
        cmocka_unit_test(init_traced_slots_host_allocation_sweep),
        cmocka_unit_test(init_traced_slots_device_call_sweep),
        cmocka_unit_test(init_traced_slots_device_allocation_sweep),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
