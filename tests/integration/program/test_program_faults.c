/* Fault sweeps over simpler_init and simpler_run: fail host allocation k,
 * device allocation k and device call k = 1, 2, ... in turn until the
 * operation succeeds. Every failure returns its documented status, leaves
 * nothing created (init) or the context usable (run: the next run
 * succeeds with the right results), and ASan runs check for leaks.
 * Below them, sweeps of simpler_register_callable, of simpler_run with
 * tracing on and of simpler_run_times, which also check the refusal
 * reason of every point. */
#include "support.h"

#include <dirent.h>

#include "common/host_alloc.h"
#include "context/context.h"
#include "program/program.h"
#include "platform/platform_counter.h"
#include "program_fixture.h"
#include "image_fixture.h"
#include "fault_sweep.h"
#include "text_file.h"
#include "reason_check.h"


/* A context on which simpler_init failed holds nothing. */
static void assert_nothing_created(DeviceContextHandle handle)
{
    simpler_context *ctx = handle;
    assert_false(program_initialized(ctx));
    for (int s = 0; s < CONTEXT_STREAM_COUNT; s++)
        assert_null(ctx->streams[s]);
    for (int e = 0; e < CONTEXT_EVENT_COUNT; e++)
        assert_null(ctx->events[e]);
    assert_null(ctx->scratch);
    assert_null(ctx->residency.slots);
    assert_int_equal(committed_device_memory_ctx(ctx), 0);
}

static DeviceContextHandle context_over(sweep *s)
{
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    assert_int_equal(context_set_platform_ops(ctx, platform_ops_counting(platform_ops_simdev(), &s->counter)), 0);
    return ctx;
}

static void init_sweep(sweep *s)
{
    uint64_t base_live = sweep_live_allocations();
    CallConfig prewarm;
    simpler_call_config_default(&prewarm);
    prewarm.heap_bytes = 16 * 1024;
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        DeviceContextHandle ctx = context_over(s);
        sweep_arm(s, k);
        int rc = simpler_init(ctx, 0, &prewarm);
        sweep_disarm(s);
        assert_reason_fits_status(rc);
        if (rc == 0) {
            assert_int_equal(finalize_device(ctx), 0);
            destroy_device_context(ctx);
            assert_int_equal(sweep_live_allocations(), base_live);
            assert_true(k > 1); /* the sweep failed something first */
            return;
        }
        assert_true(sweep_failure_status(rc));
        assert_nothing_created(ctx);
        assert_int_equal(sweep_live_allocations(), base_live);
        /* The failed init left the context reusable. */
        assert_int_equal(simpler_init(ctx, 0, &prewarm), 0);
        assert_int_equal(finalize_device(ctx), 0);
        destroy_device_context(ctx);
    }
    fail_msg("simpler_init never succeeded");
}

SWEEP_TEST(program_init_host_allocation_sweep, SWEEP_HOST_ALLOCATIONS, init_sweep(&s))

SWEEP_TEST(program_init_device_call_sweep, SWEEP_DEVICE_CALLS, init_sweep(&s))

SWEEP_TEST(program_init_device_allocation_sweep, SWEEP_DEVICE_ALLOCATIONS, init_sweep(&s))

/* One fresh context per k: a small first run, then the armed run of
 * `rounds` (bigger, so it grows the bank), then an unarmed retry. */
static void run_sweep(sweep *s, uint64_t rounds)
{
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        DeviceContextHandle ctx = context_over(s);
        assert_int_equal(simpler_init(ctx, 0, NULL), 0);
        assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
        vadd_buffers_fill(&v, 1.0f);
        vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
        assert_int_equal(simpler_run(ctx, 0, &args, NULL), 0);
        vadd_buffers_fill(&v, 2.0f);
        vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, rounds, 0);
        sweep_arm(s, k);
        int rc = simpler_run(ctx, 0, &args, NULL);
        sweep_disarm(s);
        assert_reason_fits_status(rc);
        if (rc != 0) {
            assert_true(sweep_failure_status(rc));
            vadd_buffers_fill(&v, 3.0f);
            assert_int_equal(simpler_run(ctx, 0, &args, NULL), 0);
        }
        assert_int_equal(vadd_check(&v, rounds), 0);
        assert_int_equal(finalize_device(ctx), 0);
        destroy_device_context(ctx);
        if (rc == 0) {
            assert_true(k > 1);
            print_message("simpler_run sweep: %llu injection points\n", (unsigned long long)(k - 1));
            return;
        }
    }
    fail_msg("simpler_run never succeeded");
}

SWEEP_TEST(program_run_host_allocation_sweep, SWEEP_HOST_ALLOCATIONS, run_sweep(&s, 300))

