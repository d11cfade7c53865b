/* Shared by the kernel-mode integration suites: a kernel context over the
 * "vadd" image (f = 2 * (a + b + R) in R + 2 tasks), sized for graphs of
 * up to `rounds_max` rounds, with device buffers the caller owns. */
#ifndef SIMPLER_TESTS_KERNEL_FIXTURE_H
#define SIMPLER_TESTS_KERNEL_FIXTURE_H

#include "../program/program_fixture.h"
#include "context/context.h"

#define KFIX_ID 3

typedef struct kfix {
    DeviceContextHandle ctx;
    simdev_stream_t stream;
    SimplerKernelCtxControl configure;
} kfix;

/* Caller-owned device buffers of one call. */
typedef struct kbufs {
    void *a, *b, *f;
} kbufs;

static inline void kbufs_alloc(kbufs *d)
{
    size_t bytes = VADD_N * sizeof(float);
    assert_int_equal(simdev_malloc(&d->a, bytes), SIMDEV_SUCCESS);
    assert_int_equal(simdev_malloc(&d->b, bytes), SIMDEV_SUCCESS);
    assert_int_equal(simdev_malloc(&d->f, bytes), SIMDEV_SUCCESS);
}

static inline void kbufs_free(kbufs *d)
{
    assert_int_equal(simdev_free(d->a), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(d->b), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(d->f), SIMDEV_SUCCESS);
}

/* Copies fresh inputs (seeded) into the device buffers, in place. */
static inline void kbufs_upload(const kbufs *d, vadd_buffers *v, float seed)
{
    vadd_buffers_fill(v, seed);
    assert_int_equal(simdev_memcpy(d->a, v->a, sizeof(v->a)), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy(d->b, v->b, sizeof(v->b)), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy(d->f, v->f, sizeof(v->f)), SIMDEV_SUCCESS);
}

/* 0 when the device output matches the golden for `rounds`. */
static inline int kbufs_check(const kbufs *d, vadd_buffers *v, uint64_t rounds)
{
    assert_int_equal(simdev_memcpy(v->f, d->f, sizeof(v->f)), SIMDEV_SUCCESS);
    return vadd_check(v, rounds);
}

/* The CONFIGURE for vadd graphs of up to rounds_max rounds over tensors
 * in `space`. */
/* What the vadd graph of `rounds` needs, its tensors in `space`. */
static inline SimplerGraphRequirements kfix_requirements(const vadd_image *img, uint64_t rounds, uint8_t space)
{
    SimplerGraphRequirements req;
    ChipStorageTaskArgs args;
    static vadd_buffers v;
    vadd_args_make(&args, v.a, v.b, v.f, space, rounds, 0);
    assert_int_equal(simpler_graph_requirements(img->bytes, img->size, &args, &req), 0);
    return req;
}

/* The tasks of the vadd graph of `rounds` (rounds + 2). */
static inline uint64_t kfix_task_count(const vadd_image *img, uint64_t rounds)
{
    return kfix_requirements(img, rounds, SIMPLER_ADDRESS_SPACE_DEVICE).task_count;
}

static inline SimplerKernelCtxControl kfix_plan_space(const vadd_image *img, uint64_t rounds_max, uint8_t space)
{
    SimplerGraphRequirements req = kfix_requirements(img, rounds_max, space);
    SimplerKernelCtxControl c;
    assert_int_equal(simpler_kernel_plan_capacity(&req, 1, &c), 0);
    return c;
}

static inline SimplerKernelCtxControl kfix_plan(const vadd_image *img, uint64_t rounds_max)
{
    return kfix_plan_space(img, rounds_max, SIMPLER_ADDRESS_SPACE_DEVICE);
}

static inline SimplerKernelCtxControl kfix_freeze(void)
{
    SimplerKernelCtxControl c;
    memset(&c, 0, sizeof(c));
    c.abi_version = SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION;
    c.struct_size = sizeof(c);
    c.action = SIMPLER_KERNEL_CTX_FREEZE;
    return c;
}

