/* Program-mode lifecycle over real simdev: every entry's bad-input table
 * (with no side effects), residency generations, finalize and init again,
 * the device reset at finalize, dlopen counters. */
#include "support.h"

#include "common/host_alloc.h"
#include "context/context.h"
#include "program/program.h"
#include "device/device_kernel_table.h"
#include "program_fixture.h"
#include "image_fixture.h"

static uint64_t live_allocations(int device)
{
    simdev_mem_info info;
    assert_int_equal(simdev_get_mem_info(device, &info), SIMDEV_SUCCESS);
    return info.live_allocations;
}

/* What a refused call must leave exactly as it was. */
typedef struct snapshot {
    uint64_t host_allocs;
    uint64_t device_live;
    size_t committed;
    size_t host_dlopens, aicpu_dlopens;
    simdev_counters calls;
} snapshot;

static snapshot snap(DeviceContextHandle ctx)
{
    snapshot s;
    s.device_live = live_allocations(0);
    s.committed = committed_device_memory_ctx(ctx);
    s.host_dlopens = get_host_dlopen_count(ctx);
    s.aicpu_dlopens = get_aicpu_dlopen_count(ctx);
    assert_int_equal(simdev_get_counters(&s.calls), SIMDEV_SUCCESS);
    /* Last: simdev may allocate host memory the first time it is asked. */
    s.host_allocs = host_alloc_count();
    return s;
}

static void assert_unchanged(DeviceContextHandle ctx, const snapshot *before)
{
    snapshot now = snap(ctx);
    assert_int_equal(now.host_allocs, before->host_allocs);
    assert_int_equal(now.device_live, before->device_live);
    assert_int_equal(now.committed, before->committed);
    assert_int_equal(now.host_dlopens, before->host_dlopens);
    assert_int_equal(now.aicpu_dlopens, before->aicpu_dlopens);
    assert_int_equal(now.calls.malloc_calls, before->calls.malloc_calls);
    assert_int_equal(now.calls.kernel_launches, before->calls.kernel_launches);
    assert_int_equal(now.calls.stream_create_calls, before->calls.stream_create_calls);
    assert_int_equal(now.calls.memcpy_sync_calls, before->calls.memcpy_sync_calls);
}

