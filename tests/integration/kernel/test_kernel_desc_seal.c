#define _GNU_SOURCE
/* The kernel-mode descriptor's seal end to end, over real simdev and the
 * "vadd" fixture image: the host seals the descriptor once the serial
 * and the started cores are set, and the scheduler and the executor
 * each verify their own copy before they read a field (docs/device.md,
 * "The descriptor of a kernel-mode packet"). A copy whose gate word,
 * serial or core count changed on its way to the device is refused with
 * DEVICE_ERR_DESC_SEAL: no task runs, the context is poisoned, and the
 * chain ends (before the seal, a changed serial or core count left one
 * side waiting for the other forever). A scheduler's copy whose packet
 * head checksum fails too trusts no address and returns; the dismiss
 * body after it ends the execution with its own copy (before it, the
 * executor blocks waited forever). The gate kernel's and the status
 * check's own arguments are sealed too: a changed copy is followed
 * nowhere and calls nothing. So are an argument-slot launch's own
 * fields (slot, size, status words): a changed slot is never read, a
 * changed status-words address never written, and with the descriptor
 * changed too the dismiss ends the execution. The store of
 * write_args is sealed: a changed copy stores nothing, and, through the
 * status words its packet vouches for, refuses every later slot launch
 * (the slot may hold an older packet). Every synchronize is bounded.
 *
 * The copies are changed on their way to the device: the context calls
 * simdev through a copy of its platform table whose launch_kernel
 * changes one field of the scheduler's or the executor's arguments
 * (which a capture records). */
#include "support.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "context/context.h"
#include "device/device_status.h"
#include "device/kernel_packet.h"
#include "kernel/kernel_state.h"
#include "kernel_fixture.h"
#include "../program/image_fixture.h"

/* ---- the corrupting platform table ---- */

/* FIELD_SEAL_AND_HEAD: the seal and the packet's head checksum both
 * changed (the scheduler's arguments only), so the scheduler's copy
 * names nothing it can trust. */
/* FIELD_CLEAR_SPAN: the gate's arguments (kernel_gate_args) name the
 * decoy span as the arena to clear. FIELD_STATUS_FAULT: the status
 * check's arguments (kernel_status_args) carry another serial and the
 * counting fault function. */
enum {
    FIELD_GATE,
    FIELD_SERIAL,
    FIELD_AIC_COUNT,
    FIELD_SEAL_AND_HEAD,
    FIELD_RUNTIME_BASE,
    FIELD_STATUS_WORD,
    FIELD_CLEAR_SPAN,
    FIELD_STATUS_FAULT,
    FIELD_SLOT_ADDR,
    FIELD_SLOT_STATUS_WORDS,
    FIELD_SLOT_SEAL_AND_STATUS_WORDS,
    FIELD_STORE_SLOT_ADDR
};

static platform_ops corrupting_ops;
static platform_kernel_fn corrupt_fn; /* the body whose arguments change; NULL: none */
static int corrupt_field;
static int corrupted; /* launches changed */
static _Alignas(64) uint8_t corrupted_args[1u << 16];
/* FIELD_RUNTIME_BASE: memory no execution owns, shaped like a runtime
 * arena's header, which a changed runtime_base names instead of the
 * context's arena. Nothing may write it. */
static _Alignas(64) uint8_t decoy_arena[256];
/* FIELD_CLEAR_SPAN: memory no execution owns, room for any clear span
 * of the fixture; filled with DECOY_FILL, which nothing may change. */
#define DECOY_FILL 0xa5
static _Alignas(64) uint8_t decoy_span[1u << 16];
/* FIELD_SLOT_STATUS_WORDS, FIELD_SLOT_SEAL_AND_STATUS_WORDS: memory no
 * execution owns, shaped as the context's status words (a copy of
 * them, its frozen regions the context's), which a slot launch's
 * changed status_words_addr names. Nothing may write it. */
static _Alignas(64) kernel_status_words decoy_words;
/* FIELD_STATUS_FAULT: calls of the fault function a changed copy names. */
static int counted_faults;

static int counting_fault(int code)
{
    (void)code;
    counted_faults++;
    return 0;
}

