/* The add_scalar example as an example_case: y = x + s. Canonical inputs
 * (seed 0): x[i] = i % 127, s = 1.25. Other seeds draw x and s. */
#ifndef SIMPLER_EXAMPLE_ADD_SCALAR_GOLDEN_H
#define SIMPLER_EXAMPLE_ADD_SCALAR_GOLDEN_H

#include "../common/example_case.h"
#include "simpler/tensor_view.h"
#include "add_scalar_layout.h"

#define ADD_SCALAR_DEFAULT_ELEMENTS 16384u

static inline void add_scalar_fill(example_case *c, void *const *host, uint64_t seed)
{
    uint64_t n = example_spec_elements(&c->tensors[ADD_SCALAR_ARG_X]);
    float *x = host[ADD_SCALAR_ARG_X], *y = host[ADD_SCALAR_ARG_Y];
    uint64_t state = seed;
    for (uint64_t i = 0; i < n; i++) {
        x[i] = seed == 0 ? (float)(i % 127) : example_rand_f32(&state, -100.0f, 100.0f);
        y[i] = -999.0f; /* a stale output must not pass */
    }
    float s = seed == 0 ? 1.25f : example_rand_f32(&state, -8.0f, 8.0f);
    c->scalars[ADD_SCALAR_SCALAR_S] = simpler_f32_scalar(s);
}

static inline void add_scalar_reference(const example_case *c, void *const *host, float *expected)
{
    uint64_t n = example_spec_elements(&c->tensors[ADD_SCALAR_ARG_X]);
    const float *x = host[ADD_SCALAR_ARG_X];
    float s = simpler_scalar_f32(c->scalars[ADD_SCALAR_SCALAR_S]);
    for (uint64_t i = 0; i < n; i++)
        expected[i] = x[i] + s;
}

/* A case over `elements` float32 values (1..ADD_SCALAR_MAX_ELEMENTS). */
static inline void add_scalar_case_make(example_case *c, uint32_t elements)
{
    example_case z = {0};
    *c = z;
    c->name = "add_scalar";
    c->tensor_count = ADD_SCALAR_TENSOR_COUNT;
    example_tensor_spec x = {"x", SIMPLER_DTYPE_FLOAT32, 0, 1, {elements}};
    example_tensor_spec y = {"y", SIMPLER_DTYPE_FLOAT32, 1, 1, {elements}};
    c->tensors[ADD_SCALAR_ARG_X] = x;
    c->tensors[ADD_SCALAR_ARG_Y] = y;
    c->scalar_count = ADD_SCALAR_SCALAR_COUNT;
    c->output_index = ADD_SCALAR_ARG_Y;
    c->rtol = 1e-6;
    c->atol = 1e-6;
    c->fill = add_scalar_fill;
    c->reference = add_scalar_reference;
}

#endif
