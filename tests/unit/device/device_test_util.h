/*
 * Shared fixture of the device suites: simdev configured per test, the
 * regions one execution needs (device memory from the platform ops), a
 * kernel table of small float kernels, and a helper that builds a graph
 * from an in-process orchestration, enqueues its chain and waits.
 *
 * Kernels run on simdev's threads, where a cmocka assertion must not
 * fire: they record what they saw in atomics the test asserts on later.
 */
#ifndef SIMPLER_TEST_DEVICE_UTIL_H
#define SIMPLER_TEST_DEVICE_UTIL_H

/* nanosleep (K_SLOW); every suite includes this header first. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture_tensor.h"
#include "simdev_setup.h"
#include "support.h"

#include "device/device_chain.h"
#include "device/device_kernels.h"
#include "device/device_run_desc.h"
#include "device/device_status.h"
#include "device/trace_record.h"
#include "graph/graph_build.h"
#include "graph/requirements.h"
#include "platform/platform_kernel_fault.h"
#include "platform/platform_launch_ops.h"
#include "simpler/simdev.h"

#define DT_AIC 2u
#define DT_AIV 4u
#define DT_WINDOW 512u
#define DT_HEAP_BYTES ((uint64_t)1 << 20)
#define DT_TEMP_BYTES ((uint64_t)64 << 10)
#define DT_DEF_BYTES ((uint64_t)1 << 20)
#define DT_TRACE_RECORDS 1024u
#define DT_CANARY 0x5A

/* func_ids of the test kernels (core type in dt_table). */
enum {
    K_ADD_SCALAR = 1, /* AIV: out = in + (float)s0 */
    K_ADD = 2,        /* AIV: out = a + b */
    K_MUL = 3,        /* AIC: out = a * b */
    K_NOOP_AIV = 4,
    K_NOOP_AIC = 5,
    K_INC = 6,        /* AIV: inout x += 1 */
    K_PROBE = 7,      /* AIV: records its tensors' addresses */
    K_SLOW = 8,       /* AIV: inout x[0] += 1 after sleeping s0 microseconds */
    K_ABSENT = 9      /* never in the table */
};

/* What kernels saw. */
static _Atomic uint32_t dt_seq;              /* order clock */
static _Atomic uint32_t dt_start[DT_WINDOW]; /* dt_seq when task i began, +1 */
static _Atomic uint32_t dt_end[DT_WINDOW];   /* dt_seq when task i ended, +1 */
static _Atomic uint32_t dt_runs;             /* kernel calls */
static _Atomic uint32_t dt_bad_calls;        /* wrong core type, or a tensor not fully written */
static _Atomic uint64_t dt_probe[4];         /* K_PROBE's tensor addresses */
static _Atomic uint64_t dt_core_mask;        /* bit c: a task ran on core c */
static device_kernel_table dt_table;

/* The scheduler's argument block for an inline image: the descriptor,
 * then the image (device_scheduler_kernel restores it from there). The
 * runtime itself uploads images (program mode) or packs them into its
 * own packet (kernel mode); only these tests run inline images. */
static inline size_t dt_chain_scratch_bytes(size_t inline_bytes)
{
    return sizeof(device_run_desc) + inline_bytes;
}

/* The whole chain (device_chain.h) for `desc` with an inline image of
 * `inline_bytes` (equal to desc->inline_bytes; `image` NULL when 0),
 * assembled in `scratch` (8-aligned, >= dt_chain_scratch_bytes). Returns
 * SIMDEV_ERROR_INVALID_PARAM with nothing enqueued for arguments that do
 * not fit together, else what the chain's two enqueues return. */
static inline int dt_chain_enqueue(const platform_launch_ops *ops, const device_streams *streams,
                                   const device_events *events, const device_run_desc *desc, const void *image,
                                   size_t inline_bytes, void *scratch, size_t scratch_bytes)
{
    if (desc == NULL || scratch == NULL || desc->inline_bytes != inline_bytes || (inline_bytes != 0 && image == NULL) ||
        scratch_bytes < dt_chain_scratch_bytes(inline_bytes) || ((uintptr_t)scratch & 7u) != 0)
        return SIMDEV_ERROR_INVALID_PARAM;
    memcpy(scratch, desc, sizeof(*desc));
    if (inline_bytes != 0)
        memcpy((uint8_t *)scratch + sizeof(*desc), image, inline_bytes);
    int rc = device_chain_enqueue_launch(ops, streams, events, device_scheduler_kernel, scratch,
                                         dt_chain_scratch_bytes(inline_bytes), NULL);
    return rc != 0 ? rc : device_chain_enqueue_tail(ops, streams, events);
}

