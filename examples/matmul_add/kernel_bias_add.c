/* Bias add: y[r, n] = h[r, n] + bias[n], the bias row broadcast over the
 * rows of 2-D float32 views. Signature [IN h, IN bias, OUT y]; func 1
 * (AIV). The rows are split across blocks. */
#include "simpler/tensor_view.h"
#include "simpler/orchestration.h"

void kernel_entry(const SimplerKernelArgs *args);

void kernel_entry(const SimplerKernelArgs *args)
{
    if (args->tensor_count < 3)
        return;
    const ChipTensor *h = &args->tensors[0], *bias = &args->tensors[1], *y = &args->tensors[2];
    const float *b = simpler_tensor_f32(bias);
    uint64_t lo, hi;
    simpler_block_range(y->shapes[0], args->block_idx, args->block_dim, &lo, &hi);
    for (uint32_t r = (uint32_t)lo; r < hi; r++)
        for (uint32_t n = 0; n < y->shapes[1]; n++)
            *simpler_tensor_at2_f32(y, r, n) = *simpler_tensor_at2_f32(h, r, n) + b[(uint64_t)n * bias->strides[0]];
}
