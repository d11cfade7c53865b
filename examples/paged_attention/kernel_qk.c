/* QK (AIC): s[h, t] = scale * sum_d q[h, d] * K[pb, t, d] for every token
 * t of the block, pb read from the block table on the device.
 * Signature [IN q [H, D], IN key_cache, IN table entry, OUT s [H, BS],
 * SCALAR scale]. Heads are split across blocks. */
#include <math.h>

#include "pa_kernel.h"
#include "simpler/orchestration.h"

void kernel_entry(const SimplerKernelArgs *args);

void kernel_entry(const SimplerKernelArgs *args)
{
    if (args->tensor_count < 4 || args->scalar_count < 1)
        return;
    const ChipTensor *q = &args->tensors[0], *cache = &args->tensors[1], *s = &args->tensors[3];
    float scale = simpler_scalar_f32(args->scalars[0]);
    int64_t pb = pa_physical_block(&args->tensors[2], cache);
    uint32_t dim = q->shapes[1];
    uint64_t lo, hi;
    simpler_block_range(s->shapes[0], args->block_idx, args->block_dim, &lo, &hi);
    for (uint32_t h = (uint32_t)lo; h < hi; h++) {
        for (uint32_t t = 0; t < s->shapes[1]; t++) {
            float acc = 0.0f;
            if (pb < 0) {
                acc = NAN;
            } else {
                const float *k = pa_cache_row(cache, pb, t);
                for (uint32_t d = 0; d < dim; d++)
                    acc += *simpler_tensor_at2_f32(q, h, d) * k[d];
            }
            *simpler_tensor_at2_f32(s, h, t) = scale * acc;
        }
    }
}
