/* Kernel 1 (AIC), signature in, out, scalar: z = t * s, s the bits of a
 * float, on this block's share of the elements. */
#include <string.h>

#include "simpler/orchestration.h"

void kernel_entry(const SimplerKernelArgs *args);

static float *at(const ChipTensor *t, uint64_t i)
{
    return (float *)(uintptr_t)t->buffer_addr + t->start_offset + i * t->strides[0];
}

void kernel_entry(const SimplerKernelArgs *args)
{
    if (args->tensor_count != 2 || args->scalar_count != 1)
        return;
    const ChipTensor *t = &args->tensors[0], *z = &args->tensors[1];
    uint32_t bits = (uint32_t)args->scalars[0];
    float s;
    memcpy(&s, &bits, sizeof(s));
    uint64_t n = z->shapes[0];
    uint64_t lo = n * args->block_idx / args->block_dim, hi = n * (args->block_idx + 1) / args->block_dim;
    for (uint64_t i = lo; i < hi; i++)
        *at(z, i) = *at(t, i) * s;
}