static void corrupt(void *args)
{
    device_run_desc *d = args;
    if (corrupt_field == FIELD_SLOT_ADDR) {
        ((kernel_slot_launch_args *)args)->slot_addr = (uint64_t)(uintptr_t)decoy_span;
    } else if (corrupt_field == FIELD_SLOT_STATUS_WORDS) {
        ((kernel_slot_launch_args *)args)->status_words_addr = (uint64_t)(uintptr_t)&decoy_words;
    } else if (corrupt_field == FIELD_SLOT_SEAL_AND_STATUS_WORDS) {
        d->seal ^= 1u << 9;
        ((kernel_slot_launch_args *)args)->status_words_addr = (uint64_t)(uintptr_t)&decoy_words;
    } else if (corrupt_field == FIELD_STORE_SLOT_ADDR) {
        ((kernel_arg_store_args *)args)->slot_addr = (uint64_t)(uintptr_t)decoy_span;
    } else if (corrupt_field == FIELD_CLEAR_SPAN) {
        kernel_gate_args *g = args;
        assert_true(g->clear_bytes <= sizeof(decoy_span));
        g->clear_base = (uint64_t)(uintptr_t)decoy_span;
    } else if (corrupt_field == FIELD_STATUS_FAULT) {
        kernel_status_args *a = args;
        a->serial += 1;
        a->report_fault = counting_fault;
    } else if (corrupt_field == FIELD_SEAL_AND_HEAD) {
        kernel_graph_packet *p = (kernel_graph_packet *)(uintptr_t)kernel_packet_of(d);
        d->seal ^= 1u << 9;
        p->head_checksum ^= 1u << 9;
    } else if (corrupt_field == FIELD_RUNTIME_BASE) {
        d->runtime_base = (uint64_t)(uintptr_t)decoy_arena;
    } else if (corrupt_field == FIELD_STATUS_WORD) {
        d->status_addr += 64; /* the gate word then names other status words */
    } else if (corrupt_field == FIELD_GATE)
        d->gate_addr = 0;
    else if (corrupt_field == FIELD_SERIAL)
        d->serial += 1;
    else
        d->aic_count += 1;
}

static int corrupting_launch(void *user, platform_stream *stream, int engine, platform_kernel_fn fn,
                             uint32_t block_dim, const void *args, size_t args_size)
{
    const platform_ops *inner = platform_ops_simdev();
    if (corrupt_fn != NULL && fn == corrupt_fn) {
        assert_true(args_size <= sizeof(corrupted_args));
        memcpy(corrupted_args, args, args_size);
        corrupt(corrupted_args);
        args = corrupted_args;
        corrupted++;
    }
    (void)user;
    return inner->launch_kernel(inner->user, stream, engine, fn, block_dim, args, args_size);
}

static void open_corruptible_slots(kfix *k, uint32_t slots)
{
    SimplerKernelCtxControl c = kfix_plan(&image, 1);
    c.arg_slot_count = slots;
    corrupting_ops = *platform_ops_simdev();
    corrupting_ops.launch_kernel = corrupting_launch;
    corrupt_fn = NULL;
    corrupted = 0;
    kfix_open_over(k, &image, &c, &corrupting_ops);
}

static void open_corruptible(kfix *k)
{
    open_corruptible_slots(k, 0);
}

/* ---- a bounded synchronize ---- */

/* Seconds a refused execution may take to end: far above its few
 * milliseconds, and the test never waits on a hang. */
#define SYNC_LIMIT_S 10

typedef struct sync_call {
    simdev_stream_t stream;
    int rc;
    sem_t returned;
} sync_call;

static void *sync_thread(void *arg)
{
    sync_call *c = arg;
    c->rc = simdev_stream_synchronize(c->stream);
    sem_post(&c->returned);
    return NULL;
}

/* simdev_stream_synchronize(stream), failing the process if it has not
 * returned within SYNC_LIMIT_S: a stream that hangs cannot be cleaned
 * up, so the suite exits instead of waiting forever. */
static int synchronize_bounded(simdev_stream_t stream)
{
    static sync_call c;
    pthread_t th;
    struct timespec limit;
    c.stream = stream;
    c.rc = -1;
    assert_int_equal(sem_init(&c.returned, 0, 0), 0);
    assert_int_equal(pthread_create(&th, NULL, sync_thread, &c), 0);
    clock_gettime(CLOCK_REALTIME, &limit);
    limit.tv_sec += SYNC_LIMIT_S;
    while (sem_timedwait(&c.returned, &limit) != 0) {
        if (errno != EINTR) {
            fprintf(stderr, "the stream did not end within %d s: the refused execution hangs\n", SYNC_LIMIT_S);
            fflush(stderr);
            _exit(1);
        }
    }
    assert_int_equal(pthread_join(th, NULL), 0);
    sem_destroy(&c.returned);
    return c.rc;
}

