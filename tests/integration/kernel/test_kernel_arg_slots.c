#define _GNU_SOURCE
/* Kernel-mode argument slots over real simdev and the "vadd" fixture
 * image (f = 2 * (a + b + R) in R + 2 tasks): the CONFIGURE field, the
 * slots committed at init, and (below) write_args / launch_slot. */
#include "support.h"

#include "common/host_alloc.h"
#include "context/context.h"
#include "device/device_handshake.h"
#include "device/kernel_packet.h"
#include "graph/graph_image.h"
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


/* ---- write_args and launch_slot ---- */

#define STEPS 1000u
#define SETS 4u
#define SLOT 1u

/* A context with SLOTS argument slots, ready to launch. */
static void open_slots(kfix *k)
{
    SimplerKernelCtxControl c = slot_configure(SLOTS);
    kfix_open(k, &image, &c);
}

static int write_step(kfix *k, uint32_t slot, const kbufs *d, uint64_t rounds)
{
    ChipStorageTaskArgs args;
    vadd_args_make(&args, d->a, d->b, d->f, SIMPLER_ADDRESS_SPACE_DEVICE, rounds, 0);
    return simpler_kernel_mode_write_args(k->ctx, slot, KFIX_ID, &args, k->stream);
}

static simdev_graph_t capture_slot(kfix *k, uint32_t slot)
{
    simdev_graph_t g = NULL;
    assert_int_equal(simdev_capture_begin(k->stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_launch_slot(k->ctx, slot, k->stream), 0);
    assert_int_equal(simdev_capture_end(k->stream, &g), SIMDEV_SUCCESS);
    return g;
}

static void slots_eager_write_then_launch_slot_computes_the_golden(void **state)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    (void)state;
    open_slots(&k);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 3.0f);
    assert_int_equal(write_step(&k, SLOT, &d, 4), 0);
    assert_int_equal(simpler_kernel_mode_launch_slot(k.ctx, SLOT, k.stream), 0);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&d, &v, 4), 0);
    kbufs_free(&d);
    kfix_close(&k);
}

/* Cores whose executor block ran in the last execution (each marks its
 * handshake slot arrived; the chain clears every slot first). */
static uint32_t cores_arrived(kfix *k)
{
    const kernel_state *ks = kernel_state_of(k->ctx);
    uint32_t n = 0;
    for (uint32_t c = 0; c < ks->aic_count + ks->aiv_count; c++) {
        const device_core_slot *slot =
            (const device_core_slot *)(uintptr_t)(ks->frozen.runtime_base + graph_runtime_core_slot_offset(c));
        n += atomic_load(&slot->arrived) != 0;
    }
    return n;
}

/* A slot launch does not know its graph when it is enqueued, so every
 * configured core's block starts; an eager launch of the same graph (R
 * = 0: an AIV -> AIV chain, one head) starts only the one core its
 * graph can use, and both compute the golden. */
static void slots_launch_starts_every_core_an_eager_launch_only_those_used(void **state)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    ChipStorageTaskArgs args;
    (void)state;
    open_slots(&k);
    const kernel_state *ks = kernel_state_of(k.ctx);
    uint32_t all = ks->aic_count + ks->aiv_count;
    assert_true(all > 1);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 3.0f);
    assert_int_equal(write_step(&k, SLOT, &d, 0), 0);
    assert_int_equal(simpler_kernel_mode_launch_slot(k.ctx, SLOT, k.stream), 0);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&d, &v, 0), 0);
    assert_int_equal(cores_arrived(&k), all);

    kbufs_upload(&d, &v, 3.0f);
    vadd_args_make(&args, d.a, d.b, d.f, SIMPLER_ADDRESS_SPACE_DEVICE, 0, 0);
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &args, k.stream), 0);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&d, &v, 0), 0);
    const device_run_desc *desc = (const device_run_desc *)ks->packet;
    uint32_t started = (uint32_t)desc->aic_started + desc->aiv_started;
    assert_int_equal(started, 1);
    assert_int_equal(cores_arrived(&k), started);
    kbufs_free(&d);
    kfix_close(&k);
}

/* One capture of launch_slot; every step stores new arguments (another
 * rounds scalar, so another task count, and another set of device
 * buffers) and replays it; every result matches its golden. */
