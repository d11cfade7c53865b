/* PV (AIC): o[h, :] = alpha[h] * o[h, :] + sum_t p[h, t] * V[pb, t, :]
 * over the first `valid` tokens of the block, pb read from the block
 * table on the device; the first block starts from o = 0.
 * Signature [IN p [H, BS], IN value_cache, IN table entry, IN alpha [H],
 * INOUT o [H, D], SCALAR valid, SCALAR first]. Heads are split across
 * blocks. */
#include <math.h>

#include "pa_kernel.h"
#include "simpler/orchestration.h"

void kernel_entry(const SimplerKernelArgs *args);

void kernel_entry(const SimplerKernelArgs *args)
{
    if (args->tensor_count < 5 || args->scalar_count < 2)
        return;
    const ChipTensor *p = &args->tensors[0], *cache = &args->tensors[1], *o = &args->tensors[4];
    const float *alpha = simpler_tensor_f32(&args->tensors[3]);
    uint32_t alpha_stride = args->tensors[3].strides[0];
    int64_t pb = pa_physical_block(&args->tensors[2], cache);
    uint64_t valid = args->scalars[0];
    int first = args->scalars[1] != 0;
    if (valid > p->shapes[1])
        valid = p->shapes[1];
    uint64_t lo, hi;
    simpler_block_range(o->shapes[0], args->block_idx, args->block_dim, &lo, &hi);
    for (uint32_t h = (uint32_t)lo; h < hi; h++) {
        float a = first ? 0.0f : alpha[(uint64_t)h * alpha_stride];
        for (uint32_t d = 0; d < o->shapes[1]; d++) {
            float acc = first ? 0.0f : a * *simpler_tensor_at2_f32(o, h, d);
            for (uint32_t t = 0; t < valid; t++)
                acc += pb < 0 ? NAN : *simpler_tensor_at2_f32(p, h, t) * pa_cache_row(cache, pb, t)[d];
            *simpler_tensor_at2_f32(o, h, d) = acc;
        }
    }
}
