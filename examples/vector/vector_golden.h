/* The vector example as an example_case: f = (a+b+1) * (a+b+2).
 * Canonical inputs (seed 0) are a = 2, b = 3, so f = 42 everywhere. */
#ifndef SIMPLER_EXAMPLE_VECTOR_GOLDEN_H
#define SIMPLER_EXAMPLE_VECTOR_GOLDEN_H

#include "../common/example_case.h"
#include "vector_layout.h"

#define VECTOR_DEFAULT_ELEMENTS (128u * 128u)

static inline void vector_fill(example_case *c, void *const *host, uint64_t seed)
{
    uint64_t n = example_spec_elements(&c->tensors[VECTOR_ARG_A]);
    float *a = host[VECTOR_ARG_A], *b = host[VECTOR_ARG_B], *f = host[VECTOR_ARG_F];
    uint64_t state = seed;
    for (uint64_t i = 0; i < n; i++) {
        a[i] = seed == 0 ? 2.0f : example_rand_f32(&state, -4.0f, 4.0f);
        b[i] = seed == 0 ? 3.0f : example_rand_f32(&state, -4.0f, 4.0f);
        f[i] = -999.0f; /* a stale output must not pass */
    }
}

/* The same float operations the kernels perform, in the same order. */
static inline void vector_reference(const example_case *c, void *const *host, float *expected)
{
    uint64_t n = example_spec_elements(&c->tensors[VECTOR_ARG_A]);
    const float *a = host[VECTOR_ARG_A], *b = host[VECTOR_ARG_B];
    for (uint64_t i = 0; i < n; i++) {
        float t = a[i] + b[i];
        expected[i] = (t + 1.0f) * (t + 2.0f);
    }
}

/* A case over `elements` float32 values (1..VECTOR_MAX_ELEMENTS), laid
 * out as a 1-D tensor, or as rows x 128 when `elements` allows. */
static inline void vector_case_make(example_case *c, uint32_t elements)
{
    static const char *const names[VECTOR_TENSOR_COUNT] = {"a", "b", "f"};
    example_case z = {0};
    *c = z;
    c->name = "vector";
    c->tensor_count = VECTOR_TENSOR_COUNT;
    for (uint32_t i = 0; i < VECTOR_TENSOR_COUNT; i++) {
        example_tensor_spec *s = &c->tensors[i];
        s->name = names[i];
        s->dtype = SIMPLER_DTYPE_FLOAT32;
        s->is_output = i == VECTOR_ARG_F;
        s->ndims = elements % 128 == 0 ? 2 : 1;
        s->shapes[0] = s->ndims == 2 ? elements / 128 : elements;
        s->shapes[1] = s->ndims == 2 ? 128 : 0;
    }
    c->output_index = VECTOR_ARG_F;
    c->rtol = 1e-5;
    c->atol = 1e-5;
    c->fill = vector_fill;
    c->reference = vector_reference;
}

#endif