static void slots_one_capture_1000_replays_each_with_new_scalar_addresses_and_task_count(void **state)
{
    static vadd_buffers v;
    kfix k;
    kbufs d[SETS];
    (void)state;
    open_slots(&k);
    for (uint32_t i = 0; i < SETS; i++)
        kbufs_alloc(&d[i]);
    simdev_graph_t g = capture_slot(&k, SLOT);
    for (uint32_t step = 0; step < STEPS; step++) {
        const kbufs *set = &d[step % SETS];
        uint64_t rounds = step % (ROUNDS_MAX + 1);
        kbufs_upload(set, &v, (float)step);
        assert_int_equal(write_step(&k, SLOT, set, rounds), 0);
        assert_int_equal(simdev_graph_launch(g, k.stream), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
        if (kbufs_check(set, &v, rounds) != 0)
            fail_msg("step %u (rounds %llu, set %u): wrong result", step, (unsigned long long)rounds, step % SETS);
    }
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    for (uint32_t i = 0; i < SETS; i++)
        kbufs_free(&d[i]);
    kfix_close(&k);
}

/* A graph over the frozen capacity is refused on the host with nothing
 * enqueued: the slot keeps its packet, and the replay runs it. */
static void slots_packet_over_capacity_refused_and_previous_packet_replayed(void **state)
{
    static vadd_buffers v;
    simdev_counters before, after;
    kfix k;
    kbufs d, other;
    (void)state;
    open_slots(&k);
    kbufs_alloc(&d);
    kbufs_alloc(&other);
    simdev_graph_t g = capture_slot(&k, SLOT);
    kbufs_upload(&d, &v, 9.0f);
    assert_int_equal(write_step(&k, SLOT, &d, 2), 0);
    assert_int_equal(simdev_get_thread_counters(&before), SIMDEV_SUCCESS);
    assert_int_equal(write_step(&k, SLOT, &other, ROUNDS_MAX + 8), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(simdev_get_thread_counters(&after), SIMDEV_SUCCESS);
    assert_int_equal(after.kernel_launches, before.kernel_launches);
    assert_int_equal(simdev_graph_launch(g, k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&d, &v, 2), 0);
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    kbufs_free(&d);
    kbufs_free(&other);
    kfix_close(&k);
}

/* 0 when every element of the device output still reads `value`. */
static int output_untouched(const kbufs *d, float value)
{
    static float f[VADD_N];
    assert_int_equal(simdev_memcpy(f, d->f, sizeof(f)), SIMDEV_SUCCESS);
    for (uint32_t i = 0; i < VADD_N; i++) {
        if (f[i] != value)
            return -1;
    }
    return 0;
}

static int runtime_error(kfix *k)
{
    int err = 0;
    assert_int_equal(simpler_kernel_mode_errors(k->ctx, &err, NULL), 0);
    return err;
}

/* The device-refusal tests: slots open, inputs of 1.0 uploaded, the
 * output filled with -1. */
static void open_refusal(kfix *k, kbufs *d)
{
    static vadd_buffers v;
    open_slots(k);
    kbufs_alloc(d);
    kbufs_upload(d, &v, 1.0f);
}

/* What ran since the last synchronize was refused on the device with
 * `status` before any task wrote the output. */
static void assert_refused_on_device(kfix *k, const kbufs *d, int status)
{
    assert_int_not_equal(simdev_stream_synchronize(k->stream), SIMDEV_SUCCESS);
    assert_int_equal(output_untouched(d, -1.0f), 0);
    assert_int_equal(runtime_error(k), status);
}

/* A context whose caller stream faulted closes in this order. */
static void close_after_fault(kfix *k, kbufs *d)
{
    kbufs_free(d);
    assert_int_equal(finalize_device(k->ctx), 0);
    destroy_device_context(k->ctx);
    assert_int_equal(simdev_stream_destroy(k->stream), SIMDEV_SUCCESS);
}

/* write, prepare the callable again, replay: the device refuses the
 * stale packet before any task runs (the output keeps its -1 fill). */
static void slots_write_prepare_again_replay_refused_stale_nothing_written(void **state)
{
    kfix k;
    kbufs d;
    (void)state;
    open_refusal(&k, &d);
    simdev_graph_t g = capture_slot(&k, SLOT);
    assert_int_equal(write_step(&k, SLOT, &d, 3), 0);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, KFIX_ID, image.bytes, image.size, k.stream), 0);
    assert_int_equal(simdev_graph_launch(g, k.stream), SIMDEV_SUCCESS);
    assert_refused_on_device(&k, &d, KERNEL_PACKET_ERR_ARG_SLOT_STALE);
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    close_after_fault(&k, &d);
}