typedef struct dt_fixture {
    const platform_ops *ops;
    platform_launch_ops launch;
    device_streams streams;
    device_events events;
    void *heap, *temp, *runtime, *definition, *scheduler, *trace, *status;
    uint64_t runtime_bytes, scheduler_bytes;
    graph_scratch *scratch;
    const graph *g;
    void *image;        /* host copy of the last built image */
    size_t image_bytes;
    void *args_scratch; /* the chain's scratch */
    size_t args_scratch_bytes;
    device_run_desc desc;
} dt_fixture;

/* ---- kernels ---- */

static inline float *dt_elems(const ChipTensor *t)
{
    return (float *)(uintptr_t)t->buffer_addr + t->start_offset;
}

/* Whether the executor wrote every byte of a tensor it passed: device
 * address space, reserved bytes zero (the kernel ABI's promise). */
static inline int dt_tensor_clean(const ChipTensor *t)
{
    if (t->address_space != SIMPLER_ADDRESS_SPACE_DEVICE || t->reserved0[0] != 0 || t->reserved0[1] != 0)
        return 0;
    for (size_t i = 0; i < sizeof(t->reserved); i++)
        if (t->reserved[i] != 0)
            return 0;
    return 1;
}

/* Records order and core type; `expected` is the kernel's own type. */
static inline void dt_enter(const SimplerKernelArgs *a, uint32_t expected)
{
    uint32_t aic = a->core_id < DT_AIC;
    int clean = 1;
    for (uint32_t i = 0; i < a->tensor_count; i++)
        clean &= dt_tensor_clean(&a->tensors[i]);
    if (a->core_type != expected || aic != (expected == SIMPLER_CORE_TYPE_AIC) || a->block_dim != 1 || !clean)
        atomic_fetch_add(&dt_bad_calls, 1);
    if (a->task_id < DT_WINDOW)
        atomic_store(&dt_start[a->task_id], atomic_fetch_add(&dt_seq, 1) + 1);
    if (a->core_id < 64)
        atomic_fetch_or(&dt_core_mask, 1ull << a->core_id);
    atomic_fetch_add(&dt_runs, 1);
}

static inline void dt_leave(const SimplerKernelArgs *a)
{
    if (a->task_id < DT_WINDOW)
        atomic_store(&dt_end[a->task_id], atomic_fetch_add(&dt_seq, 1) + 1);
}

static inline void k_add_scalar(const SimplerKernelArgs *a)
{
    dt_enter(a, SIMPLER_CORE_TYPE_AIV);
    const float *in = dt_elems(&a->tensors[0]);
    float *out = dt_elems(&a->tensors[1]);
    for (uint32_t i = 0; i < a->tensors[1].shapes[0]; i++)
        out[i] = in[i] + (float)a->scalars[0];
    dt_leave(a);
}

static inline void k_add(const SimplerKernelArgs *a)
{
    dt_enter(a, SIMPLER_CORE_TYPE_AIV);
    const float *x = dt_elems(&a->tensors[0]), *y = dt_elems(&a->tensors[1]);
    float *out = dt_elems(&a->tensors[2]);
    for (uint32_t i = 0; i < a->tensors[2].shapes[0]; i++)
        out[i] = x[i] + y[i];
    dt_leave(a);
}

static inline void k_mul(const SimplerKernelArgs *a)
{
    dt_enter(a, SIMPLER_CORE_TYPE_AIC);
    const float *x = dt_elems(&a->tensors[0]), *y = dt_elems(&a->tensors[1]);
    float *out = dt_elems(&a->tensors[2]);
    for (uint32_t i = 0; i < a->tensors[2].shapes[0]; i++)
        out[i] = x[i] * y[i];
    dt_leave(a);
}