/* The execution ended refused by the seal: the stream faulted, the
 * device status is DEVICE_ERR_DESC_SEAL, no task wrote the output (it
 * keeps its -1 fill), and the context is poisoned (the next launch is
 * refused on the host). */
static void assert_refused_by_the_seal(kfix *k, const kbufs *d)
{
    int runtime = 0;
    assert_int_not_equal(synchronize_bounded(k->stream), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_errors(k->ctx, &runtime, NULL), 0);
    assert_int_equal(runtime, DEVICE_ERR_DESC_SEAL);
    float f[VADD_N];
    assert_int_equal(simdev_memcpy(f, d->f, sizeof(f)), SIMDEV_SUCCESS);
    for (uint32_t i = 0; i < VADD_N; i++)
        if (f[i] != -1.0f)
            fail_msg("element %u of the output was written by a refused execution", i);
    assert_int_equal(kernel_phase(k->ctx), KERNEL_PHASE_POISONED);
    assert_int_equal(kfix_launch(k, d, 1), PTO_RUNTIME_ERR_INVALID_STATE);
}

static void close_refused(kfix *k)
{
    assert_int_equal(finalize_device(k->ctx), 0);
    destroy_device_context(k->ctx);
    assert_int_equal(simdev_stream_destroy(k->stream), SIMDEV_SUCCESS);
}

/* Opens a corruptible context with the inputs uploaded and launches it
 * once with `fn`'s copy of its arguments changed at `field`. */
static void launch_corrupted(kfix *k, kbufs *d, vadd_buffers *v, platform_kernel_fn fn, int field)
{
    open_corruptible(k);
    kbufs_alloc(d);
    kbufs_upload(d, v, 7.0f);
    corrupt_fn = fn;
    corrupt_field = field;
    assert_int_equal(kfix_launch(k, d, 1), 0);
    corrupt_fn = NULL;
    assert_int_equal(corrupted, 1);
}

/* One eager launch whose `fn` copy has `field` changed: refused. */
static void eager_refused(platform_kernel_fn fn, int field)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    launch_corrupted(&k, &d, &v, fn, field);
    assert_refused_by_the_seal(&k, &d);
    kbufs_free(&d);
    close_refused(&k);
}

/* A captured launch whose `fn` copy has `field` changed (the capture
 * records the changed bytes): every replay refused; the first poisons
 * the context. */
static void captured_refused(platform_kernel_fn fn, int field)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    open_corruptible(&k);
    kbufs_alloc(&d);
    corrupt_fn = fn;
    corrupt_field = field;
    simdev_graph_t g = kfix_capture(&k, &d, 1);
    corrupt_fn = NULL;
    assert_int_equal(corrupted, 1);
    kbufs_upload(&d, &v, 7.0f);
    assert_int_equal(simdev_graph_launch(g, k.stream), SIMDEV_SUCCESS);
    assert_refused_by_the_seal(&k, &d);
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    kbufs_free(&d);
    close_refused(&k);
}

/* One corrupted field of one body's copy, refused; eager or captured. */
typedef struct seal_case {
    const char *name;
    platform_kernel_fn fn;
    int field;
    int captured;
} seal_case;

static const seal_case seal_cases[] = {
    {"executor_gate_word_changed_refused", kernel_executor_kernel, FIELD_GATE, 0},
    {"executor_serial_changed_refused", kernel_executor_kernel, FIELD_SERIAL, 0},
    {"executor_core_count_changed_refused", kernel_executor_kernel, FIELD_AIC_COUNT, 0},
    {"scheduler_gate_word_changed_refused", kernel_packet_scheduler_kernel, FIELD_GATE, 0},
    {"scheduler_serial_changed_refused", kernel_packet_scheduler_kernel, FIELD_SERIAL, 0},
    {"scheduler_core_count_changed_refused", kernel_packet_scheduler_kernel, FIELD_AIC_COUNT, 0},
    {"captured_executor_serial_changed_refused", kernel_executor_kernel, FIELD_SERIAL, 1},
    {"captured_scheduler_core_count_changed_refused", kernel_packet_scheduler_kernel, FIELD_AIC_COUNT, 1},
    /* An executor block's copy with its status word changed: the status
     * word and the gate word disagree, so the block reports through its
     * copy's runtime_base, which a single change left as it was. */
    {"executor_status_word_changed_refused", kernel_executor_kernel, FIELD_STATUS_WORD, 0},
    /* The scheduler's copy with its seal and its packet's head checksum
     * both changed: the scheduler trusts no address in its arguments, and
     * the executor blocks, whose copy is sound, still end (not wait for a
     * scheduler that returned). */
    {"scheduler_seal_and_head_changed_refused", kernel_packet_scheduler_kernel, FIELD_SEAL_AND_HEAD, 0},
    {"captured_scheduler_seal_and_head_changed_refused", kernel_packet_scheduler_kernel, FIELD_SEAL_AND_HEAD, 1},
};

