/* The tutorial's second kernel: out = t + x, elementwise over float32
 * views. Signature [IN, IN, OUT]. */
#include "simpler/orchestration.h"
#include "simpler/tensor_view.h"

void kernel_entry(const SimplerKernelArgs *args);

void kernel_entry(const SimplerKernelArgs *args)
{
    const float *t = simpler_tensor_f32(&args->tensors[0]);
    const float *x = simpler_tensor_f32(&args->tensors[1]);
    float *out = simpler_tensor_f32(&args->tensors[2]);
    uint64_t lo, hi;
    simpler_block_range(simpler_tensor_elements(&args->tensors[2]), args->block_idx, args->block_dim, &lo, &hi);
    for (uint64_t i = lo; i < hi; i++)
        out[i] = t[i] + x[i];
}
