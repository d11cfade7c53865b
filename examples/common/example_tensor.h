/*
 * example_tensor — views and element access shared by the example
 * orchestrations and kernels. Everything is static inline over plain
 * data, so including it adds no undefined symbol to a callable binary.
 *
 * Orchestrations use the view helpers to split a dense caller tensor into
 * chunks without reading its contents; kernels use the accessors to reach
 * element (i, j) of the view they were given.
 */
#ifndef SIMPLER_EXAMPLE_TENSOR_H
#define SIMPLER_EXAMPLE_TENSOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "simpler/task_args.h"

/* The orchestrations report a malformed call with this device-range code
 * (-1..-999 belong to the program). */
#define EXAMPLE_ERR_BAD_ARGS (-22)

/* Elements of the view (product of its shapes). */
static inline uint64_t example_elements(const ChipTensor *t)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < t->ndims && d < SIMPLER_MAX_TENSOR_DIMS; d++)
        n *= t->shapes[d];
    return n;
}

/* 1 when the view is dense row-major (the strides simpler_tensor_make
 * writes), so its elements are contiguous from start_offset. */
static inline int example_is_dense(const ChipTensor *t)
{
    uint64_t expect = 1;
    if (t->ndims == 0 || t->ndims > SIMPLER_MAX_TENSOR_DIMS)
        return 0;
    for (uint32_t d = t->ndims; d-- > 0;) {
        if (t->strides[d] != expect)
            return 0;
        expect *= t->shapes[d];
    }
    return 1;
}

/* A 1-D view of `count` contiguous elements of dense `t`, starting
 * `first` elements into it. The buffer stays the same, so dependency
 * tracking sees exactly the chunk's byte range. */
static inline ChipTensor example_view_flat(const ChipTensor *t, uint64_t first, uint32_t count)
{
    ChipTensor v = *t;
    v.start_offset = t->start_offset + first;
    v.ndims = 1;
    memset(v.shapes, 0, sizeof(v.shapes));
    memset(v.strides, 0, sizeof(v.strides));
    v.shapes[0] = count;
    v.strides[0] = 1;
    return v;
}

/* Rows [row0, row0 + rows) of `t` along its first dimension. */
static inline ChipTensor example_view_rows(const ChipTensor *t, uint32_t row0, uint32_t rows)
{
    ChipTensor v = *t;
    v.start_offset = t->start_offset + (uint64_t)row0 * t->strides[0];
    v.shapes[0] = rows;
    return v;
}

/* The view `t` with its first dimension dropped, at index `i` of it: a
 * (ndims-1)-D view (ndims must be >= 2). */
static inline ChipTensor example_view_index(const ChipTensor *t, uint32_t i)
{
    ChipTensor v = *t;
    v.start_offset = t->start_offset + (uint64_t)i * t->strides[0];
    v.ndims = t->ndims - 1;
    memset(v.shapes, 0, sizeof(v.shapes));
    memset(v.strides, 0, sizeof(v.strides));
    for (uint32_t d = 1; d < t->ndims; d++) {
        v.shapes[d - 1] = t->shapes[d];
        v.strides[d - 1] = t->strides[d];
    }
    return v;
}

/* ---- kernel side: the runtime hands kernels real device addresses ---- */

static inline float *example_f32(const ChipTensor *t)
{
    return (float *)(uintptr_t)t->buffer_addr + t->start_offset;
}

static inline const int32_t *example_i32(const ChipTensor *t)
{
    return (const int32_t *)(uintptr_t)t->buffer_addr + t->start_offset;
}

/* Element (i, j) of a 2-D float32 view. */
static inline float *example_at2(const ChipTensor *t, uint32_t i, uint32_t j)
{
    return example_f32(t) + (uint64_t)i * t->strides[0] + (uint64_t)j * t->strides[1];
}

/* The slice [*lo, *hi) of n elements that block `block_idx` of
 * `block_dim` owns, so a kernel launched on several blocks splits work. */
static inline void example_block_range(uint64_t n, uint32_t block_idx, uint32_t block_dim, uint64_t *lo,
                                       uint64_t *hi)
{
    uint32_t dim = block_dim == 0 ? 1 : block_dim;
    *lo = n * block_idx / dim;
    *hi = n * (block_idx + 1) / dim;
}

/* A float32 stored in the low 32 bits of a 64-bit scalar. */
static inline float example_scalar_f32(uint64_t bits)
{
    uint32_t low = (uint32_t)bits;
    float f;
    memcpy(&f, &low, sizeof(f));
    return f;
}

static inline uint64_t example_f32_bits(float f)
{
    uint32_t low;
    memcpy(&low, &f, sizeof(low));
    return low;
}

#endif