SWEEP_TEST(program_run_device_call_sweep, SWEEP_DEVICE_CALLS, run_sweep(&s, 300))

SWEEP_TEST(program_run_device_allocation_sweep, SWEEP_DEVICE_ALLOCATIONS, run_sweep(&s, 300))

static void program_run_device_failure_keeps_the_device_code(void **state)
{
    sweep s = {.kind = FAULT_DEVICE, .call = PLATFORM_CALL_STREAMS_SYNCHRONIZE, .code = SIMDEV_ERROR_KERNEL_FAULT};
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    (void)state;
    DeviceContextHandle ctx = context_over(&s);
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 2, 0);
    assert_int_equal(context_last_device_error(ctx), 0);
    sweep_arm(&s, 1);
    assert_int_equal(simpler_run(ctx, 0, &args, NULL), PTO_RUNTIME_ERR_DEVICE);
    sweep_disarm(&s);
    assert_non_null(strstr(simpler_last_error_message(), "SIMDEV_ERROR"));
    assert_int_equal(context_last_device_error(ctx), SIMDEV_ERROR_KERNEL_FAULT);
    assert_int_equal(simpler_run(ctx, 0, &args, NULL), 0);
    assert_int_equal(vadd_check(&v, 2), 0);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

static void program_finalize_failure_is_retried_to_completion(void **state)
{
    sweep s = {.kind = FAULT_DEVICE, .call = PLATFORM_CALL_ANY, .code = SIMDEV_ERROR_INVALID_PARAM};
    (void)state;
    uint64_t base_live = sweep_live_allocations();
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        DeviceContextHandle ctx = context_over(&s);
        assert_int_equal(simpler_init(ctx, 0, NULL), 0);
        assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
        sweep_arm(&s, k);
        int rc = finalize_device(ctx);
        sweep_disarm(&s);
        assert_reason_fits_status(rc);
        if (rc != 0) {
            assert_int_equal(rc, PTO_RUNTIME_ERR_DEVICE);
            assert_int_equal(finalize_device(ctx), 0);
        }
        assert_int_equal(finalize_device(ctx), PTO_RUNTIME_ERR_INVALID_STATE);
        destroy_device_context(ctx);
        assert_int_equal(sweep_live_allocations(), base_live);
        if (rc == 0) {
            assert_true(k > 1);
            return;
        }
    }
    fail_msg("finalize_device never succeeded");
}

/* ---- register_callable, run with tracing, run_times ---- */

/* simpler_register_callable into an empty slot, failing at fault k:
 * -1007 (it calls no device: a device sweep fires nothing), a reason,
 * the slot still empty with its dlopen counts and open files as before;
 * the retry registers and the callable runs. */
static void register_sweep(sweep *s)
{
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    uint64_t base_live = sweep_live_allocations();
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        DeviceContextHandle ctx = context_over(s);
        assert_int_equal(simpler_init(ctx, 0, NULL), 0);
        size_t host0 = get_host_dlopen_count(ctx), aicpu0 = get_aicpu_dlopen_count(ctx);
        int fds0 = sweep_open_fds();
        sweep_arm(s, k);
        int rc = simpler_register_callable(ctx, 0, image.bytes, image.size);
        int fired = sweep_disarm(s);
        sweep_reason_check(s, "simpler_register_callable", rc);
        if (rc != 0) {
            assert_true(fired);
            assert_int_equal(rc, PTO_RUNTIME_ERR_OUT_OF_MEMORY);
            assert_int_equal(simpler_unregister_callable(ctx, 0), PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT);
            assert_int_equal(get_host_dlopen_count(ctx), host0);
            assert_int_equal(get_aicpu_dlopen_count(ctx), aicpu0);
            assert_int_equal(sweep_open_fds(), fds0);
            assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
        } else {
            assert_false(fired);
        }
        vadd_buffers_fill(&v, 1.0f);
        vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 2, 0);
        assert_int_equal(simpler_run(ctx, 0, &args, NULL), 0);
        assert_int_equal(vadd_check(&v, 2), 0);
        assert_int_equal(finalize_device(ctx), 0);
        destroy_device_context(ctx);
        assert_int_equal(sweep_live_allocations(), base_live);
        if (!fired) {
            print_message("simpler_register_callable sweep: %llu injection points\n", (unsigned long long)(k - 1));
            assert_int_equal(s->defects, 0);
            return;
        }
    }
    fail_msg("simpler_register_callable never ran unfailed");
}

SWEEP_TEST(program_register_host_allocation_sweep, SWEEP_HOST_ALLOCATIONS, register_sweep(&s))

SWEEP_TEST(program_register_device_call_sweep, SWEEP_DEVICE_CALLS, register_sweep(&s))

