/* The tutorial example as an example_case, for `simpler run tutorial`
 * and the tests: out = x * y + x. Canonical inputs (seed 0): x = 3,
 * y = 4, so out = 15 everywhere; other seeds draw x and y. */
#ifndef SIMPLER_EXAMPLE_TUTORIAL_GOLDEN_H
#define SIMPLER_EXAMPLE_TUTORIAL_GOLDEN_H

#include "../common/example_case.h"
#include "tutorial_layout.h"

#define TUTORIAL_DEFAULT_ELEMENTS 4096u

static inline void tutorial_fill(example_case *c, void *const *host, uint64_t seed)
{
    uint64_t n = example_spec_elements(&c->tensors[TUTORIAL_ARG_X]), state = seed;
    float *x = (float *)host[TUTORIAL_ARG_X], *y = (float *)host[TUTORIAL_ARG_Y];
    float *out = (float *)host[TUTORIAL_ARG_OUT];
    for (uint64_t i = 0; i < n; i++) {
        x[i] = seed == 0 ? 3.0f : example_rand_f32(&state, -4.0f, 4.0f);
        y[i] = seed == 0 ? 4.0f : example_rand_f32(&state, -4.0f, 4.0f);
        out[i] = -999.0f; /* a stale output must not pass */
    }
}

/* The kernels' float operations, in their order. */
static inline void tutorial_reference(const example_case *c, void *const *host, float *expected)
{
    uint64_t n = example_spec_elements(&c->tensors[TUTORIAL_ARG_X]);
    const float *x = (const float *)host[TUTORIAL_ARG_X], *y = (const float *)host[TUTORIAL_ARG_Y];
    for (uint64_t i = 0; i < n; i++) {
        float t = x[i] * y[i];
        expected[i] = t + x[i];
    }
}

static inline void tutorial_case_make(example_case *c, uint32_t elements)
{
    static const char *const names[TUTORIAL_TENSOR_COUNT] = {"x", "y", "out"};
    example_case z = {0};
    *c = z;
    c->name = "tutorial";
    c->tensor_count = TUTORIAL_TENSOR_COUNT;
    for (uint32_t i = 0; i < TUTORIAL_TENSOR_COUNT; i++) {
        example_tensor_spec s = {names[i], SIMPLER_DTYPE_FLOAT32, i == TUTORIAL_ARG_OUT, 1, {elements}};
        c->tensors[i] = s;
    }
    c->output_index = TUTORIAL_ARG_OUT;
    c->rtol = 1e-6;
    c->atol = 1e-6;
    c->fill = tutorial_fill;
    c->reference = tutorial_reference;
}

#endif