static inline void k_noop_aiv(const SimplerKernelArgs *a)
{
    dt_enter(a, SIMPLER_CORE_TYPE_AIV);
    dt_leave(a);
}

static inline void k_noop_aic(const SimplerKernelArgs *a)
{
    dt_enter(a, SIMPLER_CORE_TYPE_AIC);
    dt_leave(a);
}

static inline void k_inc(const SimplerKernelArgs *a)
{
    dt_enter(a, SIMPLER_CORE_TYPE_AIV);
    float *x = dt_elems(&a->tensors[0]);
    for (uint32_t i = 0; i < a->tensors[0].shapes[0]; i++)
        x[i] += 1.0f;
    dt_leave(a);
}

static inline void k_probe(const SimplerKernelArgs *a)
{
    dt_enter(a, SIMPLER_CORE_TYPE_AIV);
    for (uint32_t i = 0; i < a->tensor_count && i < 4; i++)
        atomic_store(&dt_probe[i], a->tensors[i].buffer_addr);
    dt_leave(a);
}

static inline void k_slow(const SimplerKernelArgs *a)
{
    dt_enter(a, SIMPLER_CORE_TYPE_AIV);
    struct timespec nap = {0, (long)a->scalars[0] * 1000};
    nanosleep(&nap, NULL);
    dt_elems(&a->tensors[0])[0] += 1.0f;
    dt_leave(a);
}

static inline void dt_table_init(void)
{
    memset(&dt_table, 0, sizeof(dt_table));
    dt_table.generation = 7;
    dt_table.entries[K_ADD_SCALAR] = (device_kernel_entry){k_add_scalar, SIMPLER_CORE_TYPE_AIV, 0};
    dt_table.entries[K_ADD] = (device_kernel_entry){k_add, SIMPLER_CORE_TYPE_AIV, 0};
    dt_table.entries[K_MUL] = (device_kernel_entry){k_mul, SIMPLER_CORE_TYPE_AIC, 0};
    dt_table.entries[K_NOOP_AIV] = (device_kernel_entry){k_noop_aiv, SIMPLER_CORE_TYPE_AIV, 0};
    dt_table.entries[K_NOOP_AIC] = (device_kernel_entry){k_noop_aic, SIMPLER_CORE_TYPE_AIC, 0};
    dt_table.entries[K_INC] = (device_kernel_entry){k_inc, SIMPLER_CORE_TYPE_AIV, 0};
    dt_table.entries[K_PROBE] = (device_kernel_entry){k_probe, SIMPLER_CORE_TYPE_AIV, 0};
    dt_table.entries[K_SLOW] = (device_kernel_entry){k_slow, SIMPLER_CORE_TYPE_AIV, 0};
}

static inline void dt_observations_reset(void)
{
    atomic_store(&dt_seq, 0);
    atomic_store(&dt_runs, 0);
    atomic_store(&dt_bad_calls, 0);
    atomic_store(&dt_core_mask, 0);
    for (uint32_t i = 0; i < DT_WINDOW; i++) {
        atomic_store(&dt_start[i], 0);
        atomic_store(&dt_end[i], 0);
    }
    for (int i = 0; i < 4; i++)
        atomic_store(&dt_probe[i], 0);
}

/* ---- device memory ---- */

static inline void *dt_dev_alloc(size_t bytes)
{
    void *p = NULL;
    assert_int_equal(simdev_malloc(&p, bytes), SIMDEV_SUCCESS);
    return p;
}

static inline void dt_upload_floats(void *dev, const float *host, uint32_t n)
{
    assert_int_equal(simdev_memcpy(dev, host, (size_t)n * sizeof(float)), SIMDEV_SUCCESS);
}

static inline void dt_download_floats(float *host, const void *dev, uint32_t n)
{
    assert_int_equal(simdev_memcpy(host, dev, (size_t)n * sizeof(float)), SIMDEV_SUCCESS);
}

/* Asserts that every byte of `bytes` at device `p` equals `value`. */
static inline void dt_assert_device_bytes(const void *p, size_t bytes, uint8_t value)
{
    uint8_t *copy = malloc(bytes);
    assert_non_null(copy);
    assert_int_equal(simdev_memcpy(copy, p, bytes), SIMDEV_SUCCESS);
    size_t bad = 0;
    for (size_t i = 0; i < bytes; i++)
        bad += copy[i] != value;
    free(copy);
    assert_int_equal(bad, 0);
}

