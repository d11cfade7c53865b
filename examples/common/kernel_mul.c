/* Elementwise multiply over 1-D float32 views: out = x * y.
 * Signature [IN, IN, OUT]; used by the vector example as func 2 (AIV). */
#include "simpler/tensor_view.h"
#include "simpler/orchestration.h"

void kernel_entry(const SimplerKernelArgs *args);

void kernel_entry(const SimplerKernelArgs *args)
{
    if (args->tensor_count < 3)
        return;
    const float *x = simpler_tensor_f32(&args->tensors[0]);
    const float *y = simpler_tensor_f32(&args->tensors[1]);
    float *out = simpler_tensor_f32(&args->tensors[2]);
    uint64_t lo, hi;
    simpler_block_range(simpler_tensor_elements(&args->tensors[2]), args->block_idx, args->block_dim, &lo, &hi);
    for (uint64_t i = lo; i < hi; i++)
        out[i] = x[i] * y[i];
}
