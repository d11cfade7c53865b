/*
 * simpler — tensor views for orchestrations and kernels: the element
 * count and density of a ChipTensor, sub-views (a flat chunk, a range of
 * rows, one index of the first dimension), element addresses, the share
 * of a launch block, and float32 scalars in their 64-bit argument slots.
 *
 * Everything here is static inline over plain data (no libsimpler symbol),
 * so an orchestration or a kernel binary may include it and still load
 * into any process. C11 and C++ alike. Pure and thread-safe; no function
 * checks its inputs beyond what its comment says: pass views that
 * simpler_tensor_make made or that these helpers derived from one.
 *
 * A view never copies or reads the tensor's data: orchestrations split a
 * caller tensor into chunks with the view helpers, and the runtime tracks
 * dependencies on exactly the bytes each chunk covers. Kernels receive
 * views whose buffer_addr is a real device address and reach elements
 * with the address helpers.
 */
#ifndef SIMPLER_TENSOR_VIEW_H
#define SIMPLER_TENSOR_VIEW_H

#include <stdint.h>
#include <string.h>

#include "simpler/task_args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Elements of the view: the product of shapes[0..ndims-1] (1 for
 * ndims 0; dims past SIMPLER_MAX_TENSOR_DIMS are ignored). */
static inline uint64_t simpler_tensor_elements(const ChipTensor *t)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < t->ndims && d < SIMPLER_MAX_TENSOR_DIMS; d++)
        n *= t->shapes[d];
    return n;
}

/* 1 when the view is dense row-major (the strides simpler_tensor_make
 * writes: the last is 1, each other the product of the shapes after it),
 * so its elements are contiguous from start_offset; else 0, also for
 * ndims outside 1..SIMPLER_MAX_TENSOR_DIMS. */
static inline int simpler_tensor_is_dense(const ChipTensor *t)
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

/* A 1-D view of `count` contiguous elements of the dense view `t`,
 * starting `first` elements into it. The caller keeps first + count
 * within simpler_tensor_elements(t). */
static inline ChipTensor simpler_tensor_view_flat(const ChipTensor *t, uint64_t first, uint32_t count)
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

/* Rows [row0, row0 + rows) of `t` along its first dimension, the other
 * dimensions whole. The caller keeps row0 + rows <= t->shapes[0]. */
static inline ChipTensor simpler_tensor_view_rows(const ChipTensor *t, uint32_t row0, uint32_t rows)
{
    ChipTensor v = *t;
    v.start_offset = t->start_offset + (uint64_t)row0 * t->strides[0];
    v.shapes[0] = rows;
    return v;
}

/* Index `i` of the first dimension of `t`, that dimension dropped: an
 * (ndims-1)-D view. The caller keeps ndims >= 2 and i < t->shapes[0]. */
static inline ChipTensor simpler_tensor_view_index(const ChipTensor *t, uint32_t i)
{
    ChipTensor v = *t;
    v.start_offset = t->start_offset + (uint64_t)i * t->strides[0];
    v.ndims = t->ndims - 1;
    memset(v.shapes, 0, sizeof(v.shapes));
    memset(v.strides, 0, sizeof(v.strides));
    for (uint32_t d = 1; d < t->ndims && d < SIMPLER_MAX_TENSOR_DIMS; d++) {
        v.shapes[d - 1] = t->shapes[d];
        v.strides[d - 1] = t->strides[d];
    }
    return v;
}

/* ---- kernel side: the runtime hands kernels real device addresses ---- */

/* The first element of a float32 / int32 view. */
static inline float *simpler_tensor_f32(const ChipTensor *t)
{
    return (float *)(uintptr_t)t->buffer_addr + t->start_offset;
}

static inline int32_t *simpler_tensor_i32(const ChipTensor *t)
{
    return (int32_t *)(uintptr_t)t->buffer_addr + t->start_offset;
}

/* Element (i, j) of a 2-D float32 view. */
static inline float *simpler_tensor_at2_f32(const ChipTensor *t, uint32_t i, uint32_t j)
{
    return simpler_tensor_f32(t) + (uint64_t)i * t->strides[0] + (uint64_t)j * t->strides[1];
}

/* The slice [*lo, *hi) of n items that block `block_idx` of `block_dim`
 * owns (block_dim 0 counts as 1), so a kernel launched on several blocks
 * splits its work; the slices of all blocks cover 0..n exactly once. */
static inline void simpler_block_range(uint64_t n, uint32_t block_idx, uint32_t block_dim, uint64_t *lo,
                                       uint64_t *hi)
{
    uint32_t dim = block_dim == 0 ? 1 : block_dim;
    *lo = n * block_idx / dim;
    *hi = n * (block_idx + 1) / dim;
}

/* A float32 in the low 32 bits of a 64-bit scalar argument, and back
 * (the high bits zero). */
static inline float simpler_scalar_f32(uint64_t bits)
{
    uint32_t low = (uint32_t)bits;
    float f;
    memcpy(&f, &low, sizeof(f));
    return f;
}

static inline uint64_t simpler_f32_scalar(float f)
{
    uint32_t low;
    memcpy(&low, &f, sizeof(low));
    return low;
}

#ifdef __cplusplus
}
#endif

#endif /* SIMPLER_TENSOR_VIEW_H */