#define SEAL_CASES (sizeof(seal_cases) / sizeof(seal_cases[0]))

static void seal_case_refused(void **state)
{
    const seal_case *c = *state;
    if (c->captured)
        captured_refused(c->fn, c->field);
    else
        eager_refused(c->fn, c->field);
}

/* An executor block's copy naming another runtime arena: the block
 * refuses it and raises the refusal flag in the context's frozen arena
 * (its status word and gate word agree on the status words), never in
 * the memory its runtime_base names. */
static void executor_runtime_base_changed_refused(void **state)
{
    static const uint8_t zero[sizeof(decoy_arena)];
    (void)state;
    memset(decoy_arena, 0, sizeof(decoy_arena));
    eager_refused(kernel_executor_kernel, FIELD_RUNTIME_BASE);
    assert_memory_equal(decoy_arena, zero, sizeof(zero));
}

/* The gate's arguments naming another span to clear: the gate refuses
 * them (their seal) and takes nothing, clears nothing, calls nothing;
 * the execution runs no task and its status check fails the stream
 * (the gate is not its execution's). The context is not poisoned: a
 * graph captured before, replayed on a fresh stream (the refused one's
 * fault is sticky), computes the golden. */
static void gate_args_changed_refused(void **state)
{
    static vadd_buffers v;
    static uint8_t fill[sizeof(decoy_span)];
    simdev_stream_t fresh = NULL;
    kfix k;
    kbufs d;
    int runtime = 0;
    (void)state;
    memset(decoy_span, DECOY_FILL, sizeof(decoy_span));
    memset(fill, DECOY_FILL, sizeof(fill));
    open_corruptible(&k);
    kbufs_alloc(&d);
    simdev_graph_t g = kfix_capture(&k, &d, 1);
    kbufs_upload(&d, &v, 7.0f);
    corrupt_fn = kernel_gate_kernel;
    corrupt_field = FIELD_CLEAR_SPAN;
    assert_int_equal(kfix_launch(&k, &d, 1), 0);
    corrupt_fn = NULL;
    assert_int_equal(corrupted, 1);
    assert_int_not_equal(synchronize_bounded(k.stream), SIMDEV_SUCCESS);
    assert_memory_equal(decoy_span, fill, sizeof(fill));
    float f[VADD_N];
    assert_int_equal(simdev_memcpy(f, d.f, sizeof(f)), SIMDEV_SUCCESS);
    for (uint32_t i = 0; i < VADD_N; i++)
        if (f[i] != -1.0f)
            fail_msg("element %u of the output was written by an execution without the gate", i);
    assert_int_equal(simpler_kernel_mode_errors(k.ctx, &runtime, NULL), 0);
    assert_int_equal(runtime, 0);
    assert_int_not_equal(kernel_phase(k.ctx), KERNEL_PHASE_POISONED);
    assert_int_equal(simdev_stream_create(&fresh), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_launch(g, fresh), SIMDEV_SUCCESS);
    assert_int_equal(synchronize_bounded(fresh), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&d, &v, 1), 0);
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(fresh), SIMDEV_SUCCESS);
    kbufs_free(&d);
    close_refused(&k);
}

/* The status check's arguments with another serial and another fault
 * function: the check refuses them (their seal) and neither releases
 * the gate nor calls the function. The execution itself ran (the
 * golden); the gate stays held, so the next launch is refused on the
 * device (-23) and the context poisoned: it fails, it never hangs. */