/* A slot never written is refused on the device, before anything runs. */
static void slots_empty_slot_refused_on_device_nothing_written(void **state)
{
    kfix k;
    kbufs d;
    (void)state;
    open_refusal(&k, &d);
    assert_int_equal(write_step(&k, 0, &d, 3), 0);
    assert_int_equal(simpler_kernel_mode_launch_slot(k.ctx, 2, k.stream), 0);
    assert_refused_on_device(&k, &d, KERNEL_PACKET_ERR_ARG_SLOT_EMPTY);
    close_after_fault(&k, &d);
}

/* A stored packet whose slot-record address was redirected (its head
 * checksum recomputed, so only the address check stands) is refused
 * with the slot status: the address is compared with the descriptor's
 * before it is followed, also by the staleness test that tells a stale
 * generation from other slot mismatches. */
static void slots_redirected_slot_record_address_refused_not_followed(void **state)
{
    kfix k;
    kbufs d;
    (void)state;
    open_refusal(&k, &d);
    assert_int_equal(write_step(&k, 0, &d, 3), 0);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    uint8_t *fixed = (uint8_t *)(uintptr_t)kernel_arg_slot_addr(k.ctx, kernel_state_of(k.ctx), 0) +
                     sizeof(kernel_arg_slot_header) + sizeof(device_run_desc);
    const SimplerKernelInvocationHeader *h = (const SimplerKernelInvocationHeader *)fixed;
    kernel_graph_packet *p = (kernel_graph_packet *)(fixed + sizeof(*h));
    /* Mapped nowhere, aligned, non-zero: followed, it faults. */
    p->slot_addr = (uint64_t)1 << 46;
    p->head_checksum = kernel_packet_head_checksum(h, p);
    assert_int_equal(simpler_kernel_mode_launch_slot(k.ctx, 0, k.stream), 0);
    assert_refused_on_device(&k, &d, KERNEL_PACKET_ERR_SLOT);
    close_after_fault(&k, &d);
}

/* The packet stored in a slot, as the slot scheduler reads it (simdev
 * device memory is host memory): its fixed parts, image and staged
 * bytes. */
typedef struct stored_packet {
    device_run_desc *d;
    SimplerKernelInvocationHeader *h;
    kernel_graph_packet *p;
    uint8_t *image, *staged;
} stored_packet;

static stored_packet stored_in(kfix *k, uint32_t slot)
{
    stored_packet s;
    uint8_t *at = (uint8_t *)(uintptr_t)kernel_arg_slot_addr(k->ctx, kernel_state_of(k->ctx), slot);
    const kernel_arg_slot_header *sh = (const kernel_arg_slot_header *)(void *)at;
    assert_int_equal(sh->magic, KERNEL_ARG_SLOT_MAGIC);
    s.d = (device_run_desc *)(void *)(at + sizeof(*sh));
    s.h = (SimplerKernelInvocationHeader *)(s.d + 1);
    s.p = (kernel_graph_packet *)(s.h + 1);
    s.image = (uint8_t *)(s.p + 1);
    s.staged = s.image + kernel_packet_pad8(s.p->image_bytes);
    assert_int_equal(sh->packet_bytes, kernel_packet_args_bytes(s.p->image_bytes, s.p->staged_bytes));
    return s;
}

/* The refused packet's image and staged spans of the definition region
 * and the temp buffer read zero (the slot scheduler restored them in the
 * read that checksummed them): no refused byte is left where the trace
 * export or a later execution's executor could read it. */
static void assert_restored_spans_zero(kfix *k, uint64_t image_bytes, uint64_t staged_bytes)
{
    const kernel_state *ks = kernel_state_of(k->ctx);
    const uint8_t *definition = (const uint8_t *)(uintptr_t)ks->frozen.definition_base;
    const uint8_t *temp = (const uint8_t *)(uintptr_t)ks->frozen.temp_base;
    for (uint64_t i = 0; i < image_bytes; i++)
        if (definition[i] != 0)
            fail_msg("byte %llu of the refused image was left in the definition region", (unsigned long long)i);
    for (uint64_t i = 0; i < staged_bytes; i++)
        if (temp[i] != 0)
            fail_msg("staged byte %llu of the refused packet was left in the temp buffer", (unsigned long long)i);
}

/* A refused execution poisoned the context: the next launch_slot is
 * refused on the host, nothing enqueued. */
