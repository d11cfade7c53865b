/* Kernel mode's table (kernel_mode_ops) as the shared context sees it,
 * without a device: a CONFIGURE is recorded before any latch and latches
 * nothing, a kernel-latched context with no state is New (nothing held,
 * destroy allowed), and a refused init creates no state. */
#include "support.h"

#include <string.h>

#include "common/host_alloc.h"
#include "context/context.h"
#include "kernel/kernel_state.h"

static SimplerKernelCtxControl configure(void)
{
    SimplerKernelCtxControl c;
    memset(&c, 0, sizeof(c));
    c.abi_version = SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION;
    c.struct_size = sizeof(c);
    c.action = SIMPLER_KERNEL_CTX_CONFIGURE;
    c.mode = SIMPLER_MODE_KERNEL;
    c.task_window = 16;
    return c;
}

static void kernel_configure_is_the_contexts_and_latches_nothing(void **state)
{
    (void)state;
    SimplerKernelCtxControl c = configure();
    simpler_context *ctx = create_device_context();
    assert_non_null(ctx);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &c), 0);
    assert_null(ctx->mode);
    assert_true(ctx->control_configured);
    assert_memory_equal(&ctx->control, &c, sizeof(c));
    /* Either mode may still latch: program init is refused here only
     * for its bad device id, after it latched PROGRAM. */
    assert_int_equal(simpler_init(ctx, -1, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_true(context_is_program(ctx));
    assert_null(kernel_state_of(ctx));
    assert_int_equal(kernel_phase(ctx), KERNEL_PHASE_NEW);
    destroy_device_context(ctx);
}

static void kernel_latched_without_state_is_new_and_destroys(void **state)
{
    (void)state;
    uint64_t allocs = host_alloc_count(), frees = host_free_count();
    simpler_context *ctx = create_device_context();
    assert_non_null(ctx);
    assert_int_equal(context_latch(ctx, &kernel_mode_ops), 0);
    assert_true(context_is_kernel(ctx));
    assert_int_equal(kernel_phase(ctx), KERNEL_PHASE_NEW);
    assert_false(context_holds_resources(ctx));
    assert_false(kernel_mode_ops.blocks_destroy(ctx));
    assert_int_equal(finalize_device(ctx), PTO_RUNTIME_ERR_INVALID_STATE);
    int runtime = 1, teardown = 1;
    assert_int_equal(simpler_kernel_mode_errors(ctx, &runtime, &teardown), 0);
    assert_int_equal(runtime, 0);
    assert_int_equal(teardown, 0);
    destroy_device_context(ctx);
    assert_int_equal(host_alloc_count() - allocs, host_free_count() - frees);
}

static void kernel_init_refused_by_its_checks_creates_no_state(void **state)
{
    (void)state;
    simpler_context *ctx = create_device_context();
    assert_non_null(ctx);
    uint64_t allocs = host_alloc_count();
    assert_int_equal(simpler_kernel_mode_init(ctx, -1, NULL, 1), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(host_alloc_count(), allocs);
    assert_null(ctx->mode); /* kernel init validates before it latches */
    assert_null(ctx->mode_state);
    assert_int_equal(simpler_kernel_mode_supported(ctx), 1);
    destroy_device_context(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_configure_is_the_contexts_and_latches_nothing),
        cmocka_unit_test(kernel_latched_without_state_is_new_and_destroys),
        cmocka_unit_test(kernel_init_refused_by_its_checks_creates_no_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