static void status_args_changed_refused(void **state)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    int runtime = 0;
    (void)state;
    counted_faults = 0;
    launch_corrupted(&k, &d, &v, kernel_status_kernel, FIELD_STATUS_FAULT);
    assert_int_equal(synchronize_bounded(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&d, &v, 1), 0);
    assert_int_equal(counted_faults, 0);
    assert_int_equal(kfix_launch(&k, &d, 1), 0);
    assert_int_not_equal(synchronize_bounded(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_errors(k.ctx, &runtime, NULL), 0);
    assert_int_equal(runtime, KERNEL_GATE_ERR_OVERLAP);
    assert_int_equal(kernel_phase(k.ctx), KERNEL_PHASE_POISONED);
    assert_int_equal(counted_faults, 0);
    kbufs_free(&d);
    close_refused(&k);
}

/* ---- the argument-slot path ---- */

#define SLOT 0u

static int write_step(kfix *k, const kbufs *d)
{
    ChipStorageTaskArgs args;
    vadd_args_make(&args, d->a, d->b, d->f, SIMPLER_ADDRESS_SPACE_DEVICE, 1, 0);
    return simpler_kernel_mode_write_args(k->ctx, SLOT, KFIX_ID, &args, k->stream);
}

/* A slot context with the inputs uploaded and the output at -1; the
 * decoy status words a copy of the context's. */
static void open_slot_refusal(kfix *k, kbufs *d)
{
    static vadd_buffers v;
    open_corruptible_slots(k, 1);
    kbufs_alloc(d);
    kbufs_upload(d, &v, 7.0f);
    memcpy(&decoy_words, kernel_state_of(k->ctx)->status, sizeof(decoy_words));
}

/* The slot launch, eager or (`captured`) captured on k's stream and its
 * graph launched once; returns that graph (NULL when eager), which the
 * caller destroys. */