/* configure, init, prepare KFIX_ID, freeze: a context ready to launch,
 * over the platform table `ops` (NULL: simdev's own). */
static inline void kfix_open_over(kfix *k, const vadd_image *img, const SimplerKernelCtxControl *configure,
                                  const platform_ops *ops)
{
    SimplerKernelCtxControl freeze = kfix_freeze();
    k->configure = *configure;
    k->ctx = create_device_context();
    assert_non_null(k->ctx);
    if (ops != NULL)
        assert_int_equal(context_set_platform_ops(k->ctx, ops), 0);
    assert_int_equal(simdev_stream_create(&k->stream), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_ctx_control(k->ctx, configure), 0);
    assert_int_equal(simpler_kernel_mode_init(k->ctx, 0, NULL, 1), 0);
    assert_int_equal(simpler_kernel_mode_prepare_callable(k->ctx, KFIX_ID, img->bytes, img->size, k->stream), 0);
    assert_int_equal(simpler_kernel_mode_ctx_control(k->ctx, &freeze), 0);
}

static inline void kfix_open(kfix *k, const vadd_image *img, const SimplerKernelCtxControl *configure)
{
    kfix_open_over(k, img, configure, NULL);
}

/* kfix_open with the CONFIGURE kfix_plan gives for `rounds_max`. */
static inline void kfix_open_plan(kfix *k, const vadd_image *img, uint64_t rounds_max)
{
    SimplerKernelCtxControl c = kfix_plan(img, rounds_max);
    kfix_open(k, img, &c);
}

static inline void kfix_close(kfix *k)
{
    assert_int_equal(simdev_stream_synchronize(k->stream), SIMDEV_SUCCESS);
    assert_int_equal(finalize_device(k->ctx), 0);
    destroy_device_context(k->ctx);
    assert_int_equal(simdev_stream_destroy(k->stream), SIMDEV_SUCCESS);
}

static inline int kfix_launch(kfix *k, const kbufs *d, uint64_t rounds)
{
    ChipStorageTaskArgs args;
    vadd_args_make(&args, d->a, d->b, d->f, SIMPLER_ADDRESS_SPACE_DEVICE, rounds, 0);
    return simpler_kernel_mode_launch(k->ctx, KFIX_ID, &args, k->stream);
}

/* One eager launch of `rounds` over `d`, synchronized: the device output
 * matches the golden for the inputs last uploaded from `v`. */
static inline void kfix_assert_golden(kfix *k, const kbufs *d, vadd_buffers *v, uint64_t rounds)
{
    assert_int_equal(kfix_launch(k, d, rounds), 0);
    assert_int_equal(simdev_stream_synchronize(k->stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(d, v, rounds), 0);
}

/* The graph of one launch of `rounds` over `d`, captured in GLOBAL mode
 * on the context's stream; the caller destroys it. */
static inline simdev_graph_t kfix_capture(kfix *k, const kbufs *d, uint64_t rounds)
{
    simdev_graph_t captured = NULL;
    assert_int_equal(simdev_capture_begin(k->stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(kfix_launch(k, d, rounds), 0);
    assert_int_equal(simdev_capture_end(k->stream, &captured), SIMDEV_SUCCESS);
    return captured;
}

/* The simdev counters that must not move across a launch, a
 * write_args or a launch_slot: no allocation, free, synchronize, query,
 * capture query, stream or event creation. */
static inline void kfix_assert_no_forbidden_calls(const simdev_counters *before, const simdev_counters *after)
{
    assert_int_equal(after->malloc_calls, before->malloc_calls);
    assert_int_equal(after->free_calls, before->free_calls);
    assert_int_equal(after->synchronize_calls, before->synchronize_calls);
    assert_int_equal(after->capture_query_calls, before->capture_query_calls);
    assert_int_equal(after->query_calls, before->query_calls);
    assert_int_equal(after->stream_create_calls, before->stream_create_calls);
    assert_int_equal(after->event_create_calls, before->event_create_calls);
}

#endif