/* ---- setup ---- */

static inline int dt_setup(void **state)
{
    if (simdev_setup_configure(1, (uint64_t)64 << 20, DT_AIC, DT_AIV, 2) != 0)
        return -1;

    dt_fixture *f = calloc(1, sizeof(*f));
    if (f == NULL)
        return -1;
    dt_table_init();
    dt_observations_reset();
    f->ops = platform_ops_simdev();
    platform_launch_ops_derive(f->ops, &f->launch);
    platform_stream **streams[] = {&f->streams.caller, &f->streams.aicpu, &f->streams.aicore};
    for (int i = 0; i < 3; i++)
        if (f->ops->stream_create(NULL, streams[i]) != 0)
            return -1;
    platform_event **events[] = {&f->events.start, &f->events.aicore_start, &f->events.aicore_done,
                                 &f->events.aicpu_done, &f->events.serial_tail};
    for (int i = 0; i < 5; i++)
        if (f->ops->event_create(NULL, events[i]) != 0)
            return -1;
    f->runtime_bytes = graph_runtime_arena_bytes(DT_WINDOW);
    f->scheduler_bytes = graph_scheduler_state_bytes(DT_WINDOW);
    void **regions[] = {&f->heap, &f->temp, &f->runtime, &f->definition, &f->scheduler, &f->trace, &f->status};
    uint64_t sizes[] = {DT_HEAP_BYTES, DT_TEMP_BYTES, f->runtime_bytes, DT_DEF_BYTES, f->scheduler_bytes,
                        device_trace_bytes(DT_TRACE_RECORDS), 1024};
    for (int i = 0; i < 7; i++)
        if (f->ops->mem_alloc(NULL, regions[i], sizes[i]) != 0)
            return -1;
    if (simdev_memset(f->heap, DT_CANARY, DT_HEAP_BYTES) != 0 || simdev_memset(f->status, 0x7F, 1024) != 0)
        return -1;
    graph_limits limits;
    if (graph_limits_for_window(DT_WINDOW, DT_HEAP_BYTES, DT_TEMP_BYTES, &limits) != 0 ||
        graph_scratch_create(&limits, &f->scratch) != 0)
        return -1;
    f->image = aligned_alloc(64, DT_DEF_BYTES);
    f->args_scratch_bytes = (dt_chain_scratch_bytes(DT_DEF_BYTES) + 63) / 64 * 64;
    f->args_scratch = aligned_alloc(64, f->args_scratch_bytes);
    if (f->image == NULL || f->args_scratch == NULL)
        return -1;
    *state = f;
    return 0;
}

