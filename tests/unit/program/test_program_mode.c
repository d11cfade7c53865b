/* Program mode's table (program_mode_ops) as the shared context sees it,
 * without a device: what a latched but uninitialized program context
 * answers, and that an init refused before the device leaves only the
 * latch behind (no state, nothing allocated that stays). */
#include "support.h"

#include "common/host_alloc.h"
#include "context/context.h"
#include "program/program.h"

static void program_latched_without_init_holds_nothing_and_destroys(void **state)
{
    (void)state;
    uint64_t allocs = host_alloc_count(), frees = host_free_count();
    simpler_context *ctx = create_device_context();
    assert_non_null(ctx);
    assert_int_equal(context_latch(ctx, &program_mode_ops), 0);
    assert_true(context_is_program(ctx));
    assert_ptr_equal(ctx->mode, &program_mode_ops);
    assert_null(program_state_of(ctx));
    assert_false(program_initialized(ctx));
    assert_false(context_holds_resources(ctx));
    assert_false(program_mode_ops.blocks_destroy(ctx));
    assert_int_equal(finalize_device(ctx), PTO_RUNTIME_ERR_INVALID_STATE);
    /* The memory helpers need resources; the test hook is allowed. */
    assert_null(device_malloc_ctx(ctx, 64));
    assert_int_equal(context_set_platform_ops(ctx, NULL), 0);
    destroy_device_context(ctx);
    assert_int_equal(host_alloc_count() - allocs, host_free_count() - frees);
}

static void program_init_refused_before_the_device_leaves_only_the_latch(void **state)
{
    (void)state;
    CallConfig config;
    simpler_context *ctx = create_device_context();
    assert_non_null(ctx);
    assert_int_equal(simpler_call_config_default(&config), 0);
    config.struct_size = 4;
    uint64_t allocs = host_alloc_count();
    assert_int_equal(simpler_init(ctx, 0, &config), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(host_alloc_count(), allocs);
    assert_true(context_is_program(ctx));
    assert_null(ctx->mode_state);
    assert_false(context_holds_resources(ctx));
    /* The latch holds: kernel mode is refused, program mode is not. */
    assert_int_equal(simpler_kernel_mode_supported(ctx), 0);
    assert_int_equal(context_latch(ctx, &program_mode_ops), 0);
    destroy_device_context(ctx);
}

/* A program context's state is program_state, never kernel mode's: the
 * accessor answers NULL on a context latched to the other mode. */
static void program_state_is_only_a_program_contexts(void **state)
{
    (void)state;
    simpler_context *ctx = create_device_context();
    assert_non_null(ctx);
    assert_int_equal(context_latch(ctx, &program_mode_ops), 0);
    ctx->mode_state = &ctx->control; /* any non-NULL pointer, never used */
    assert_ptr_equal(context_mode_state(ctx, CONTEXT_MODE_PROGRAM), &ctx->control);
    assert_null(context_mode_state(ctx, CONTEXT_MODE_KERNEL));
    ctx->mode_state = NULL;
    destroy_device_context(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(program_latched_without_init_holds_nothing_and_destroys),
        cmocka_unit_test(program_init_refused_before_the_device_leaves_only_the_latch),
        cmocka_unit_test(program_state_is_only_a_program_contexts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