static void assert_poisoned(kfix *k)
{
    assert_int_equal(kernel_phase(k->ctx), KERNEL_PHASE_POISONED);
    assert_int_equal(simpler_kernel_mode_launch_slot(k->ctx, SLOT, k->stream), PTO_RUNTIME_ERR_INVALID_STATE);
}

/* One good replay of the captured slot launch (another set of buffers),
 * then arguments for `d` stored in the slot and synchronized, so the
 * test can corrupt the stored packet before the next replay reads it. */
static simdev_graph_t replay_once_then_store(kfix *k, const kbufs *d, uint64_t rounds)
{
    static vadd_buffers v;
    kbufs good;
    kbufs_alloc(&good);
    kbufs_upload(&good, &v, 5.0f);
    simdev_graph_t g = capture_slot(k, SLOT);
    assert_int_equal(write_step(k, SLOT, &good, rounds), 0);
    assert_int_equal(simdev_graph_launch(g, k->stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(k->stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&good, &v, rounds), 0);
    kbufs_free(&good);
    assert_int_equal(write_step(k, SLOT, d, rounds), 0);
    assert_int_equal(simdev_stream_synchronize(k->stream), SIMDEV_SUCCESS);
    return g;
}

/* Replays `g` over the corrupted packet `s`: the device refuses it with
 * the checksum error (-17) before any task runs, the restored spans read
 * zero, the context is poisoned; then closes the fixture. */
static void replay_refused_by_the_checksum(kfix *k, kbufs *d, simdev_graph_t g, const stored_packet *s)
{
    assert_int_equal(simdev_graph_launch(g, k->stream), SIMDEV_SUCCESS);
    assert_refused_on_device(k, d, KERNEL_PACKET_ERR_CHECKSUM);
    assert_restored_spans_zero(k, s->p->image_bytes, s->p->staged_bytes);
    assert_poisoned(k);
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    close_after_fault(k, d);
}

/* Opens the refusal fixture, replays 3 rounds through SLOT once and lets
 * `corrupt` change that slot's stored packet (*s): the replay's graph. */
static simdev_graph_t store_then_corrupt(kfix *k, kbufs *d, stored_packet *s,
                                         void (*corrupt)(const stored_packet *s))
{
    open_refusal(k, d);
    simdev_graph_t g = replay_once_then_store(k, d, 3);
    *s = stored_in(k, SLOT);
    corrupt(s);
    return g;
}

/* store_then_corrupt, then the replay: refused by the checksum
 * (replay_refused_by_the_checksum). */
static void corrupted_slot_refused_by_the_checksum(void (*corrupt)(const stored_packet *s))
{
    kfix k;
    kbufs d;
    stored_packet s;
    simdev_graph_t g = store_then_corrupt(&k, &d, &s, corrupt);
    replay_refused_by_the_checksum(&k, &d, g, &s);
}

/* A flipped byte in the slot's image (the head checksum, over the fixed
 * parts, still agrees): the replay is refused with the checksum error
 * (-17) before any task runs, the image's span of the definition region
 * (which held the good replay's image) is left zero, and the context is
 * poisoned. */
static void flip_an_image_byte(const stored_packet *s)
{
    s->image[s->p->image_bytes / 2] ^= 0x40;
    assert_int_equal(kernel_packet_head_checksum(s->h, s->p), s->p->head_checksum);
}

static void slots_corrupted_image_byte_refused_by_the_checksum_nothing_run(void **state)
{
    (void)state;
    corrupted_slot_refused_by_the_checksum(flip_an_image_byte);
}

/* A fixed field of the stored packet changed consistently where it is
 * repeated (the task count, in the descriptor and the packet: one task
 * fewer, still a count the regions admit) with the head checksum
 * recomputed, so every field check passes: only the full checksum,
 * which covers the header and the packet too, refuses it (-17), before
 * any task runs. */
static void drop_a_task_consistently(const stored_packet *s)
{
    assert_true(s->p->task_count > 1);
    s->p->task_count -= 1;
    s->d->task_count = s->p->task_count;
    s->p->head_checksum = kernel_packet_head_checksum(s->h, s->p);
}

static void slots_consistently_changed_task_count_refused_by_the_checksum_nothing_run(void **state)
{
    (void)state;
    corrupted_slot_refused_by_the_checksum(drop_a_task_consistently);
}

/* HOST inputs travel as staged bytes after the image: a flipped byte
 * there (one input value) is refused with the checksum error (-17)
 * before any task runs; the DEVICE output keeps its fill. */
static void slots_corrupted_staged_argument_byte_refused_by_the_checksum_nothing_run(void **state)
{
    static vadd_buffers v;
    SimplerGraphRequirements req;
    SimplerKernelCtxControl c;
    ChipStorageTaskArgs args;
    kfix k;
    kbufs d;
    (void)state;
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 2.0f); /* the output reads -1 */
    vadd_args_make(&args, v.a, v.b, d.f, SIMPLER_ADDRESS_SPACE_HOST, 2, 0);
    args.tensors[2].address_space = SIMPLER_ADDRESS_SPACE_DEVICE;
    assert_int_equal(simpler_graph_requirements(image.bytes, image.size, &args, &req), 0);
    assert_int_equal(simpler_kernel_plan_capacity(&req, 1, &c), 0);
    c.arg_slot_count = SLOT + 1;
    kfix_open(&k, &image, &c);
    simdev_graph_t g = capture_slot(&k, SLOT);
    assert_int_equal(simpler_kernel_mode_write_args(k.ctx, SLOT, KFIX_ID, &args, k.stream), 0);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    stored_packet s = stored_in(&k, SLOT);
    uint8_t *b = memmem(s.staged, (size_t)s.p->staged_bytes, v.b, sizeof(v.b));
    assert_non_null(b); /* the second input travels in the staged bytes */
    b[4 * 7 + 1] ^= 0x01; /* one byte of its eighth element */
    assert_int_equal(kernel_packet_head_checksum(s.h, s.p), s.p->head_checksum);
    replay_refused_by_the_checksum(&k, &d, g, &s);
}