static inline int dt_teardown(void **state)
{
    dt_fixture *f = *state;
    simdev_capture_mode mode = SIMDEV_CAPTURE_MODE_GLOBAL;
    simdev_capture_thread_exchange_mode(&mode);
    simdev_fault_clear();
    if (f != NULL) {
        graph_scratch_destroy(f->scratch);
        free(f->image);
        free(f->args_scratch);
        free(f);
    }
    /* Finalize waits for the streams and frees every handle and buffer. */
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

#define DT_TEST(f) cmocka_unit_test_setup_teardown(f, dt_setup, dt_teardown)

/* ---- one execution ---- */

/* Builds `entry(args)` into f->g and f->image and fills f->desc for it
 * (kernel mode: the image inline, every region at its full capacity,
 * fault reporting on). */
static inline void dt_build(dt_fixture *f, SimplerOrchEntryFn entry, const ChipStorageTaskArgs *args)
{
    assert_int_equal(graph_build_run(f->scratch, entry, args, &f->g), 0);
    f->image_bytes = graph_image_size(f->g);
    assert_true(f->image_bytes > 0 && f->image_bytes <= DT_DEF_BYTES);
    assert_int_equal(graph_image_write(f->g, f->image, f->image_bytes), 0);
    device_run_desc *d = &f->desc;
    memset(d, 0, sizeof(*d));
    d->version = DEVICE_RUN_DESC_VERSION;
    d->desc_bytes = sizeof(*d);
    d->aic_count = DT_AIC;
    d->aiv_count = DT_AIV;
    d->task_count = f->g->task_count;
    d->inline_bytes = (uint32_t)f->image_bytes;
    d->image_bytes = f->image_bytes;
    d->generation = dt_table.generation;
    d->heap_base = (uintptr_t)f->heap;
    d->heap_bytes = DT_HEAP_BYTES;
    d->temp_base = (uintptr_t)f->temp;
    d->temp_bytes = DT_TEMP_BYTES;
    d->runtime_base = (uintptr_t)f->runtime;
    d->runtime_bytes = f->runtime_bytes;
    d->definition_base = (uintptr_t)f->definition;
    d->definition_bytes = DT_DEF_BYTES;
    d->scheduler_base = (uintptr_t)f->scheduler;
    d->scheduler_bytes = f->scheduler_bytes;
    d->status_addr = (uintptr_t)f->status;
    d->kernels = &dt_table;
    d->report_fault = platform_kernel_report_fault;
}

static inline int dt_enqueue(dt_fixture *f)
{
    return dt_chain_enqueue(&f->launch, &f->streams, &f->events, &f->desc, f->desc.inline_bytes ? f->image : NULL,
                                f->desc.inline_bytes, f->args_scratch, f->args_scratch_bytes);
}

/* Synchronizes the three streams; returns the AICPU stream's code after
 * asserting that the caller and AICore streams synchronize cleanly. */
static inline int dt_sync(dt_fixture *f)
{
    assert_int_equal(f->ops->stream_synchronize(NULL, f->streams.caller), 0);
    assert_int_equal(f->ops->stream_synchronize(NULL, f->streams.aicore), 0);
    return f->ops->stream_synchronize(NULL, f->streams.aicpu);
}

static inline int32_t dt_status(dt_fixture *f)
{
    int32_t status = 0;
    assert_int_equal(simdev_memcpy(&status, f->status, sizeof(status)), SIMDEV_SUCCESS);
    return status;
}

/* dt_build + dt_enqueue + dt_sync, asserting that the chain and the
 * streams succeed; returns the status word. */
static inline int32_t dt_run(dt_fixture *f, SimplerOrchEntryFn entry, const ChipStorageTaskArgs *args)
{
    dt_build(f, entry, args);
    assert_int_equal(dt_enqueue(f), 0);
    assert_int_equal(dt_sync(f), 0);
    return dt_status(f);
}

/* Every task ran exactly once, after all its predecessors ended. */
static inline void dt_assert_order(const graph *g)
{
    assert_int_equal(atomic_load(&dt_runs), g->task_count);
    for (uint32_t i = 0; i < g->task_count; i++) {
        uint32_t began = atomic_load(&dt_start[i]);
        assert_true(began != 0 && atomic_load(&dt_end[i]) > began);
        for (uint32_t k = 0; k < g->tasks[i].fanin_count; k++)
            assert_true(atomic_load(&dt_end[g->fanin[g->tasks[i].fanin_begin + k]]) < began);
    }
    assert_int_equal(atomic_load(&dt_bad_calls), 0);
}

/* y = (x + 1) * (x + 1) over x = tensors[0] and y = tensors[1]: x + 1
 * on AIV into a heap intermediate of x's shape, then squared on AIC. */
static inline int dt_orch_square(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t n = args->tensors[0].shapes[0];
    ChipTensor h;
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &h);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &args->tensors[0]);
    simpler_orch_add_output(orch, &h);
    simpler_orch_add_scalar(orch, 1);
    simpler_orch_submit(orch, K_ADD_SCALAR, SIMPLER_CORE_TYPE_AIV);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &h);
    simpler_orch_add_input(orch, &h);
    simpler_orch_add_output_existing(orch, &args->tensors[1]);
    return simpler_orch_submit(orch, K_MUL, SIMPLER_CORE_TYPE_AIC);
}

/* ---- call arguments ---- */

static inline void dt_args_add(ChipStorageTaskArgs *a, const void *dev, uint32_t n, uint8_t space)
{
    a->tensors[a->tensor_count++] = fixture_tensor((uintptr_t)dev, n, space);
}

#endif
