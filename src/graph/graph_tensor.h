/*
 * graph_tensor — checks on ChipTensor descriptors and the byte range a
 * strided view touches (the key the TensorMap uses).
 */
#ifndef SIMPLER_GRAPH_TENSOR_H
#define SIMPLER_GRAPH_TENSOR_H

#include <stdint.h>

#include "graph/graph_status.h"
#include "simpler/task_args.h"

/* Bytes per element of a SIMPLER_DTYPE_*, 0 for an unknown one. Inline:
 * the image check asks once per tensor argument. */
static inline uint32_t graph_dtype_bytes(uint32_t dtype)
{
    static const uint8_t bytes[SIMPLER_DTYPE_COUNT] = {
        [SIMPLER_DTYPE_FLOAT32] = 4, [SIMPLER_DTYPE_FLOAT16] = 2, [SIMPLER_DTYPE_BFLOAT16] = 2,
        [SIMPLER_DTYPE_INT32] = 4,   [SIMPLER_DTYPE_INT64] = 8,   [SIMPLER_DTYPE_INT8] = 1,
        [SIMPLER_DTYPE_UINT8] = 1,   [SIMPLER_DTYPE_INT16] = 2,   [SIMPLER_DTYPE_FLOAT64] = 8,
    };
    return dtype < SIMPLER_DTYPE_COUNT ? bytes[dtype] : 0;
}

/* Checks a view's shape: known dtype, ndims 1..5, shapes and strides > 0
 * for used dims and zero after, and a span that fits 64 bits. On success
 * writes the elements from its first to its last, inclusive
 * (1 + sum of (shape - 1) * stride), and returns 0; else
 * GRAPH_ERR_INVALID_ARGUMENT. */
int graph_view_extent(uint32_t dtype, uint32_t ndims, const uint32_t *shapes, const uint32_t *strides,
                      uint64_t *extent);

/* log2 of graph_dtype_bytes for a known dtype: every size is a power of
 * two (the unit tests check the table). */
static inline uint32_t graph_dtype_shift(uint32_t dtype)
{
    return (uint32_t)__builtin_ctz(graph_dtype_bytes(dtype));
}

/* Whether elements [start_offset, start_offset + extent) of 1 << shift
 * bytes each end inside buffer_bytes: (start_offset + extent) << shift <=
 * buffer_bytes without wrapping, asked as start_offset + extent <=
 * buffer_bytes >> shift (the same for whole elements), which needs no
 * multiply and cannot wrap. */
static inline int graph_view_fits(uint32_t shift, uint64_t extent, uint64_t start_offset, uint64_t buffer_bytes)
{
    uint64_t elements = buffer_bytes >> shift;
    return start_offset <= elements && extent <= elements - start_offset;
}

/* The bytes a view of `extent` elements of `elem` bytes (a dtype's size)
 * starting at element `start_offset` touches, [*first, *end), checked not
 * to wrap and to end inside buffer_bytes. Returns 0 or
 * GRAPH_ERR_INVALID_ARGUMENT. */
static inline int graph_view_bytes(uint32_t elem, uint64_t extent, uint64_t start_offset, uint64_t buffer_bytes,
                                   uint64_t *first, uint64_t *end)
{
    if (elem == 0 || !graph_view_fits((uint32_t)__builtin_ctz(elem), extent, start_offset, buffer_bytes))
        return GRAPH_ERR_INVALID_ARGUMENT;
    *first = start_offset * elem;
    *end = (start_offset + extent) * elem;
    return GRAPH_OK;
}

/* A whole ChipTensor's checks: reserved bytes zero, buffer_addr +
 * buffer_bytes not wrapping, and its view (graph_view_extent, then
 * graph_view_bytes inside buffer_bytes). Writes the view's extent and
 * returns 0, or GRAPH_ERR_INVALID_ARGUMENT. Address spaces are the
 * caller's business. */
int graph_tensor_check(const ChipTensor *t, uint64_t *extent);

#endif