#define TRACE_PREFIX SIMPLER_BINARY_DIR "/tests/program_faults_"
#define TRACE_FILE TRACE_PREFIX "trace.json"

/* The task events of the run's trace file, or -1 when there is none. */
static int trace_task_events(void)
{
    static char text[1u << 20];
    const char *t = text_file_read(TRACE_FILE, text, sizeof text);
    return t != NULL ? text_count(t, "\"cat\":\"task\"") : -1;
}

/* simpler_run with CallConfig.trace on, the armed run the first traced
 * one of a fresh context (so the trace buffer is committed in it), of
 * `rounds`: every failure -1007/-1008 with a reason, no partial trace
 * file, and the retry runs right and writes one event per task. */
static void traced_run_sweep(sweep *s, uint64_t rounds)
{
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    CallConfig config;
    assert_int_equal(simpler_call_config_default(&config), 0);
    config.trace = 1;
    snprintf(config.output_prefix, sizeof(config.output_prefix), "%s", TRACE_PREFIX);
    uint64_t base_live = sweep_live_allocations();
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        DeviceContextHandle ctx = context_over(s);
        assert_int_equal(simpler_init(ctx, 0, NULL), 0);
        assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
        vadd_buffers_fill(&v, 1.0f);
        vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
        assert_int_equal(simpler_run(ctx, 0, &args, NULL), 0);
        remove(TRACE_FILE);
        vadd_buffers_fill(&v, 2.0f);
        vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, rounds, 0);
        sweep_arm(s, k);
        int rc = simpler_run(ctx, 0, &args, &config);
        int fired = sweep_disarm(s);
        sweep_reason_check(s, "simpler_run (trace on)", rc);
        if (rc != 0) {
            assert_true(fired);
            assert_true(sweep_failure_status(rc));
            assert_int_equal(sweep_test_files_named("program_faults_trace.json.partial."), 0);
            vadd_buffers_fill(&v, 3.0f);
            assert_int_equal(simpler_run(ctx, 0, &args, &config), 0);
        } else {
            assert_false(fired);
        }
        assert_int_equal(vadd_check(&v, rounds), 0);
        assert_int_equal(trace_task_events(), (int)rounds + 2);
        assert_int_equal(finalize_device(ctx), 0);
        destroy_device_context(ctx);
        assert_int_equal(sweep_live_allocations(), base_live);
        if (!fired) {
            remove(TRACE_FILE);
            print_message("simpler_run (trace on) sweep: %llu injection points\n", (unsigned long long)(k - 1));
            assert_int_equal(s->defects, 0);
            return;
        }
    }
    fail_msg("simpler_run (trace on) never ran unfailed");
}

SWEEP_TEST(program_traced_run_host_allocation_sweep, SWEEP_HOST_ALLOCATIONS, traced_run_sweep(&s, 4))

SWEEP_TEST(program_traced_run_device_call_sweep, SWEEP_DEVICE_CALLS, traced_run_sweep(&s, 4))

SWEEP_TEST(program_traced_run_device_allocation_sweep, SWEEP_DEVICE_ALLOCATIONS, traced_run_sweep(&s, 4))

/* simpler_run_times after a run, failing at device call k (the device
 * selection included, which test_program_run's memcpy sweep does not
 * reach): a device status with a reason, *out untouched, and the same
 * times once the device answers. */
static void program_run_times_device_call_sweep(void **state)
{
    static vadd_buffers v;
    sweep s = {.kind = FAULT_DEVICE, .call = PLATFORM_CALL_ANY, .code = SIMDEV_ERROR_INVALID_PARAM};
    ChipStorageTaskArgs args;
    SimplerRunTimes kept, t;
    (void)state;
    DeviceContextHandle ctx = context_over(&s);
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 2, 0);
    assert_int_equal(simpler_run(ctx, 0, &args, NULL), 0);
    memset(&kept, 0, sizeof(kept));
    kept.struct_size = sizeof(kept);
    assert_int_equal(simpler_run_times(ctx, &kept), 0);
    uint64_t k = 1;
    for (; k < SWEEP_LIMIT; k++) {
        memset(&t, 0x5a, sizeof(t));
        t.struct_size = sizeof(t);
        SimplerRunTimes before = t;
        sweep_arm(&s, k);
        int rc = simpler_run_times(ctx, &t);
        int fired = sweep_disarm(&s);
        sweep_reason_check(&s, "simpler_run_times", rc);
        if (!fired) {
            assert_int_equal(rc, 0);
            assert_memory_equal(&t, &kept, sizeof(t));
            break;
        }
        assert_int_equal(rc, PTO_RUNTIME_ERR_DEVICE);
        assert_memory_equal(&t, &before, sizeof(t));
        assert_int_equal(context_last_device_error(ctx), SIMDEV_ERROR_INVALID_PARAM);
    }
    assert_true(k > 1);
    print_message("simpler_run_times sweep: %llu injection points\n", (unsigned long long)(k - 1));
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
    assert_int_equal(s.defects, 0);
}