/* ---- the stored descriptor ---- */

/* The descriptor at the head of a stored packet is covered by neither
 * checksum: the slot scheduler compares it with its launch's own
 * descriptor and the checked packet instead (stored_desc_check), and
 * refuses a changed one with -16 before anything is written. */

/* The definition and scheduler regions, copied before a replay. */
typedef struct working_copy {
    uint8_t *definition, *scheduler;
    uint64_t definition_bytes, scheduler_bytes;
} working_copy;

static working_copy working_copy_take(kfix *k)
{
    const kernel_state *ks = kernel_state_of(k->ctx);
    working_copy c = {NULL, NULL, ks->frozen.definition_bytes, ks->frozen.scheduler_bytes};
    c.definition = malloc((size_t)c.definition_bytes);
    c.scheduler = malloc((size_t)c.scheduler_bytes);
    assert_non_null(c.definition);
    assert_non_null(c.scheduler);
    memcpy(c.definition, (const void *)(uintptr_t)ks->frozen.definition_base, (size_t)c.definition_bytes);
    memcpy(c.scheduler, (const void *)(uintptr_t)ks->frozen.scheduler_base, (size_t)c.scheduler_bytes);
    return c;
}

/* Both regions still hold what they held when `c` was taken (the last
 * good replay's image and ready queues), then frees `c`. */
static void assert_working_unchanged(kfix *k, working_copy *c)
{
    const kernel_state *ks = kernel_state_of(k->ctx);
    assert_memory_equal((const void *)(uintptr_t)ks->frozen.definition_base, c->definition,
                        (size_t)c->definition_bytes);
    assert_memory_equal((const void *)(uintptr_t)ks->frozen.scheduler_base, c->scheduler, (size_t)c->scheduler_bytes);
    free(c->definition);
    free(c->scheduler);
}

/* Opens the refusal fixture, replays 3 rounds through SLOT once, lets
 * `corrupt` change the stored descriptor of that slot's next packet,
 * then replays it: refused with -16 before anything is written (the
 * definition and scheduler regions keep the good replay's bytes, the
 * output its fill), the context poisoned. */
static void corrupted_slot_descriptor_refused(void (*corrupt)(const stored_packet *s))
{
    kfix k;
    kbufs d;
    stored_packet s;
    simdev_graph_t g = store_then_corrupt(&k, &d, &s, corrupt);
    /* Neither checksum sees the change. */
    assert_int_equal(kernel_packet_head_checksum(s.h, s.p), s.p->head_checksum);
    assert_int_equal(kernel_packet_checksum(s.h, s.p, s.image, s.staged), s.p->checksum);
    working_copy before = working_copy_take(&k);
    assert_int_equal(simdev_graph_launch(g, k.stream), SIMDEV_SUCCESS);
    assert_refused_on_device(&k, &d, KERNEL_PACKET_ERR_HEADER);
    assert_working_unchanged(&k, &before);
    assert_poisoned(&k);
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    close_after_fault(&k, &d);
}

static int fault_calls;

