/* Kernel 0 (AIV), signature in, in, out: t = x + y on this block's share
 * of the elements. */
#include "simpler/orchestration.h"

void kernel_entry(const SimplerKernelArgs *args);

static float *at(const ChipTensor *t, uint64_t i)
{
    return (float *)(uintptr_t)t->buffer_addr + t->start_offset + i * t->strides[0];
}

void kernel_entry(const SimplerKernelArgs *args)
{
    if (args->tensor_count != 3)
        return;
    const ChipTensor *x = &args->tensors[0], *y = &args->tensors[1], *t = &args->tensors[2];
    uint64_t n = t->shapes[0];
    uint64_t lo = n * args->block_idx / args->block_dim, hi = n * (args->block_idx + 1) / args->block_dim;
    for (uint64_t i = lo; i < hi; i++)
        *at(t, i) = *at(x, i) + *at(y, i);
}