static simdev_graph_t launch_slot(kfix *k, int captured)
{
    simdev_graph_t g = NULL;
    if (captured)
        assert_int_equal(simdev_capture_begin(k->stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_launch_slot(k->ctx, SLOT, k->stream), 0);
    if (captured) {
        assert_int_equal(simdev_capture_end(k->stream, &g), SIMDEV_SUCCESS);
        assert_int_equal(simdev_graph_launch(g, k->stream), SIMDEV_SUCCESS);
    }
    return g;
}

/* A launch_slot whose scheduler copy has `field` changed, eager or
 * captured (and replayed): refused with -16, no task run, the context
 * poisoned, the chain ended, the decoy status words untouched. */
static void slot_launch_refused(int field, int captured)
{
    kfix k;
    kbufs d;
    kernel_status_words before;
    open_slot_refusal(&k, &d);
    assert_int_equal(write_step(&k, &d), 0);
    memcpy(&before, &decoy_words, sizeof(before));
    corrupt_fn = kernel_slot_scheduler_kernel;
    corrupt_field = field;
    simdev_graph_t g = launch_slot(&k, captured);
    corrupt_fn = NULL;
    assert_int_equal(corrupted, 1);
    assert_refused_by_the_seal(&k, &d);
    assert_memory_equal(&decoy_words, &before, sizeof(before));
    if (g != NULL)
        assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    kbufs_free(&d);
    close_refused(&k);
}

/* The slot launch's slot address changed to a decoy slot holding a
 * sound packet (the real slot emptied): the scheduler refuses its own
 * fields (their seal) and reads neither slot; it reports through the
 * sealed descriptor's status word. */
static void slot_launch_slot_addr_changed_refused(void **state)
{
    kfix k;
    kbufs d;
    static uint8_t before[sizeof(decoy_span)];
    static const uint32_t empty = 0;
    (void)state;
    open_slot_refusal(&k, &d);
    const kernel_state *ks = kernel_state_of(k.ctx);
    uint64_t slot = kernel_arg_slot_addr(k.ctx, ks, SLOT);
    assert_true(ks->arg_slot_stride <= sizeof(decoy_span));
    assert_int_equal(write_step(&k, &d), 0);
    assert_int_equal(synchronize_bounded(k.stream), SIMDEV_SUCCESS);
    /* The decoy holds the slot's sound packet; the slot itself reads
     * empty, so only the decoy could make the execution run. */
    assert_int_equal(simdev_memcpy(decoy_span, (void *)(uintptr_t)slot, ks->arg_slot_stride), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy((void *)(uintptr_t)slot, &empty, sizeof(empty)), SIMDEV_SUCCESS);
    memcpy(before, decoy_span, sizeof(before));
    corrupt_fn = kernel_slot_scheduler_kernel;
    corrupt_field = FIELD_SLOT_ADDR;
    assert_int_equal(simpler_kernel_mode_launch_slot(k.ctx, SLOT, k.stream), 0);
    corrupt_fn = NULL;
    assert_int_equal(corrupted, 1);
    assert_refused_by_the_seal(&k, &d);
    assert_memory_equal(decoy_span, before, sizeof(before));
    kbufs_free(&d);
    close_refused(&k);
}

/* The slot launch's status words changed (its descriptor sound): the
 * refusal goes through the descriptor's status word, never the decoy. */
static void slot_launch_status_words_changed_refused(void **state)
{
    (void)state;
    slot_launch_refused(FIELD_SLOT_STATUS_WORDS, 0);
}

/* The descriptor's seal and the status words both changed: nothing in
 * the scheduler's copy is trusted, it writes nothing (not the decoy) and
 * returns; the dismiss after it ends the execution with its own copy. */
static void slot_launch_seal_and_status_words_changed_dismissed(void **state)
{
    (void)state;
    slot_launch_refused(FIELD_SLOT_SEAL_AND_STATUS_WORDS, 0);
}

static void captured_slot_launch_seal_and_status_words_changed_dismissed(void **state)
{
    (void)state;
    slot_launch_refused(FIELD_SLOT_SEAL_AND_STATUS_WORDS, 1);
}

/* The context's store_refused word, read back from the device. */
static uint32_t store_refused_word(const kfix *k)
{
    uint32_t word = 0;
    const kernel_status_words *w = kernel_state_of(k->ctx)->status;
    assert_int_equal(simdev_memcpy(&word, (const void *)&w->store_refused, sizeof(word)), SIMDEV_SUCCESS);
    return word;
}

/* After a store refused on the device and a synchronize: the context
 * reports -16, is poisoned, and says why (the refused store) when the
 * next launch_slot is refused on the host. */
static void assert_store_refusal_reported(kfix *k)
{
    int runtime = 0;
    assert_int_equal(store_refused_word(k), 1);
    assert_int_equal(simpler_kernel_mode_errors(k->ctx, &runtime, NULL), 0);
    assert_int_equal(runtime, DEVICE_ERR_DESC_SEAL);
    assert_int_equal(kernel_phase(k->ctx), KERNEL_PHASE_POISONED);
    assert_int_equal(simpler_kernel_mode_launch_slot(k->ctx, SLOT, k->stream), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_non_null(strstr(simpler_last_error_message(), "write_args store refused"));
}

/* Every element of the device output still holds `fill`. */
static void assert_output_unchanged(const kbufs *d, float fill)
{
    float f[VADD_N];
    assert_int_equal(simdev_memcpy(f, d->f, sizeof(f)), SIMDEV_SUCCESS);
    for (uint32_t i = 0; i < VADD_N; i++)
        if (f[i] != fill)
            fail_msg("element %u of the output is %g, not %g: a refused execution wrote it", i, (double)f[i],
                     (double)fill);
}

/* write_args whose store copy names a decoy as the slot: the store
 * refuses it (its seal) and writes nothing to the decoy or the slot; its
 * packet's head vouches for the context's status words, so it raises
 * store_refused there and latches -16: the write_args stream itself
 * ends clean, the context is poisoned and the next launch_slot refused
 * on the host. */
static void store_slot_addr_changed_stores_nothing(void **state)
{
    static uint8_t fill[sizeof(decoy_span)];
    kfix k;
    kbufs d;
    (void)state;
    memset(decoy_span, DECOY_FILL, sizeof(decoy_span));
    memset(fill, DECOY_FILL, sizeof(fill));
    open_slot_refusal(&k, &d);
    corrupt_fn = kernel_arg_store_kernel;
    corrupt_field = FIELD_STORE_SLOT_ADDR;
    assert_int_equal(write_step(&k, &d), 0);
    corrupt_fn = NULL;
    assert_int_equal(corrupted, 1);
    assert_int_equal(synchronize_bounded(k.stream), SIMDEV_SUCCESS);
    assert_memory_equal(decoy_span, fill, sizeof(fill));
    assert_store_refusal_reported(&k);
    assert_output_unchanged(&d, -1.0f);
    kbufs_free(&d);
    close_refused(&k);
}

/* A host function that holds its stream until released (or for at most
 * SYNC_LIMIT_S): what follows it on the stream runs only after the host
 * calls that come before the release. */
static sem_t held;

static void hold_stream(void *user)
{
    struct timespec limit;
    (void)user;
    clock_gettime(CLOCK_REALTIME, &limit);
    limit.tv_sec += SYNC_LIMIT_S;
    while (sem_timedwait(&held, &limit) != 0 && errno == EINTR) {
    }
}

/* write_args over other inputs (d2's a and b, the same output) whose
 * store copy is changed, after the slot held a sound packet that ran
 * once: the slot keeps the old packet, and the next launch_slot, eager
 * or a replay captured before, must not run it again. It is refused on
 * the device (the stream held until launch_slot returned, so the host
 * could not see the status first) with -16:
 * the stream faults, the output (reset to -1 before) stays -1, the
 * context reports the refused store. Before store_refused, the old
 * packet ran and wrote the first output again with success. */
static void store_refused_old_packet_not_run(int captured)
{
    static vadd_buffers v, v2;
    kfix k;
    kbufs d, d2;
    open_slot_refusal(&k, &d);
    kbufs_alloc(&d2);
    kbufs_upload(&d2, &v2, 3.0f);
    vadd_buffers_fill(&v, 7.0f); /* the inputs open_slot_refusal uploaded to d */
    assert_int_equal(write_step(&k, &d), 0);
    simdev_graph_t g = launch_slot(&k, captured);
    assert_int_equal(synchronize_bounded(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&d, &v, 1), 0); /* output A */
    assert_int_equal(simdev_memcpy(d.f, v2.f, sizeof(v2.f)), SIMDEV_SUCCESS); /* -1 again */

    /* The store runs after launch_slot returned, so the host cannot have
     * seen its status: the device must refuse. */
    assert_int_equal(sem_init(&held, 0, 0), 0);
    assert_int_equal(simdev_launch_host_func(k.stream, hold_stream, NULL), SIMDEV_SUCCESS);
    ChipStorageTaskArgs args;
    vadd_args_make(&args, d2.a, d2.b, d.f, SIMPLER_ADDRESS_SPACE_DEVICE, 1, 0);
    corrupt_fn = kernel_arg_store_kernel;
    corrupt_field = FIELD_STORE_SLOT_ADDR;
    assert_int_equal(simpler_kernel_mode_write_args(k.ctx, SLOT, KFIX_ID, &args, k.stream), 0);
    corrupt_fn = NULL;
    assert_int_equal(corrupted, 1);
    if (captured)
        assert_int_equal(simdev_graph_launch(g, k.stream), SIMDEV_SUCCESS);
    else
        assert_int_equal(simpler_kernel_mode_launch_slot(k.ctx, SLOT, k.stream), 0);
    assert_int_equal(sem_post(&held), 0);
    assert_int_not_equal(synchronize_bounded(k.stream), SIMDEV_SUCCESS);
    sem_destroy(&held);
    assert_output_unchanged(&d, -1.0f);
    assert_store_refusal_reported(&k);
    if (g != NULL)
        assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    kbufs_free(&d2);
    kbufs_free(&d);
    close_refused(&k);
}

static void store_refused_eager_slot_launch_refused(void **state)
{
    (void)state;
    store_refused_old_packet_not_run(0);
}

static void store_refused_captured_slot_launch_refused(void **state)
{
    (void)state;
    store_refused_old_packet_not_run(1);
}

int main(void)
{
    const struct CMUnitTest others[] = {
        cmocka_unit_test(executor_runtime_base_changed_refused),
        cmocka_unit_test(gate_args_changed_refused),
        cmocka_unit_test(status_args_changed_refused),
        cmocka_unit_test(slot_launch_slot_addr_changed_refused),
        cmocka_unit_test(slot_launch_status_words_changed_refused),
        cmocka_unit_test(slot_launch_seal_and_status_words_changed_dismissed),
        cmocka_unit_test(captured_slot_launch_seal_and_status_words_changed_dismissed),
        cmocka_unit_test(store_slot_addr_changed_stores_nothing),
        cmocka_unit_test(store_refused_eager_slot_launch_refused),
        cmocka_unit_test(store_refused_captured_slot_launch_refused),
    };
    struct CMUnitTest tests[SEAL_CASES + sizeof(others) / sizeof(others[0])];
    for (size_t i = 0; i < SEAL_CASES; i++)
        tests[i] = (struct CMUnitTest){seal_cases[i].name, seal_case_refused, NULL, NULL,
                                         (void *)(uintptr_t)&seal_cases[i]};
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
        tests[SEAL_CASES + i] = others[i];
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
