/* Adds a float32 scalar to a 1-D float32 view: out = x + s, with s's bit
 * pattern in the low 32 bits of scalar 0. Signature [IN, OUT, SCALAR];
 * used by the vector example (func 1) and the add_scalar example (func 0). */
#include "simpler/tensor_view.h"
#include "simpler/orchestration.h"

void kernel_entry(const SimplerKernelArgs *args);

void kernel_entry(const SimplerKernelArgs *args)
{
    if (args->tensor_count < 2 || args->scalar_count < 1)
        return;
    const float *x = simpler_tensor_f32(&args->tensors[0]);
    float *out = simpler_tensor_f32(&args->tensors[1]);
    float s = simpler_scalar_f32(args->scalars[0]);
    uint64_t lo, hi;
    simpler_block_range(simpler_tensor_elements(&args->tensors[1]), args->block_idx, args->block_dim, &lo, &hi);
    for (uint64_t i = lo; i < hi; i++)
        out[i] = x[i] + s;
}
