/* Row-block matmul: c[r, n] = sum_k a[r, k] * w[k, n], over 2-D float32
 * views (any strides). Signature [IN a, IN w, OUT c]; func 0 (AIC). The
 * rows are split across blocks. */
#include "simpler/tensor_view.h"
#include "simpler/orchestration.h"

void kernel_entry(const SimplerKernelArgs *args);

void kernel_entry(const SimplerKernelArgs *args)
{
    if (args->tensor_count < 3)
        return;
    const ChipTensor *a = &args->tensors[0], *w = &args->tensors[1], *c = &args->tensors[2];
    uint32_t kdim = a->shapes[1], ndim = c->shapes[1];
    uint64_t lo, hi;
    simpler_block_range(c->shapes[0], args->block_idx, args->block_dim, &lo, &hi);
    for (uint32_t r = (uint32_t)lo; r < hi; r++) {
        for (uint32_t n = 0; n < ndim; n++) {
            float acc = 0.0f;
            for (uint32_t k = 0; k < kdim; k++)
                acc += *simpler_tensor_at2_f32(a, r, k) * *simpler_tensor_at2_f32(w, k, n);
            *simpler_tensor_at2_f32(c, r, n) = acc;
        }
    }
}
