/* The execution-mode latch and the context helpers around it, without a
 * device. */
#include "support.h"

#include <stdlib.h>

#include "common/host_alloc.h"
#include "common/log.h"
#include "context/context.h"
#include "kernel/kernel_state.h"
#include "program/program.h"

static void latch_is_write_once_and_relatching_the_held_mode_is_a_noop(void **state)
{
    simpler_context *ctx = create_device_context();
    (void)state;
    assert_non_null(ctx);
    assert_false(context_is_kernel(ctx));
    assert_false(context_is_program(ctx));
    assert_int_equal(context_latch(ctx, &program_mode_ops), 0);
    assert_true(context_is_program(ctx));
    assert_int_equal(context_latch(ctx, &program_mode_ops), 0);
    assert_int_equal(context_latch(ctx, &kernel_mode_ops), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_true(context_is_program(ctx));
    assert_false(context_is_kernel(ctx));
    destroy_device_context(ctx);
}

static void kernel_latched_context_refuses_program_init_with_invalid_state(void **state)
{
    simpler_context *ctx = create_device_context();
    (void)state;
    assert_int_equal(context_latch(ctx, &kernel_mode_ops), 0);
    assert_int_equal(context_latch(ctx, &program_mode_ops), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_init(ctx, 0, NULL), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_true(context_is_kernel(ctx));
    assert_int_equal(finalize_device(ctx), PTO_RUNTIME_ERR_INVALID_STATE);
    destroy_device_context(ctx);
}

static void create_device_context_returns_null_when_host_memory_runs_out(void **state)
{
    (void)state;
    uint64_t allocs = host_alloc_count(), frees = host_free_count();
    host_alloc_fail_nth(1);
    assert_null(create_device_context());
    host_alloc_fail_nth(0);
    assert_int_equal(host_alloc_count(), allocs + 1);
    assert_int_equal(host_free_count(), frees);
}

static void destroy_and_entry_points_accept_null_without_effect(void **state)
{
    (void)state;
    destroy_device_context(NULL);
    assert_int_equal(finalize_device(NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_init(NULL, 0, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(context_set_platform_ops(NULL, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(committed_device_memory_ctx(NULL), 0);
    assert_int_equal(get_host_dlopen_count(NULL), 0);
    assert_int_equal(get_aicpu_dlopen_count(NULL), 0);
    assert_int_equal(get_arena_bank_gm_heap_base_ctx(NULL, 0), 0);
    assert_int_equal(get_retained_temp_addr_ctx(NULL, 0), 0);
    assert_null(device_malloc_ctx(NULL, 64));
    device_free_ctx(NULL, NULL);
}

static void log_level_names_parse_and_unknown_means_error(void **state)
{
    (void)state;
    assert_int_equal(simpler_log_level_parse("error"), SIMPLER_LOG_ERROR);
    assert_int_equal(simpler_log_level_parse("warn"), SIMPLER_LOG_WARN);
    assert_int_equal(simpler_log_level_parse("info"), SIMPLER_LOG_INFO);
    assert_int_equal(simpler_log_level_parse("debug"), SIMPLER_LOG_DEBUG);
    assert_int_equal(simpler_log_level_parse("DEBUG"), SIMPLER_LOG_ERROR);
    assert_int_equal(simpler_log_level_parse(""), SIMPLER_LOG_ERROR);
    assert_int_equal(simpler_log_level_parse(NULL), SIMPLER_LOG_ERROR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(latch_is_write_once_and_relatching_the_held_mode_is_a_noop),
        cmocka_unit_test(kernel_latched_context_refuses_program_init_with_invalid_state),
        cmocka_unit_test(create_device_context_returns_null_when_host_memory_runs_out),
        cmocka_unit_test(destroy_and_entry_points_accept_null_without_effect),
        cmocka_unit_test(log_level_names_parse_and_unknown_means_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
