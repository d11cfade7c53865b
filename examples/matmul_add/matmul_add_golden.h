/* The matmul_add example as an example_case, with its golden: the same
 * layers computed row by row in plain C (float accumulation in the
 * kernels' order). */
#ifndef SIMPLER_EXAMPLE_MATMUL_ADD_GOLDEN_H
#define SIMPLER_EXAMPLE_MATMUL_ADD_GOLDEN_H

#include "../common/example_case.h"
#include "matmul_add_layout.h"

#define MATMUL_ADD_DEFAULT_ROWS 64u
#define MATMUL_ADD_DEFAULT_K 16u
#define MATMUL_ADD_DEFAULT_LAYERS 3u

static inline void matmul_add_fill(example_case *c, void *const *host, uint64_t seed)
{
    const example_tensor_spec *t = c->tensors;
    uint64_t state = seed != 0 ? seed : 0x5eedu;
    uint32_t k = t[MATMUL_ADD_ARG_X].shapes[1];
    /* Weights of size ~1/sqrt(K) keep the activations near 1 per layer. */
    float wscale = 1.0f / (float)(k < 4 ? 1 : k / 4);
    example_fill_random(host[MATMUL_ADD_ARG_X], example_spec_elements(&t[MATMUL_ADD_ARG_X]), &state, -1.0f, 1.0f);
    example_fill_random(host[MATMUL_ADD_ARG_W], example_spec_elements(&t[MATMUL_ADD_ARG_W]), &state, -wscale,
                        wscale);
    example_fill_random(host[MATMUL_ADD_ARG_BIAS], example_spec_elements(&t[MATMUL_ADD_ARG_BIAS]), &state, -1.0f,
                        1.0f);
    float *y = host[MATMUL_ADD_ARG_Y];
    for (uint64_t i = 0; i < example_spec_elements(&t[MATMUL_ADD_ARG_Y]); i++)
        y[i] = -999.0f; /* a stale output must not pass */
}

/* One row through every layer; `row` and `tmp` hold K floats. */
static inline void matmul_add_row(const float *w, const float *bias, uint32_t k, uint32_t layers, float *row,
                                  float *tmp)
{
    for (uint32_t l = 0; l < layers; l++) {
        const float *wl = w + (uint64_t)l * k * k;
        for (uint32_t n = 0; n < k; n++) {
            float acc = 0.0f;
            for (uint32_t i = 0; i < k; i++)
                acc += row[i] * wl[(uint64_t)i * k + n];
            tmp[n] = acc;
        }
        for (uint32_t n = 0; n < k; n++)
            row[n] = tmp[n] + bias[(uint64_t)l * k + n];
    }
}

static inline void matmul_add_reference(const example_case *c, void *const *host, float *expected)
{
    const example_tensor_spec *t = c->tensors;
    uint32_t m = t[MATMUL_ADD_ARG_X].shapes[0], k = t[MATMUL_ADD_ARG_X].shapes[1];
    uint32_t layers = t[MATMUL_ADD_ARG_W].shapes[0];
    const float *x = host[MATMUL_ADD_ARG_X];
    float tmp[MATMUL_ADD_MAX_K];
    for (uint32_t r = 0; r < m; r++) {
        float *row = expected + (uint64_t)r * k;
        for (uint32_t i = 0; i < k; i++)
            row[i] = x[(uint64_t)r * k + i];
        matmul_add_row(host[MATMUL_ADD_ARG_W], host[MATMUL_ADD_ARG_BIAS], k, layers, row, tmp);
    }
}

/* A case of `rows` x `k` inputs through `layers` layers (within the
 * MATMUL_ADD_MAX_* bounds). */
static inline void matmul_add_case_make(example_case *c, uint32_t rows, uint32_t k, uint32_t layers)
{
    example_case z = {0};
    *c = z;
    c->name = "matmul_add";
    c->tensor_count = MATMUL_ADD_TENSOR_COUNT;
    example_tensor_spec x = {"x", SIMPLER_DTYPE_FLOAT32, 0, 2, {rows, k}};
    example_tensor_spec w = {"w", SIMPLER_DTYPE_FLOAT32, 0, 3, {layers, k, k}};
    example_tensor_spec bias = {"bias", SIMPLER_DTYPE_FLOAT32, 0, 2, {layers, k}};
    example_tensor_spec y = {"y", SIMPLER_DTYPE_FLOAT32, 1, 2, {rows, k}};
    c->tensors[MATMUL_ADD_ARG_X] = x;
    c->tensors[MATMUL_ADD_ARG_W] = w;
    c->tensors[MATMUL_ADD_ARG_BIAS] = bias;
    c->tensors[MATMUL_ADD_ARG_Y] = y;
    c->output_index = MATMUL_ADD_ARG_Y;
    c->rtol = 1e-4;
    c->atol = 1e-4;
    c->fill = matmul_add_fill;
    c->reference = matmul_add_reference;
}

#endif
