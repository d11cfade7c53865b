/* Helpers shared by the paged_attention kernels: the physical block a
 * task's block-table entry names, and row access into the caches. */
#ifndef SIMPLER_EXAMPLE_PA_KERNEL_H
#define SIMPLER_EXAMPLE_PA_KERNEL_H

#include "simpler/tensor_view.h"

/* The physical block of the one-element int32 view `entry`, or -1 when
 * the table names a block outside `cache` (the kernel then writes NaN so
 * the golden check fails loudly instead of reading out of bounds). */
static inline int64_t pa_physical_block(const ChipTensor *entry, const ChipTensor *cache)
{
    int32_t pb = simpler_tensor_i32(entry)[0];
    return pb >= 0 && (uint32_t)pb < cache->shapes[0] ? pb : -1;
}

/* Token `t` of physical block `pb` in a [NB, BS, D] cache: D floats. */
static inline const float *pa_cache_row(const ChipTensor *cache, int64_t pb, uint32_t t)
{
    return simpler_tensor_f32(cache) + (uint64_t)pb * cache->strides[0] + (uint64_t)t * cache->strides[1];
}

#endif
