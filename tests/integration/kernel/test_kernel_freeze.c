/* simpler_kernel_mode_freeze: FREEZE in one call, with every status of
 * the control block's FREEZE and no effect when refused. */
#include "support.h"

#include <string.h>

#include "context/context.h"
#include "kernel/kernel_state.h"
#include "kernel_fixture.h"
#include "../program/image_fixture.h"

#define ROUNDS_MAX 2u

/* configure, init, prepare: a kernel context ready to freeze. */
static void open_unfrozen(kfix *k)
{
    SimplerKernelCtxControl c = kfix_plan(&image, ROUNDS_MAX);
    k->configure = c;
    k->ctx = create_device_context();
    assert_non_null(k->ctx);
    assert_int_equal(simdev_stream_create(&k->stream), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_ctx_control(k->ctx, &c), 0);
    assert_int_equal(simpler_kernel_mode_init(k->ctx, 0, NULL, 1), 0);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k->ctx, KFIX_ID, image.bytes, image.size, k->stream), 0);
}

static int phase_of(DeviceContextHandle ctx)
{
    return kernel_phase((simpler_context *)ctx);
}

static void freeze_moves_a_configured_context_to_ready_and_launches_run(void **state)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    (void)state;
    open_unfrozen(&k);
    assert_int_equal(phase_of(k.ctx), KERNEL_PHASE_COLLECTING);
    assert_int_equal(simpler_kernel_mode_freeze(k.ctx), 0);
    assert_string_equal(simpler_last_error_message(), "");
    assert_int_equal(phase_of(k.ctx), KERNEL_PHASE_READY_ENQUEUED);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 2.0f);
    kfix_assert_golden(&k, &d, &v, 1);
    kbufs_free(&d);
    kfix_close(&k);
}

static void freeze_null_context_is_invalid_argument(void **state)
{
    (void)state;
    assert_int_equal(simpler_kernel_mode_freeze(NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(simpler_last_error_message(), "ctx"));
}

static void freeze_twice_is_invalid_state_and_changes_nothing(void **state)
{
    kfix k;
    (void)state;
    open_unfrozen(&k);
    assert_int_equal(simpler_kernel_mode_freeze(k.ctx), 0);
    assert_int_equal(simpler_kernel_mode_freeze(k.ctx), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_string_not_equal(simpler_last_error_message(), "");
    assert_int_equal(phase_of(k.ctx), KERNEL_PHASE_READY_ENQUEUED);
    /* And the control block's FREEZE agrees: already frozen. */
    SimplerKernelCtxControl f = kfix_freeze();
    assert_int_equal(simpler_kernel_mode_ctx_control(k.ctx, &f), PTO_RUNTIME_ERR_INVALID_STATE);
    kfix_close(&k);
}

static void freeze_before_init_is_invalid_state_and_changes_nothing(void **state)
{
    (void)state;
    DeviceContextHandle ctx = create_device_context();
    SimplerKernelCtxControl c = kfix_plan(&image, ROUNDS_MAX);
    assert_int_equal(simpler_kernel_mode_freeze(ctx), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &c), 0);
    assert_int_equal(simpler_kernel_mode_freeze(ctx), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(phase_of(ctx), KERNEL_PHASE_NEW);
    /* Nothing was latched: the context still inits in kernel mode. */
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
    assert_int_equal(simpler_kernel_mode_freeze(ctx), 0);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

static void freeze_without_kernel_configure_is_invalid_state(void **state)
{
    (void)state;
    DeviceContextHandle ctx = create_device_context();
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
    assert_int_equal(simpler_kernel_mode_freeze(ctx), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_non_null(strstr(simpler_last_error_message(), "CONFIGURE"));
    assert_int_equal(phase_of(ctx), KERNEL_PHASE_COLLECTING);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

static void freeze_on_a_program_context_is_invalid_state(void **state)
{
    (void)state;
    DeviceContextHandle ctx = create_device_context();
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    assert_int_equal(simpler_kernel_mode_freeze(ctx), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(freeze_moves_a_configured_context_to_ready_and_launches_run),
        cmocka_unit_test(freeze_null_context_is_invalid_argument),
        cmocka_unit_test(freeze_twice_is_invalid_state_and_changes_nothing),
        cmocka_unit_test(freeze_before_init_is_invalid_state_and_changes_nothing),
        cmocka_unit_test(freeze_without_kernel_configure_is_invalid_state),
        cmocka_unit_test(freeze_on_a_program_context_is_invalid_state),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
