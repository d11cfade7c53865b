/* The paged_attention example as an example_case, with its golden: plain
 * (not online) softmax attention in double precision over the tokens the
 * block table maps, out[b, h] = sum_t softmax(scale * q . K_t) V_t. */
#ifndef SIMPLER_EXAMPLE_PAGED_ATTENTION_GOLDEN_H
#define SIMPLER_EXAMPLE_PAGED_ATTENTION_GOLDEN_H

#include <math.h>

#include "../common/example_case.h"
#include "simpler/tensor_view.h"
#include "paged_attention_layout.h"

/* The default small case: 1 batch, 4 heads, head dim 16, blocks of 16
 * tokens, 8 physical blocks, a 4-entry table and 50 tokens of context
 * (three full blocks and a partial one). */
#define PA_DEFAULT_HEADS 4u
#define PA_DEFAULT_HEAD_DIM 16u
#define PA_DEFAULT_BLOCK_SIZE 16u
#define PA_DEFAULT_BLOCKS 8u
#define PA_DEFAULT_TABLE_WIDTH 4u
#define PA_DEFAULT_CONTEXT_LEN 50u

/* Each batch's table row is a fresh permutation prefix of the physical
 * blocks, so logical order differs from physical order. */
static inline void pa_fill_table(int32_t *table, uint32_t batch, uint32_t width, uint32_t blocks,
                                 uint64_t *state)
{
    int32_t perm[1024];
    uint32_t nb = blocks < 1024 ? blocks : 1024;
    for (uint32_t b = 0; b < batch; b++) {
        for (uint32_t i = 0; i < nb; i++)
            perm[i] = (int32_t)i;
        for (uint32_t i = nb; i-- > 1;) {
            uint32_t r = (uint32_t)(example_rand_next(state) % (i + 1));
            int32_t t = perm[i];
            perm[i] = perm[r];
            perm[r] = t;
        }
        for (uint32_t j = 0; j < width; j++)
            table[(uint64_t)b * width + j] = perm[j % nb];
    }
}

static inline void pa_fill(example_case *c, void *const *host, uint64_t seed)
{
    const example_tensor_spec *t = c->tensors;
    uint64_t state = seed != 0 ? seed : 0x9a9ed;
    example_fill_random(host[PA_ARG_QUERY], example_spec_elements(&t[PA_ARG_QUERY]), &state, -1.0f, 1.0f);
    example_fill_random(host[PA_ARG_KEY_CACHE], example_spec_elements(&t[PA_ARG_KEY_CACHE]), &state, -1.0f, 1.0f);
    example_fill_random(host[PA_ARG_VALUE_CACHE], example_spec_elements(&t[PA_ARG_VALUE_CACHE]), &state, -1.0f,
                        1.0f);
    pa_fill_table(host[PA_ARG_BLOCK_TABLE], t[PA_ARG_BLOCK_TABLE].shapes[0], t[PA_ARG_BLOCK_TABLE].shapes[1],
                  t[PA_ARG_KEY_CACHE].shapes[0], &state);
    float *out = host[PA_ARG_OUT];
    for (uint64_t i = 0; i < example_spec_elements(&t[PA_ARG_OUT]); i++)
        out[i] = -999.0f; /* a stale output must not pass */
}

/* One (batch, head) row of the golden; `scores` holds the context. */
static inline void pa_reference_head(const example_case *c, void *const *host, uint32_t b, uint32_t h,
                                     double *scores, float *out)
{
    const example_tensor_spec *t = c->tensors;
    uint32_t heads = t[PA_ARG_QUERY].shapes[1], dim = t[PA_ARG_QUERY].shapes[2];
    uint32_t bs = t[PA_ARG_KEY_CACHE].shapes[1], width = t[PA_ARG_BLOCK_TABLE].shapes[1];
    const float *q = (const float *)host[PA_ARG_QUERY] + ((uint64_t)b * heads + h) * dim;
    const int32_t *table = (const int32_t *)host[PA_ARG_BLOCK_TABLE] + (uint64_t)b * width;
    double scale = simpler_scalar_f32(c->scalars[PA_SCALAR_SCALE]);
    uint64_t len = c->scalars[PA_SCALAR_CONTEXT_LEN + b];
    double max = -INFINITY, sum = 0.0;
    for (uint64_t i = 0; i < len; i++) {
        uint64_t row = ((uint64_t)table[i / bs] * bs + i % bs) * dim;
        const float *k = (const float *)host[PA_ARG_KEY_CACHE] + row;
        double dot = 0.0;
        for (uint32_t d = 0; d < dim; d++)
            dot += (double)q[d] * k[d];
        scores[i] = scale * dot;
        max = scores[i] > max ? scores[i] : max;
    }
    for (uint64_t i = 0; i < len; i++) {
        scores[i] = exp(scores[i] - max);
        sum += scores[i];
    }
    for (uint32_t d = 0; d < dim; d++) {
        double acc = 0.0;
        for (uint64_t i = 0; i < len; i++) {
            uint64_t row = ((uint64_t)table[i / bs] * bs + i % bs) * dim;
            acc += scores[i] * ((const float *)host[PA_ARG_VALUE_CACHE])[row + d];
        }
        out[d] = (float)(acc / sum);
    }
}