static int fault_counted(int code)
{
    (void)code;
    __atomic_add_fetch(&fault_calls, 1, __ATOMIC_SEQ_CST);
    return 0;
}

/* The stored descriptor's fault function pointed at the test's own, and
 * an image graph_image_check refuses (a reserved header word set), its
 * checksum recomputed: accepted, the descriptor would reach the
 * scheduler's refusal of the image, which calls it. A function address
 * read out of a packet is never called. */
static void point_the_fault_function_elsewhere(const stored_packet *s)
{
    s->d->report_fault = fault_counted;
    ((graph_image_header *)(void *)s->image)->reserved = 1;
    s->p->checksum = kernel_packet_checksum(s->h, s->p, s->image, s->staged);
}

static void slots_stored_descriptor_fault_function_refused_never_called(void **state)
{
    (void)state;
    fault_calls = 0;
    corrupted_slot_descriptor_refused(point_the_fault_function_elsewhere);
    assert_int_equal(__atomic_load_n(&fault_calls, __ATOMIC_SEQ_CST), 0);
}

/* The execution's own fields (serial, started cores) set in the stored
 * descriptor, which the host leaves 0 and the launch supplies: the
 * descriptor is compared whole, so they are refused too. */
static void give_the_stored_descriptor_execution_fields(const stored_packet *s)
{
    s->d->serial = 77;
    s->d->aic_started = 1;
}

static void slots_stored_descriptor_execution_fields_refused(void **state)
{
    (void)state;
    corrupted_slot_descriptor_refused(give_the_stored_descriptor_execution_fields);
}

