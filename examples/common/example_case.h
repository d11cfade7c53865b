/*
 * example_case — one run of an example program described as data: the
 * tensors and scalars of its fixed argument layout, how to fill fresh
 * inputs, and the golden (a reference computed in plain C on the host).
 *
 * The tests in tests/integration/examples and `simpler run --mode
 * program` share these descriptions, so both check the same goldens.
 * Header-only; host side (never compiled into a callable binary).
 */
#ifndef SIMPLER_EXAMPLE_CASE_H
#define SIMPLER_EXAMPLE_CASE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "simpler/task_args.h"

#define EXAMPLE_MAX_TENSORS 8
#define EXAMPLE_MAX_SCALARS 8

typedef struct example_tensor_spec {
    const char *name;
    uint8_t dtype;
    uint8_t is_output; /* 1: the example writes it, 0: an input */
    uint32_t ndims;
    uint32_t shapes[SIMPLER_MAX_TENSOR_DIMS];
} example_tensor_spec;

typedef struct example_case example_case;

struct example_case {
    const char *name;
    uint32_t tensor_count;
    example_tensor_spec tensors[EXAMPLE_MAX_TENSORS];
    uint32_t scalar_count;
    uint64_t scalars[EXAMPLE_MAX_SCALARS];
    uint32_t output_index; /* the float32 output the golden describes */
    double rtol, atol;     /* |got - want| <= atol + rtol * |want| */
    /* Writes fresh inputs into the host buffers (one per tensor, outputs
     * included) and may set scalars. Seed 0 gives the canonical inputs. */
    void (*fill)(example_case *c, void *const *host, uint64_t seed);
    /* Writes the expected output (elements of output_index) from the
     * inputs in the host buffers. */
    void (*reference)(const example_case *c, void *const *host, float *expected);
};

static inline uint64_t example_spec_elements(const example_tensor_spec *s)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < s->ndims; d++)
        n *= s->shapes[d];
    return n;
}

static inline size_t example_spec_bytes(const example_tensor_spec *s)
{
    return (size_t)(example_spec_elements(s) * simpler_dtype_size(s->dtype));
}

/* A small deterministic generator (xorshift64*), so a seed names a run. */
static inline uint64_t example_rand_next(uint64_t *state)
{
    uint64_t x = *state != 0 ? *state : 0x9E3779B97F4A7C15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* A float uniform in [lo, hi), on a 1/65536 grid so values stay exact. */
static inline float example_rand_f32(uint64_t *state, float lo, float hi)
{
    uint32_t r = (uint32_t)(example_rand_next(state) >> 48);
    return lo + (hi - lo) * ((float)r / 65536.0f);
}

static inline void example_fill_random(float *x, uint64_t n, uint64_t *state, float lo, float hi)
{
    for (uint64_t i = 0; i < n; i++)
        x[i] = example_rand_f32(state, lo, hi);
}

/* Result of comparing an output with its golden. */
typedef struct example_check_result {
    uint64_t elements;
    uint64_t mismatches;
    uint64_t first_bad; /* index of the first mismatch (valid when mismatches > 0) */
    double max_abs_err;
} example_check_result;

/* Compares `got` with `want`; NaN anywhere in `got` is a mismatch. */
static inline example_check_result example_compare(const float *got, const float *want, uint64_t n, double rtol,
                                                   double atol)
{
    example_check_result r = {n, 0, 0, 0.0};
    for (uint64_t i = 0; i < n; i++) {
        double err = fabs((double)got[i] - (double)want[i]);
        int bad = !(err <= atol + rtol * fabs((double)want[i]));
        if (!isnan(err) && err > r.max_abs_err)
            r.max_abs_err = err;
        if (bad && r.mismatches++ == 0)
            r.first_bad = i;
    }
    return r;
}

#endif
