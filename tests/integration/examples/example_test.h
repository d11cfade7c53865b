/*
 * example_test — helpers for the example tests: a program-mode context
 * with one example image registered, and one checked run of an
 * example_case with DEVICE tensors (device_malloc_ctx + copy_to_device_ctx)
 * or HOST tensors, through the public ABI only.
 */
#ifndef SIMPLER_TEST_EXAMPLE_TEST_H
#define SIMPLER_TEST_EXAMPLE_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include "../../../examples/common/example_driver.h"
#include "../../../examples/common/example_tensor.h"
#include "simpler/runtime_c_api.h"
#include "support.h"

#define EXAMPLE_TEST_ID 0
#define EXAMPLE_TEST_DEVICE 0
#define EXAMPLE_HOST 0
#define EXAMPLE_DEVICE 1

typedef struct example_fixture {
    DeviceContextHandle ctx;
    void *image;
    size_t size;
} example_fixture;

/* The image <build>/examples/<name>.callable; the caller releases it
 * with simpler_callable_free. */
static inline void example_image_load(const char *name, void **image, size_t *size)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/examples/%s.callable", SIMPLER_BINARY_DIR, name);
    if (example_image_read(path, image, size) != 0)
        fail_msg("cannot read %s (is the example built?)", path);
}

static inline example_fixture *example_fixture_open(const char *name)
{
    example_fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    example_image_load(name, &f->image, &f->size);
    f->ctx = create_device_context();
    assert_non_null(f->ctx);
    assert_int_equal(simpler_init(f->ctx, EXAMPLE_TEST_DEVICE, NULL), 0);
    assert_int_equal(simpler_register_callable(f->ctx, EXAMPLE_TEST_ID, f->image, f->size), 0);
    return f;
}

static inline void example_fixture_close(example_fixture *f)
{
    assert_int_equal(finalize_device(f->ctx), 0);
    destroy_device_context(f->ctx);
    simpler_callable_free(f->image);
    free(f);
}

/* Buffers and an argument block for repeated runs of one case. */
typedef struct example_run {
    example_buffers b;
    ChipStorageTaskArgs *args;
    int device;
} example_run;

static inline example_run *example_run_create(example_fixture *f, const example_case *c, int device)
{
    example_run *r = calloc(1, sizeof(*r));
    assert_non_null(r);
    r->args = calloc(1, sizeof(*r->args));
    assert_non_null(r->args);
    r->device = device;
    assert_int_equal(example_buffers_create(c, device ? f->ctx : NULL, &r->b), 0);
    return r;
}

static inline void example_run_destroy(example_fixture *f, example_run *r)
{
    example_buffers_destroy(r->device ? f->ctx : NULL, &r->b);
    free(r->args);
    free(r);
}

static inline float *example_run_output(const example_case *c, example_run *r)
{
    return r->b.host[c->output_index];
}

/* Fresh inputs from `seed`, one simpler_run, the output compared with
 * the golden; fails the test on any error or mismatch. */
static inline example_check_result example_run_checked(example_fixture *f, example_case *c, example_run *r,
                                                       uint64_t seed)
{
    example_check_result res = {0, 0, 0, 0.0};
    assert_int_equal(example_inputs_prepare(f->ctx, c, &r->b, seed), 0);
    assert_int_equal(example_args_make(c, &r->b, r->args), 0);
    assert_int_equal(simpler_run(f->ctx, EXAMPLE_TEST_ID, r->args, NULL), 0);
    assert_int_equal(example_output_check(f->ctx, c, &r->b, &res), 0);
    if (res.mismatches != 0)
        fail_msg("%s (%s tensors, seed %llu): %llu of %llu elements differ; first at %llu: got %g want %g",
                 c->name, r->device ? "DEVICE" : "HOST", (unsigned long long)seed,
                 (unsigned long long)res.mismatches, (unsigned long long)res.elements,
                 (unsigned long long)res.first_bad, (double)example_run_output(c, r)[res.first_bad],
                 (double)r->b.expected[res.first_bad]);
    return res;
}

/* One checked run on a fresh context. */
static inline void example_case_check(const char *name, example_case *c, int device, uint64_t seed)
{
    example_fixture *f = example_fixture_open(name);
    example_run *r = example_run_create(f, c, device);
    example_run_checked(f, c, r, seed);
    example_run_destroy(f, r);
    example_fixture_close(f);
}

/* The argument block of `c` over fake DEVICE addresses (never touched):
 * enough for the host-only sizing entry, which runs the orchestration. */
static inline int example_requirements(const char *name, const example_case *c, SimplerGraphRequirements *out)
{
    void *image = NULL;
    size_t size = 0;
    ChipStorageTaskArgs *args = calloc(1, sizeof(*args));
    assert_non_null(args);
    example_image_load(name, &image, &size);
    for (uint32_t i = 0; i < c->tensor_count; i++) {
        const example_tensor_spec *s = &c->tensors[i];
        void *fake = (void *)(uintptr_t)(0x100000000ull * (i + 1));
        assert_int_equal(simpler_tensor_make(&args->tensors[i], fake, s->dtype, s->ndims, s->shapes,
                                             SIMPLER_ADDRESS_SPACE_DEVICE),
                         0);
    }
    args->tensor_count = (int32_t)c->tensor_count;
    for (uint32_t i = 0; i < c->scalar_count; i++)
        args->scalars[i] = c->scalars[i];
    args->scalar_count = (int32_t)c->scalar_count;
    int rc = simpler_graph_requirements(image, size, args, out);
    simpler_callable_free(image);
    free(args);
    return rc;
}

#endif