/* Every refusal returns its status and enqueues nothing. */
static void slots_refusals_return_their_status_and_enqueue_nothing(void **state)
{
    static vadd_buffers v;
    simdev_counters before, after;
    ChipStorageTaskArgs args;
    kfix k, none, host;
    kbufs d;
    (void)state;
    open_slots(&k);
    kfix_open_plan(&none, &image, ROUNDS_MAX);
    SimplerKernelCtxControl hc = kfix_plan_space(&image, 1, SIMPLER_ADDRESS_SPACE_HOST);
    hc.arg_slot_count = 1;
    kfix_open(&host, &image, &hc);
    kbufs_alloc(&d);
    assert_int_equal(simdev_get_thread_counters(&before), SIMDEV_SUCCESS);
    assert_int_equal(write_step(&k, SLOTS, &d, 1), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(write_step(&none, 0, &d, 1), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    vadd_args_make(&args, d.a, d.b, d.f, SIMPLER_ADDRESS_SPACE_DEVICE, 1, 0);
    assert_int_equal(simpler_kernel_mode_write_args(NULL, 0, KFIX_ID, &args, k.stream),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_write_args(k.ctx, 0, KFIX_ID, NULL, k.stream),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_write_args(k.ctx, 0, KFIX_ID, &args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_write_args(k.ctx, 0, KFIX_ID + 1, &args, k.stream),
                     PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT);
    args.scalar_count = 1;
    assert_int_equal(simpler_kernel_mode_write_args(k.ctx, 0, KFIX_ID, &args, k.stream),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    /* A HOST output, in a context whose temp buffer could stage it: slot
     * launches write DEVICE tensors only. */
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 1, 0);
    assert_int_equal(simpler_kernel_mode_write_args(host.ctx, 0, KFIX_ID, &args, host.stream),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_launch_slot(k.ctx, SLOTS, k.stream), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_launch_slot(none.ctx, 0, none.stream), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_launch_slot(k.ctx, 0, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_mode_launch_slot(NULL, 0, k.stream), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simdev_get_thread_counters(&after), SIMDEV_SUCCESS);
    assert_int_equal(after.kernel_launches, before.kernel_launches);
    assert_int_equal(after.event_record_calls, before.event_record_calls);
    kbufs_free(&d);
    kfix_close(&k);
    kfix_close(&none);
    kfix_close(&host);
}

/* A HOST tensor the graph writes is refused with -1005 whatever the
 * retained temp buffer could hold: in a context sized for DEVICE tensors
 * (retained_temp_bytes 0, what a slot caller plans) the refusal is the
 * slot rule ("slot launches write DEVICE tensors only"), not -1004 for
 * a temp buffer the caller must not grow for it. Nothing is enqueued. */
static void slots_host_output_refused_invalid_argument_even_without_retained_temp(void **state)
{
    static vadd_buffers v;
    simdev_counters before, after;
    ChipStorageTaskArgs args;
    kfix k;
    kbufs d;
    (void)state;
    open_slots(&k);
    assert_int_equal(k.configure.retained_temp_bytes, 0);
    kbufs_alloc(&d);
    vadd_args_make(&args, d.a, d.b, v.f, SIMPLER_ADDRESS_SPACE_DEVICE, 1, 0);
    args.tensors[2].address_space = SIMPLER_ADDRESS_SPACE_HOST; /* f: the signature's OUT */
    assert_int_equal(simdev_get_thread_counters(&before), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_write_args(k.ctx, 0, KFIX_ID, &args, k.stream),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(simpler_last_error_message(), "a HOST tensor the signature declares"));
    assert_int_equal(simdev_get_thread_counters(&after), SIMDEV_SUCCESS);
    assert_int_equal(after.kernel_launches, before.kernel_launches);
    kbufs_free(&d);
    kfix_close(&k);
}

/* Before FREEZE, and after close, both entries are out of order. */
static void slots_before_freeze_and_after_close_refused(void **state)
{
    SimplerKernelCtxControl c = slot_configure(SLOTS);
    kbufs d;
    (void)state;
    DeviceContextHandle ctx = create_device_context();
    simdev_stream_t s;
    assert_int_equal(simdev_stream_create(&s), SIMDEV_SUCCESS);
    kbufs_alloc(&d);
    ChipStorageTaskArgs args;
    vadd_args_make(&args, d.a, d.b, d.f, SIMPLER_ADDRESS_SPACE_DEVICE, 1, 0);
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &c), 0);
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
    assert_int_equal(simpler_kernel_mode_prepare_callable(ctx, KFIX_ID, image.bytes, image.size, s), 0);
    assert_int_equal(simpler_kernel_mode_write_args(ctx, 0, KFIX_ID, &args, s), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_launch_slot(ctx, 0, s), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simdev_stream_synchronize(s), SIMDEV_SUCCESS);
    assert_int_equal(finalize_device(ctx), 0);
    assert_int_equal(simpler_kernel_mode_write_args(ctx, 0, KFIX_ID, &args, s), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_kernel_mode_launch_slot(ctx, 0, s), PTO_RUNTIME_ERR_INVALID_STATE);
    destroy_device_context(ctx);
    kbufs_free(&d);
    assert_int_equal(simdev_stream_destroy(s), SIMDEV_SUCCESS);
}

/* HOST inputs are read at write_args and travel in the packet: changing
 * the host memory afterwards does not change what the replay computes. */
static void slots_host_inputs_travel_by_value_in_the_packet(void **state)
{
    static vadd_buffers v, golden;
    SimplerGraphRequirements req;
    SimplerKernelCtxControl c;
    ChipStorageTaskArgs args;
    kfix k;
    kbufs d;
    (void)state;
    kbufs_alloc(&d);
    vadd_buffers_fill(&v, 4.0f);
    golden = v;
    vadd_args_make(&args, v.a, v.b, d.f, SIMPLER_ADDRESS_SPACE_HOST, 2, 0);
    args.tensors[2].address_space = SIMPLER_ADDRESS_SPACE_DEVICE;
    assert_int_equal(simpler_graph_requirements(image.bytes, image.size, &args, &req), 0);
    assert_int_equal(simpler_kernel_plan_capacity(&req, 1, &c), 0);
    c.arg_slot_count = 1;
    kfix_open(&k, &image, &c);
    simdev_graph_t g = capture_slot(&k, 0);
    assert_int_equal(simpler_kernel_mode_write_args(k.ctx, 0, KFIX_ID, &args, k.stream), 0);
    vadd_buffers_fill(&v, 100.0f); /* after the call: the packet already holds the inputs */
    assert_int_equal(simdev_graph_launch(g, k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy(golden.f, d.f, sizeof(golden.f)), SIMDEV_SUCCESS);
    assert_int_equal(vadd_check(&golden, 2), 0);
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    kbufs_free(&d);
    kfix_close(&k);
}

typedef struct bases {
    size_t committed;
    void *regions[ARENA_REGION_COUNT];
    void *temp, *trace, *slots;
} bases;

static bases bases_of(const kfix *k)
{
    const simpler_context *ctx = k->ctx;
    bases b;
    memset(&b, 0, sizeof(b));
    b.committed = committed_device_memory_ctx(k->ctx);
    for (int r = 0; r < ARENA_REGION_COUNT; r++)
        b.regions[r] = arena_bank_base(&ctx->bank, r);
    b.temp = ctx->temp.addr;
    b.trace = ctx->trace.base;
    b.slots = ctx->arg_slots.base;
    assert_non_null(b.slots);
    return b;
}

/* 1,000 write_args + replay steps: the runtime allocates, frees,
 * synchronizes, queries and creates nothing (the counters move only by
 * the test's own replays and synchronizes), and every base stays put. */
static void slots_1000_write_replay_steps_allocate_sync_query_and_create_nothing(void **state)
{
    static vadd_buffers v;
    simdev_counters before, after, step_before, step_after;
    kfix k;
    kbufs d[SETS];
    (void)state;
    open_slots(&k);
    for (uint32_t i = 0; i < SETS; i++)
        kbufs_alloc(&d[i]);
    kbufs_upload(&d[0], &v, 2.0f);
    simdev_graph_t g = capture_slot(&k, SLOT);
    /* One warm-up step: simdev starts the graph's lane threads at its
     * first launch. */
    assert_int_equal(write_step(&k, SLOT, &d[0], 1), 0);
    assert_int_equal(simdev_graph_launch(g, k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    bases b0 = bases_of(&k);
    memset(&before, 0, sizeof(before));
    memset(&after, 0, sizeof(after));
    uint64_t allocs = host_alloc_count(), frees = host_free_count();
    for (uint32_t step = 0; step < STEPS; step++) {
        assert_int_equal(simdev_get_thread_counters(&step_before), SIMDEV_SUCCESS);
        assert_int_equal(write_step(&k, SLOT, &d[step % SETS], step % (ROUNDS_MAX + 1)), 0);
        assert_int_equal(simdev_graph_launch(g, k.stream), SIMDEV_SUCCESS);
        assert_int_equal(simdev_get_thread_counters(&step_after), SIMDEV_SUCCESS);
        kfix_assert_no_forbidden_calls(&step_before, &step_after);
        assert_int_equal(step_after.kernel_launches - step_before.kernel_launches, 1); /* the store */
        assert_int_equal(step_after.graph_launches - step_before.graph_launches, 1);
    }
    assert_int_equal(host_alloc_count(), allocs);
    assert_int_equal(host_free_count(), frees);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    bases b1 = bases_of(&k);
    assert_memory_equal(&b0, &b1, sizeof(b0));
    (void)before;
    (void)after;
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    for (uint32_t i = 0; i < SETS; i++)
        kbufs_free(&d[i]);
    kfix_close(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slots_plan_capacity_writes_zero_and_layout_ignores_slots),
        cmocka_unit_test(slots_count_above_limit_and_freeze_with_slots_refused_record_nothing),
        cmocka_unit_test(slots_zero_count_commits_as_before_and_each_slot_adds_its_stride),
        cmocka_unit_test(slots_start_empty_after_init),
        cmocka_unit_test(slots_init_every_device_call_fails_in_turn_new_again),
        cmocka_unit_test(slots_eager_write_then_launch_slot_computes_the_golden),
        cmocka_unit_test(slots_launch_starts_every_core_an_eager_launch_only_those_used),
        cmocka_unit_test(slots_one_capture_1000_replays_each_with_new_scalar_addresses_and_task_count),
        cmocka_unit_test(slots_packet_over_capacity_refused_and_previous_packet_replayed),
        cmocka_unit_test(slots_write_prepare_again_replay_refused_stale_nothing_written),
        cmocka_unit_test(slots_empty_slot_refused_on_device_nothing_written),
        cmocka_unit_test(slots_redirected_slot_record_address_refused_not_followed),
        cmocka_unit_test(slots_corrupted_image_byte_refused_by_the_checksum_nothing_run),
        cmocka_unit_test(slots_consistently_changed_task_count_refused_by_the_checksum_nothing_run),
        cmocka_unit_test(slots_corrupted_staged_argument_byte_refused_by_the_checksum_nothing_run),
        cmocka_unit_test(slots_stored_descriptor_fault_function_refused_never_called),
        cmocka_unit_test(slots_stored_descriptor_execution_fields_refused),
        cmocka_unit_test(slots_refusals_return_their_status_and_enqueue_nothing),
        cmocka_unit_test(slots_host_output_refused_invalid_argument_even_without_retained_temp),
        cmocka_unit_test(slots_before_freeze_and_after_close_refused),
        cmocka_unit_test(slots_host_inputs_travel_by_value_in_the_packet),
        cmocka_unit_test(slots_1000_write_replay_steps_allocate_sync_query_and_create_nothing),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
