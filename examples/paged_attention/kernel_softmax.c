/* SF (AIV): the online-softmax update for one block. Per head h, over the
 * first `valid` scores (later ones are masked out):
 *   m_new = max(m_old, max_t s[h, t]);  alpha[h] = exp(m_old - m_new)
 *   p[h, t] = exp(s[h, t] - m_new) (0 when masked)
 *   l_new = alpha[h] * l_old + sum_t p[h, t]
 * For the first block there is no old state: m_old = -inf, l_old = 0.
 * Signature [IN s, INOUT m [H], INOUT l [H], OUT p, OUT alpha,
 * SCALAR valid, SCALAR first]. Heads are split across blocks. */
#include <math.h>

#include "simpler/tensor_view.h"
#include "simpler/orchestration.h"

void kernel_entry(const SimplerKernelArgs *args);

static void update_head(const SimplerKernelArgs *args, uint32_t h, uint64_t valid, int first)
{
    const ChipTensor *s = &args->tensors[0], *p = &args->tensors[3];
    float *m = simpler_tensor_f32(&args->tensors[1]) + (uint64_t)h * args->tensors[1].strides[0];
    float *l = simpler_tensor_f32(&args->tensors[2]) + (uint64_t)h * args->tensors[2].strides[0];
    float *alpha = simpler_tensor_f32(&args->tensors[4]) + (uint64_t)h * args->tensors[4].strides[0];
    float m_old = first ? -INFINITY : *m, l_old = first ? 0.0f : *l;
    float m_new = m_old;
    for (uint32_t t = 0; t < valid; t++)
        m_new = fmaxf(m_new, *simpler_tensor_at2_f32(s, h, t));
    float sum = 0.0f;
    for (uint32_t t = 0; t < p->shapes[1]; t++) {
        float e = t < valid ? expf(*simpler_tensor_at2_f32(s, h, t) - m_new) : 0.0f;
        *simpler_tensor_at2_f32(p, h, t) = e;
        sum += e;
    }
    float a = first ? 0.0f : expf(m_old - m_new);
    *alpha = a;
    *m = m_new;
    *l = a * l_old + sum;
}

void kernel_entry(const SimplerKernelArgs *args)
{
    if (args->tensor_count < 5 || args->scalar_count < 2)
        return;
    uint64_t valid = args->scalars[0];
    int first = args->scalars[1] != 0;
    if (valid > args->tensors[0].shapes[1])
        valid = args->tensors[0].shapes[1];
    uint64_t lo, hi;
    simpler_block_range(args->tensors[0].shapes[0], args->block_idx, args->block_dim, &lo, &hi);
    for (uint32_t h = (uint32_t)lo; h < hi; h++)
        update_head(args, h, valid, first);
}
