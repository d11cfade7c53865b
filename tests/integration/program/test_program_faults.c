/* Fault sweeps over simpler_init and simpler_run: fail host allocation k,
 * device allocation k and device call k = 1, 2, ... in turn until the
 * operation succeeds. Every failure returns its documented status, leaves
 * nothing created (init) or the context usable (run: the next run
 * succeeds with the right results), and ASan runs check for leaks. */
#include "support.h"

#include "common/host_alloc.h"
#include "context/context.h"
#include "program/program.h"
#include "platform/platform_counter.h"
#include "program_fixture.h"
#include "image_fixture.h"
#include "reason_check.h"

/* Far more than any sweep needs; a sweep that reaches it is a bug. */
#define SWEEP_LIMIT 400u

static uint64_t live_allocations(void)
{
    simdev_mem_info info;
    assert_int_equal(simdev_get_mem_info(0, &info), SIMDEV_SUCCESS);
    return info.live_allocations;
}

static int is_failure_status(int rc)
{
    return rc == PTO_RUNTIME_ERR_OUT_OF_MEMORY || rc == PTO_RUNTIME_ERR_DEVICE;
}

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

/* Arms fault k: a host allocation, or device call k of `call` through
 * the counting table. */
typedef enum { FAULT_HOST, FAULT_DEVICE } fault_kind;

typedef struct sweep {
    fault_kind kind;
    int call;  /* PLATFORM_CALL_* for FAULT_DEVICE */
    int code;  /* device code injected */
    platform_counter counter;
} sweep;

static void arm(sweep *s, uint64_t k)
{
    if (s->kind == FAULT_HOST)
        host_alloc_fail_nth(k);
    else
        platform_counter_fail_nth(&s->counter, s->call, k, s->code);
}

static void disarm(sweep *s)
{
    host_alloc_fail_nth(0);
    platform_counter_fail_nth(&s->counter, PLATFORM_CALL_ANY, 0, 0);
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
    uint64_t base_live = live_allocations();
    CallConfig prewarm;
    simpler_call_config_default(&prewarm);
    prewarm.heap_bytes = 16 * 1024;
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        DeviceContextHandle ctx = context_over(s);
        arm(s, k);
        int rc = simpler_init(ctx, 0, &prewarm);
        disarm(s);
        assert_reason_fits_status(rc);
        if (rc == 0) {
            assert_int_equal(finalize_device(ctx), 0);
            destroy_device_context(ctx);
            assert_int_equal(live_allocations(), base_live);
            assert_true(k > 1); /* the sweep failed something first */
            return;
        }
        assert_true(is_failure_status(rc));
        assert_nothing_created(ctx);
        assert_int_equal(live_allocations(), base_live);
        /* The failed init left the context reusable. */
        assert_int_equal(simpler_init(ctx, 0, &prewarm), 0);
        assert_int_equal(finalize_device(ctx), 0);
        destroy_device_context(ctx);
    }
    fail_msg("simpler_init never succeeded");
}

static void program_init_host_allocation_sweep(void **state)
{
    sweep s = {.kind = FAULT_HOST};
    (void)state;
    init_sweep(&s);
}

static void program_init_device_call_sweep(void **state)
{
    sweep s = {.kind = FAULT_DEVICE, .call = PLATFORM_CALL_ANY, .code = SIMDEV_ERROR_INVALID_PARAM};
    (void)state;
    init_sweep(&s);
}

static void program_init_device_allocation_sweep(void **state)
{
    sweep s = {.kind = FAULT_DEVICE, .call = PLATFORM_CALL_MEM_ALLOC, .code = SIMDEV_ERROR_MEMORY_ALLOCATION};
    (void)state;
    init_sweep(&s);
}

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
        arm(s, k);
        int rc = simpler_run(ctx, 0, &args, NULL);
        disarm(s);
        assert_reason_fits_status(rc);
        if (rc != 0) {
            assert_true(is_failure_status(rc));
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

static void program_run_host_allocation_sweep(void **state)
{
    sweep s = {.kind = FAULT_HOST};
    (void)state;
    run_sweep(&s, 300);
}

static void program_run_device_call_sweep(void **state)
{
    sweep s = {.kind = FAULT_DEVICE, .call = PLATFORM_CALL_ANY, .code = SIMDEV_ERROR_INVALID_PARAM};
    (void)state;
    run_sweep(&s, 300);
}

static void program_run_device_allocation_sweep(void **state)
{
    sweep s = {.kind = FAULT_DEVICE, .call = PLATFORM_CALL_MEM_ALLOC, .code = SIMDEV_ERROR_MEMORY_ALLOCATION};
    (void)state;
    run_sweep(&s, 300);
}

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
    arm(&s, 1);
    assert_int_equal(simpler_run(ctx, 0, &args, NULL), PTO_RUNTIME_ERR_DEVICE);
    disarm(&s);
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
    uint64_t base_live = live_allocations();
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        DeviceContextHandle ctx = context_over(&s);
        assert_int_equal(simpler_init(ctx, 0, NULL), 0);
        assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
        arm(&s, k);
        int rc = finalize_device(ctx);
        disarm(&s);
        assert_reason_fits_status(rc);
        if (rc != 0) {
            assert_int_equal(rc, PTO_RUNTIME_ERR_DEVICE);
            assert_int_equal(finalize_device(ctx), 0);
        }
        assert_int_equal(finalize_device(ctx), PTO_RUNTIME_ERR_INVALID_STATE);
        destroy_device_context(ctx);
        assert_int_equal(live_allocations(), base_live);
        if (rc == 0) {
            assert_true(k > 1);
            return;
        }
    }
    fail_msg("finalize_device never succeeded");
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
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
