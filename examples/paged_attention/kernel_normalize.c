/* FN (AIV): out[h, :] = o[h, :] / l[h], the final softmax normalization.
 * Signature [IN o [H, D], IN l [H], OUT out [H, D]]. Heads are split
 * across blocks. */
#include "simpler/tensor_view.h"
#include "simpler/orchestration.h"

void kernel_entry(const SimplerKernelArgs *args);

void kernel_entry(const SimplerKernelArgs *args)
{
    if (args->tensor_count < 3)
        return;
    const ChipTensor *o = &args->tensors[0], *out = &args->tensors[2];
    const float *l = simpler_tensor_f32(&args->tensors[1]);
    uint32_t l_stride = args->tensors[1].strides[0];
    uint64_t lo, hi;
    simpler_block_range(out->shapes[0], args->block_idx, args->block_dim, &lo, &hi);
    for (uint32_t h = (uint32_t)lo; h < hi; h++) {
        float inv = 1.0f / l[(uint64_t)h * l_stride];
        for (uint32_t d = 0; d < out->shapes[1]; d++)
            *simpler_tensor_at2_f32(out, h, d) = *simpler_tensor_at2_f32(o, h, d) * inv;
    }
}