/* The memory helpers over the counting table, device call k failing in
 * turn (the device selection, then the allocation or the copy):
 * device_malloc_ctx returns NULL with a reason and allocates nothing;
 * a copy returns the device status with a reason and writes nothing;
 * each works once the fault is gone. */
#define HELPER_WORDS 64u

static void program_memory_helpers_device_call_sweep(void **state)
{
    sweep s = {.kind = FAULT_DEVICE, .call = PLATFORM_CALL_ANY, .code = SIMDEV_ERROR_INVALID_PARAM};
    uint32_t src[HELPER_WORDS], dst[HELPER_WORDS];
    uint64_t points[3] = {0, 0, 0};
    (void)state;
    DeviceContextHandle ctx = context_over(&s);
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    uint64_t base_live = sweep_live_allocations();
    for (int entry = 0; entry < 3; entry++) {
        static const char *const names[] = {"device_malloc_ctx", "copy_to_device_ctx", "copy_from_device_ctx"};
        const char *name = names[entry];
        for (uint64_t k = 1;; k++) {
            assert_true(k < SWEEP_LIMIT);
            void *dev = NULL;
            if (entry != 0) {
                dev = device_malloc_ctx(ctx, sizeof(src));
                assert_non_null(dev);
                memset(src, 0x11, sizeof(src));
                assert_int_equal(copy_to_device_ctx(ctx, dev, src, sizeof(src)), 0);
                memset(src, 0x22, sizeof(src));
                memset(dst, 0x33, sizeof(dst));
            }
            int rc;
            sweep_arm(&s, k);
            if (entry == 0) {
                dev = device_malloc_ctx(ctx, sizeof(src));
                rc = dev != NULL ? 0 : -1;
            } else if (entry == 1) {
                rc = copy_to_device_ctx(ctx, dev, src, sizeof(src));
            } else {
                rc = copy_from_device_ctx(ctx, dst, dev, sizeof(dst));
            }
            int fired = sweep_disarm(&s);
            sweep_reason_check(&s, name, rc);
            uint32_t word = 0;
            if (fired) {
                assert_int_not_equal(rc, 0);
                if (entry == 0) {
                    assert_int_equal(sweep_live_allocations(), base_live); /* nothing allocated */
                } else {
                    assert_int_equal(rc, PTO_RUNTIME_ERR_DEVICE);
                    assert_int_equal(copy_from_device_ctx(ctx, &word, dev, sizeof(word)), 0);
                    assert_int_equal(word, 0x11111111u); /* the device kept its bytes */
                    if (entry == 2)
                        assert_int_equal(dst[0], 0x33333333u); /* nothing written */
                }
            } else {
                assert_int_equal(rc, 0);
                if (entry == 1) {
                    assert_int_equal(copy_from_device_ctx(ctx, &word, dev, sizeof(word)), 0);
                    assert_int_equal(word, 0x22222222u);
                } else if (entry == 2) {
                    assert_int_equal(dst[HELPER_WORDS - 1], 0x11111111u);
                }
            }
            if (dev != NULL)
                device_free_ctx(ctx, dev);
            assert_int_equal(sweep_live_allocations(), base_live);
            if (!fired) {
                points[entry] = k - 1;
                break;
            }
        }
        assert_true(points[entry] > 0);
        print_message("%s sweep: %llu injection points\n", name, (unsigned long long)points[entry]);
    }
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
    assert_int_equal(s.defects, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(program_init_host_allocation_sweep),
        cmocka_unit_test(program_init_device_call_sweep),
        cmocka_unit_test(program_init_device_allocation_sweep),
        cmocka_unit_test(program_run_host_allocation_sweep),
        cmocka_unit_test(program_run_device_call_sweep),
        cmocka_unit_test(program_run_device_allocation_sweep),
        cmocka_unit_test(program_run_device_failure_keeps_the_device_code),
        cmocka_unit_test(program_finalize_failure_is_retried_to_completion),
        cmocka_unit_test(program_register_host_allocation_sweep),
        cmocka_unit_test(program_register_device_call_sweep),
        cmocka_unit_test(program_traced_run_host_allocation_sweep),
        cmocka_unit_test(program_traced_run_device_call_sweep),
        cmocka_unit_test(program_traced_run_device_allocation_sweep),
        cmocka_unit_test(program_run_times_device_call_sweep),
        cmocka_unit_test(program_memory_helpers_device_call_sweep),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
