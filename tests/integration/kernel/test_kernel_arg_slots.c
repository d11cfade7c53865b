#define _GNU_SOURCE
/* Kernel-mode argument slots over real simdev and the "vadd" fixture
 * image (f = 2 * (a + b + R) in R + 2 tasks): the CONFIGURE field, the
 * slots committed at init, and (below) write_args / launch_slot. */
#include "support.h"

#include "common/host_alloc.h"
#include "context/context.h"
#include "device/kernel_packet.h"
#include "kernel/kernel_state.h"
#include "kernel_fixture.h"
#include "../program/image_fixture.h"
#include "platform/platform_counter.h"

#define SWEEP_LIMIT 200u
#define ROUNDS_MAX 6u
#define SLOTS 3u

static SimplerKernelCtxControl slot_configure(uint32_t slots)
{
    SimplerKernelCtxControl c = kfix_plan(&image, ROUNDS_MAX);
    c.arg_slot_count = slots;
    return c;
}

/* What one slot takes: its header and the largest packet, 1024-aligned. */
static size_t expected_stride(const SimplerKernelCtxControl *c)
{
    uint64_t bytes = sizeof(kernel_arg_slot_header) +
                     kernel_packet_args_bytes(c->graph_definition_bytes, c->retained_temp_bytes);
    return (size_t)((bytes + 1023u) & ~(uint64_t)1023u);
}

/* ---- the CONFIGURE field and the slots init commits ---- */

static void slots_plan_capacity_writes_zero_and_layout_ignores_slots(void **state)
{
    (void)state;
    SimplerKernelCtxControl c = slot_configure(0), with = slot_configure(SLOTS), bad;
    SimplerKernelLayout a, b;
    assert_int_equal(c.arg_slot_count, 0);
    assert_int_equal(simpler_kernel_layout(&c, &a), 0);
    assert_int_equal(simpler_kernel_layout(&with, &b), 0);
    assert_memory_equal(&a, &b, sizeof(a));
    bad = c, bad.arg_slot_count = SIMPLER_KERNEL_MAX_ARG_SLOTS + 1;
    memset(&b, 0x5a, sizeof(b));
    assert_int_equal(simpler_kernel_layout(&bad, &b), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(b.runtime_offset, 0x5a5a5a5a5a5a5a5aull);
}

static void slots_count_above_limit_and_freeze_with_slots_refused_record_nothing(void **state)
{
    (void)state;
    DeviceContextHandle ctx = create_device_context();
    SimplerKernelCtxControl good = slot_configure(SLOTS), bad;
    bad = good, bad.arg_slot_count = SIMPLER_KERNEL_MAX_ARG_SLOTS + 1;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &bad), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = good, bad.reserved[6] = 1;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &bad), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = kfix_freeze(), bad.arg_slot_count = 1;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &bad), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    /* Nothing was recorded: the slot CONFIGURE is the first one taken,
     * and the same tuple with another slot count is a different one. */
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &good), 0);
    bad = good, bad.arg_slot_count = SLOTS + 1;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &bad), PTO_RUNTIME_ERR_INVALID_STATE);
    destroy_device_context(ctx);
}

static size_t committed_after_init(const SimplerKernelCtxControl *c, DeviceContextHandle *out)
{
    DeviceContextHandle ctx = create_device_context();
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, c), 0);
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
    *out = ctx;
    return committed_device_memory_ctx(ctx);
}

static void close_ctx(DeviceContextHandle ctx)
{
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

/* A CONFIGURE from a caller that predates the field (0) commits exactly
 * the bank, the temp buffer and the trace, and holds no slot buffer; a
 * slot CONFIGURE adds exactly count * stride, all in one allocation. */
static void slots_zero_count_commits_as_before_and_each_slot_adds_its_stride(void **state)
{
    (void)state;
    SimplerKernelCtxControl none = slot_configure(0), some = slot_configure(SLOTS);
    DeviceContextHandle a, b;
    size_t without = committed_after_init(&none, &a);
    simpler_context *ca = a;
    assert_int_equal(without, arena_bank_committed_bytes(&ca->bank) + ca->temp.size + ca->trace.bytes);
    assert_null(ca->arg_slots.base);
    assert_int_equal(kernel_state_of(ca)->arg_slot_count, 0);
    size_t with = committed_after_init(&some, &b);
    simpler_context *cb = b;
    assert_int_equal(with - without, SLOTS * expected_stride(&some));
    assert_int_equal(cb->arg_slots.bytes, SLOTS * expected_stride(&some));
    assert_int_equal((uintptr_t)cb->arg_slots.base % 1024u, 0);
    close_ctx(a);
    close_ctx(b);
}

/* Every slot starts empty: a zero header, whatever the allocator's fill. */
static void slots_start_empty_after_init(void **state)
{
    (void)state;
    SimplerKernelCtxControl c = slot_configure(SLOTS);
    DeviceContextHandle ctx;
    (void)committed_after_init(&c, &ctx);
    kernel_state *ks = kernel_state_of((simpler_context *)ctx);
    for (uint32_t s = 0; s < SLOTS; s++) {
        kernel_arg_slot_header h;
        memset(&h, 0x77, sizeof(h));
        void *addr = (void *)(uintptr_t)kernel_arg_slot_addr(ctx, ks, s);
        assert_int_equal(simdev_memcpy(&h, addr, sizeof(h)), SIMDEV_SUCCESS);
        assert_int_equal(h.magic, 0);
        assert_int_equal(h.packet_bytes, 0);
    }
    close_ctx(ctx);
}

static void assert_new_again(DeviceContextHandle handle)
{
    simpler_context *ctx = handle;
    assert_null(ctx->mode_state);
    assert_null(ctx->arg_slots.base);
    assert_int_equal(committed_device_memory_ctx(ctx), 0);
}

/* Init with slots, every device call (the slot allocation and its
 * zeroing included) failing in turn: New again, nothing held. */
static void slots_init_every_device_call_fails_in_turn_new_again(void **state)
{
    (void)state;
    platform_counter counter;
    SimplerKernelCtxControl c = slot_configure(SLOTS);
    for (uint64_t k = 1; k < SWEEP_LIMIT; k++) {
        DeviceContextHandle ctx = create_device_context();
        assert_int_equal(context_set_platform_ops(ctx, platform_ops_counting(platform_ops_simdev(), &counter)), 0);
        assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &c), 0);
        platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, k, SIMDEV_ERROR_MEMORY_ALLOCATION);
        int rc = simpler_kernel_mode_init(ctx, 0, NULL, 1);
        platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, 0, 0);
        if (rc == 0) {
            assert_true(k > 1);
            close_ctx(ctx);
            return;
        }
        assert_true(rc == PTO_RUNTIME_ERR_OUT_OF_MEMORY || rc == PTO_RUNTIME_ERR_DEVICE);
        assert_new_again(ctx);
        destroy_device_context(ctx);
    }
    fail_msg("simpler_kernel_mode_init never succeeded");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slots_plan_capacity_writes_zero_and_layout_ignores_slots),
        cmocka_unit_test(slots_count_above_limit_and_freeze_with_slots_refused_record_nothing),
        cmocka_unit_test(slots_zero_count_commits_as_before_and_each_slot_adds_its_stride),
        cmocka_unit_test(slots_start_empty_after_init),
        cmocka_unit_test(slots_init_every_device_call_fails_in_turn_new_again),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