static inline void pa_reference(const example_case *c, void *const *host, float *expected)
{
    static double scores[PA_MAX_BLOCKS_PER_SEQ * PA_MAX_BLOCK_SIZE];
    uint32_t batch = c->tensors[PA_ARG_QUERY].shapes[0], heads = c->tensors[PA_ARG_QUERY].shapes[1];
    uint32_t dim = c->tensors[PA_ARG_QUERY].shapes[2];
    for (uint32_t b = 0; b < batch; b++)
        for (uint32_t h = 0; h < heads; h++)
            pa_reference_head(c, host, b, h, scores, expected + ((uint64_t)b * heads + h) * dim);
}

/* A case with `batch` sequences of context_lens[b] tokens (each at most
 * table_width * block_size) over `blocks` physical blocks; scale is
 * 1/sqrt(head_dim). Sizes within the PA_MAX_* bounds. */
static inline void pa_case_make(example_case *c, uint32_t batch, uint32_t heads, uint32_t head_dim,
                                uint32_t block_size, uint32_t blocks, uint32_t table_width,
                                const uint32_t *context_lens)
{
    example_case z = {0};
    *c = z;
    c->name = "paged_attention";
    c->tensor_count = PA_TENSOR_COUNT;
    example_tensor_spec q = {"query", SIMPLER_DTYPE_FLOAT32, 0, 3, {batch, heads, head_dim}};
    example_tensor_spec k = {"key_cache", SIMPLER_DTYPE_FLOAT32, 0, 3, {blocks, block_size, head_dim}};
    example_tensor_spec v = {"value_cache", SIMPLER_DTYPE_FLOAT32, 0, 3, {blocks, block_size, head_dim}};
    example_tensor_spec bt = {"block_table", SIMPLER_DTYPE_INT32, 0, 2, {batch, table_width}};
    example_tensor_spec out = {"out", SIMPLER_DTYPE_FLOAT32, 1, 3, {batch, heads, head_dim}};
    c->tensors[PA_ARG_QUERY] = q;
    c->tensors[PA_ARG_KEY_CACHE] = k;
    c->tensors[PA_ARG_VALUE_CACHE] = v;
    c->tensors[PA_ARG_BLOCK_TABLE] = bt;
    c->tensors[PA_ARG_OUT] = out;
    c->scalar_count = PA_SCALAR_COUNT;
    c->scalars[PA_SCALAR_SCALE] = simpler_f32_scalar((float)(1.0 / sqrt((double)head_dim)));
    for (uint32_t b = 0; b < batch; b++)
        c->scalars[PA_SCALAR_CONTEXT_LEN + b] = context_lens[b];
    c->output_index = PA_ARG_OUT;
    c->rtol = 1e-3;
    c->atol = 1e-3;
    c->fill = pa_fill;
    c->reference = pa_reference;
}

static inline void pa_case_default(example_case *c)
{
    static const uint32_t lens[1] = {PA_DEFAULT_CONTEXT_LEN};
    pa_case_make(c, 1, PA_DEFAULT_HEADS, PA_DEFAULT_HEAD_DIM, PA_DEFAULT_BLOCK_SIZE, PA_DEFAULT_BLOCKS,
                 PA_DEFAULT_TABLE_WIDTH, lens);
}

#endif
