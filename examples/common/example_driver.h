/*
 * example_driver — runs an example_case through the public program-mode
 * ABI: host buffers for every tensor, optional device copies
 * (device_malloc_ctx + copy_to_device_ctx), the argument block, and the
 * golden check. Shared by tests/integration/examples and the CLI.
 * Host side, header-only; uses only simpler/runtime_c_api.h.
 */
#ifndef SIMPLER_EXAMPLE_DRIVER_H
#define SIMPLER_EXAMPLE_DRIVER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_case.h"
#include "simpler/callable.h"
#include "simpler/runtime_c_api.h"

typedef struct example_buffers {
    void *host[EXAMPLE_MAX_TENSORS];
    void *dev[EXAMPLE_MAX_TENSORS]; /* NULL for HOST runs */
    float *expected;                /* the golden output */
} example_buffers;

/* Frees what example_buffers_create made; `ctx` must be the one used to
 * create device buffers (NULL when there are none). Safe on a partial set. */
static inline void example_buffers_destroy(DeviceContextHandle ctx, example_buffers *b)
{
    for (uint32_t i = 0; i < EXAMPLE_MAX_TENSORS; i++) {
        free(b->host[i]);
        if (b->dev[i] != NULL)
            device_free_ctx(ctx, b->dev[i]);
        b->host[i] = NULL;
        b->dev[i] = NULL;
    }
    free(b->expected);
    b->expected = NULL;
}

/* Allocates host buffers (and device buffers when `ctx` is not NULL) for
 * every tensor of `c`. Returns 0, or PTO_RUNTIME_ERR_OUT_OF_MEMORY with
 * nothing left allocated. */
static inline int example_buffers_create(const example_case *c, DeviceContextHandle ctx, example_buffers *b)
{
    memset(b, 0, sizeof(*b));
    for (uint32_t i = 0; i < c->tensor_count; i++) {
        size_t bytes = example_spec_bytes(&c->tensors[i]);
        b->host[i] = calloc(1, bytes);
        if (ctx != NULL)
            b->dev[i] = device_malloc_ctx(ctx, bytes);
        if (b->host[i] == NULL || (ctx != NULL && b->dev[i] == NULL))
            goto err_free_buffers;
    }
    b->expected = calloc(example_spec_elements(&c->tensors[c->output_index]), sizeof(float));
    if (b->expected == NULL)
        goto err_free_buffers;
    return 0;

err_free_buffers:
    example_buffers_destroy(ctx, b);
    return PTO_RUNTIME_ERR_OUT_OF_MEMORY;
}

/* Fills the argument block of `c` over the buffers: device addresses
 * when the buffers have device copies, else host addresses. */
static inline int example_args_make(const example_case *c, const example_buffers *b, ChipStorageTaskArgs *args)
{
    memset(args, 0, sizeof(*args));
    for (uint32_t i = 0; i < c->tensor_count; i++) {
        const example_tensor_spec *s = &c->tensors[i];
        int dev = b->dev[i] != NULL;
        int rc = simpler_tensor_make(&args->tensors[i], dev ? b->dev[i] : b->host[i], s->dtype, s->ndims,
                                     s->shapes, dev ? SIMPLER_ADDRESS_SPACE_DEVICE : SIMPLER_ADDRESS_SPACE_HOST);
        if (rc != 0)
            return rc;
    }
    args->tensor_count = (int32_t)c->tensor_count;
    memcpy(args->scalars, c->scalars, c->scalar_count * sizeof(uint64_t));
    args->scalar_count = (int32_t)c->scalar_count;
    return 0;
}

/* Fills fresh inputs for `seed`, computes the golden and, for device
 * buffers, copies every tensor (outputs too, so a stale value cannot
 * pass) to the device. When `scalars` is not NULL, the case's
 * c->scalar_count scalars are set to those values after the fill and
 * before the golden: a captured kernel-mode launch replays the packet it
 * captured, scalars included, so a replay's golden must use the
 * captured scalars whatever the seed would draw. Returns 0 or the copy's
 * status. */
static inline int example_inputs_prepare_scalars(DeviceContextHandle ctx, example_case *c, example_buffers *b,
                                                 uint64_t seed, const uint64_t *scalars)
{
    c->fill(c, b->host, seed);
    if (scalars != NULL)
        memcpy(c->scalars, scalars, c->scalar_count * sizeof(uint64_t));
    c->reference(c, b->host, b->expected);
    for (uint32_t i = 0; i < c->tensor_count; i++) {
        if (b->dev[i] == NULL)
            continue;
        int rc = copy_to_device_ctx(ctx, b->dev[i], b->host[i], example_spec_bytes(&c->tensors[i]));
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* example_inputs_prepare_scalars with the scalars the fill draws. The
 * argument block must be made (example_args_make) after this call, so
 * it carries those scalars. */
static inline int example_inputs_prepare(DeviceContextHandle ctx, example_case *c, example_buffers *b,
                                         uint64_t seed)
{
    return example_inputs_prepare_scalars(ctx, c, b, seed, NULL);
}

/* Copies the golden output back from the device when it lives there and
 * compares it with the golden. Returns 0 or the copy's status. */
static inline int example_output_check(DeviceContextHandle ctx, const example_case *c, example_buffers *b,
                                       example_check_result *out)
{
    uint32_t o = c->output_index;
    if (b->dev[o] != NULL) {
        int rc = copy_from_device_ctx(ctx, b->host[o], b->dev[o], example_spec_bytes(&c->tensors[o]));
        if (rc != 0)
            return rc;
    }
    *out = example_compare(b->host[o], b->expected, example_spec_elements(&c->tensors[o]), c->rtol, c->atol);
    return 0;
}

/* Reads a whole image file into 64-byte aligned memory, through the
 * public simpler_callable_load_file (release it with
 * simpler_callable_free). Returns 0, or simpler_callable_load_file's
 * status when it cannot be read or is empty
 * (simpler_last_error_message() says why). */
static inline int example_image_read(const char *path, void **image, size_t *size)
{
    return simpler_callable_load_file(path, image, size);
}

#endif