static void program_entries_refuse_null_context(void **state)
{
    ChipStorageTaskArgs args;
    (void)state;
    vadd_args_make(&args, NULL, NULL, NULL, SIMPLER_ADDRESS_SPACE_DEVICE, 0, 0);
    assert_int_equal(simpler_init(NULL, 0, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_register_callable(NULL, 0, image.bytes, image.size), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_unregister_callable(NULL, 0), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_run(NULL, 0, &args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(finalize_device(NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(copy_to_device_ctx(NULL, &args, &args, 8), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(copy_from_device_ctx(NULL, &args, &args, 8), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
}

static void program_entries_before_init_are_invalid_state_with_no_effect(void **state)
{
    DeviceContextHandle ctx = create_device_context();
    ChipStorageTaskArgs args;
    char host[64];
    (void)state;
    vadd_args_make(&args, NULL, NULL, NULL, SIMPLER_ADDRESS_SPACE_DEVICE, 0, 0);
    snapshot before = snap(ctx);
    assert_int_equal(simpler_run(ctx, 0, &args, NULL), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_unregister_callable(ctx, 0), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(finalize_device(ctx), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(copy_to_device_ctx(ctx, host, host, sizeof(host)), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_null(device_malloc_ctx(ctx, 64));
    assert_unchanged(ctx, &before);
    destroy_device_context(ctx);
}

static void program_init_refuses_bad_device_and_config_then_succeeds(void **state)
{
    DeviceContextHandle ctx = create_device_context();
    CallConfig config;
    (void)state;
    simpler_call_config_default(&config);
    snapshot before = snap(ctx);
    assert_int_equal(simpler_init(ctx, -1, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_init(ctx, 2, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    config.struct_size = sizeof(config) - 8;
    assert_int_equal(simpler_init(ctx, 0, &config), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    simpler_call_config_default(&config);
    config.reserved[0] = 1;
    assert_int_equal(simpler_init(ctx, 0, &config), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    before.calls.malloc_calls = snap(ctx).calls.malloc_calls; /* device_info is not an allocation */
    assert_unchanged(ctx, &before);
    assert_int_equal(simpler_init(ctx, 1, NULL), 0);
    assert_int_equal(simpler_init(ctx, 1, NULL), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

static void program_register_bad_input_table_has_no_effect(void **state)
{
    DeviceContextHandle ctx = create_device_context();
    (void)state;
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    void *corrupt = aligned_alloc(64, (image.size + 63) / 64 * 64);
    memcpy(corrupt, image.bytes, image.size);
    ((unsigned char *)corrupt)[0] ^= 0xff;
    snapshot before = snap(ctx);
    assert_int_equal(simpler_register_callable(ctx, -1, image.bytes, image.size), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_register_callable(ctx, SIMPLER_MAX_CALLABLES_PROGRAM, image.bytes, image.size),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_register_callable(ctx, 0, NULL, image.size), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_register_callable(ctx, 0, corrupt, image.size), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size - 64),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_unregister_callable(ctx, -1), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_unregister_callable(ctx, 64), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_unregister_callable(ctx, 5), PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT);
    before.host_allocs = host_alloc_count(); /* the loader's attempts are freed again */
    assert_unchanged(ctx, &before);
    assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
    assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), PTO_RUNTIME_ERR_INVALID_STATE);
    free(corrupt);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

static void program_run_bad_input_table_has_no_effect(void **state)
{
    DeviceContextHandle ctx = create_device_context();
    static vadd_buffers v;
    ChipStorageTaskArgs args, bad;
    CallConfig config;
    (void)state;
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    assert_int_equal(simpler_register_callable(ctx, 1, image.bytes, image.size), 0);
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
    simpler_call_config_default(&config);
    snapshot before = snap(ctx);
    assert_int_equal(simpler_run(ctx, -1, &args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_run(ctx, 64, &args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_run(ctx, 2, &args, NULL), PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT);
    assert_int_equal(simpler_run(ctx, 1, NULL, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    config.struct_size = 4;
    assert_int_equal(simpler_run(ctx, 1, &args, &config), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    simpler_call_config_default(&config);
    config.trace = 2;
    assert_int_equal(simpler_run(ctx, 1, &args, &config), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = args;
    bad.tensor_count = 2;
    assert_int_equal(simpler_run(ctx, 1, &bad, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = args;
    bad.scalar_count = 3;
    assert_int_equal(simpler_run(ctx, 1, &bad, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = args;
    bad.tensors[1].ndims = 0;
    assert_int_equal(simpler_run(ctx, 1, &bad, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = args;
    bad.tensors[2].reserved[0] = 1; /* a tensor's reserved bytes must be zero */
    assert_int_equal(simpler_run(ctx, 1, &bad, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_unchanged(ctx, &before);
    assert_true(v.f[0] == -1.0f);
    assert_int_equal(simpler_run(ctx, 1, &args, NULL), 0);
    assert_int_equal(vadd_check(&v, 1), 0);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

static uint64_t slot_generation(DeviceContextHandle handle, int32_t id)
{
    simpler_context *ctx = handle;
    const device_kernel_table *table = program_state_of(ctx)->kernel_tables[id];
    uint64_t generation = 0;
    assert_int_equal(residency_lookup(&ctx->residency, id, NULL, &generation), 0);
    assert_non_null(table);
    assert_int_equal(table->generation, generation);
    return generation;
}

static void program_reregister_bumps_generation_and_counts_dlopens(void **state)
{
    DeviceContextHandle ctx = create_device_context();
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    (void)state;
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    assert_int_equal(simpler_register_callable(ctx, 7, image.bytes, image.size), 0);
    assert_int_equal(slot_generation(ctx, 7), 1);
    assert_int_equal(get_host_dlopen_count(ctx), 1);
    assert_int_equal(get_aicpu_dlopen_count(ctx), 3);
    assert_int_equal(simpler_unregister_callable(ctx, 7), 0);
    assert_int_equal(simpler_unregister_callable(ctx, 7), PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT);
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 2, 0);
    assert_int_equal(simpler_run(ctx, 7, &args, NULL), PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT);
    assert_int_equal(simpler_register_callable(ctx, 7, image.bytes, image.size), 0);
    assert_int_equal(slot_generation(ctx, 7), 2);
    assert_int_equal(get_host_dlopen_count(ctx), 2);
    assert_int_equal(get_aicpu_dlopen_count(ctx), 6);
    assert_int_equal(simpler_run(ctx, 7, &args, NULL), 0);
    assert_int_equal(vadd_check(&v, 2), 0);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

static void program_finalize_resets_device_and_init_again_works(void **state)
{
    DeviceContextHandle ctx = create_device_context();
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    (void)state;
    uint64_t base_live = live_allocations(1);
    for (int round = 0; round < 2; round++) {
        assert_int_equal(simpler_init(ctx, 1, NULL), 0);
        assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
        assert_non_null(device_malloc_ctx(ctx, 4096)); /* left for the reset to drop */
        vadd_buffers_fill(&v, (float)round);
        vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
        assert_int_equal(simpler_run(ctx, 0, &args, NULL), 0);
        assert_int_equal(vadd_check(&v, 1), 0);
        assert_true(live_allocations(1) > base_live);
        assert_int_equal(finalize_device(ctx), 0);
        assert_int_equal(live_allocations(1), base_live);
        assert_int_equal(committed_device_memory_ctx(ctx), 0);
        assert_int_equal(get_arena_bank_gm_heap_base_ctx(ctx, 0), 0);
        assert_int_equal(finalize_device(ctx), PTO_RUNTIME_ERR_INVALID_STATE);
    }
    /* dlopens count over the context's life, not per init. */
    assert_int_equal(get_host_dlopen_count(ctx), 2);
    destroy_device_context(ctx);
}

static void program_destroy_finalizes_an_initialized_context(void **state)
{
    DeviceContextHandle ctx = create_device_context();
    (void)state;
    uint64_t base_live = live_allocations(0);
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
    destroy_device_context(ctx);
    assert_int_equal(live_allocations(0), base_live);
}

/* Program mode synchronizes its two engine streams in turn: it needs no
 * third stream (each simdev stream has a worker thread) and no event. */
static void program_init_and_run_use_two_streams_and_no_event(void **state)
{
    DeviceContextHandle ctx = create_device_context();
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    simdev_counters before, after;
    (void)state;
    assert_int_equal(simdev_get_counters(&before), SIMDEV_SUCCESS);
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
    vadd_buffers_fill(&v, 2.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 4, 0);
    assert_int_equal(simpler_run(ctx, 0, &args, NULL), 0);
    assert_int_equal(vadd_check(&v, 4), 0);
    assert_int_equal(simdev_get_counters(&after), SIMDEV_SUCCESS);
    assert_int_equal(after.stream_create_calls - before.stream_create_calls, 2);
    assert_int_equal(after.event_create_calls - before.event_create_calls, 0);
    assert_int_equal(after.event_record_calls - before.event_record_calls, 0);
    assert_int_equal(finalize_device(ctx), 0);
    assert_int_equal(simdev_get_counters(&after), SIMDEV_SUCCESS);
    assert_int_equal(after.stream_destroy_calls - before.stream_destroy_calls, 2);
    assert_int_equal(after.event_destroy_calls - before.event_destroy_calls, 0);
    destroy_device_context(ctx);
}

static void program_prewarm_commits_capacity_before_any_run(void **state)
{
    DeviceContextHandle ctx = create_device_context();
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    CallConfig config;
    (void)state;
    simpler_call_config_default(&config);
    config.heap_bytes = 64 * 1024;
    config.task_window = 64;
    assert_int_equal(simpler_init(ctx, 0, &config), 0);
    assert_true(committed_device_memory_ctx(ctx) >= 64 * 1024);
    uint64_t heap = get_arena_bank_gm_heap_base_ctx(ctx, 0);
    assert_int_not_equal(heap, 0);
    assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 4, 0);
    assert_int_equal(simpler_run(ctx, 0, &args, NULL), 0);
    assert_int_equal(vadd_check(&v, 4), 0);
    assert_int_equal(get_arena_bank_gm_heap_base_ctx(ctx, 0), heap);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(program_entries_refuse_null_context),
        cmocka_unit_test(program_entries_before_init_are_invalid_state_with_no_effect),
        cmocka_unit_test(program_init_refuses_bad_device_and_config_then_succeeds),
        cmocka_unit_test(program_register_bad_input_table_has_no_effect),
        cmocka_unit_test(program_run_bad_input_table_has_no_effect),
        cmocka_unit_test(program_reregister_bumps_generation_and_counts_dlopens),
        cmocka_unit_test(program_finalize_resets_device_and_init_again_works),
        cmocka_unit_test(program_destroy_finalizes_an_initialized_context),
        cmocka_unit_test(program_init_and_run_use_two_streams_and_no_event),
        cmocka_unit_test(program_prewarm_commits_capacity_before_any_run),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
