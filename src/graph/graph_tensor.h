/*
 * graph_tensor — checks on ChipTensor descriptors and the byte range a
 * strided view touches (the key the TensorMap uses).
 */
#ifndef SIMPLER_GRAPH_TENSOR_H
#define SIMPLER_GRAPH_TENSOR_H

#include <stdint.h>

#include "common/tensor_view.h"
#include "graph/graph_status.h"
#include "simpler/task_args.h"

/* log2 of tensor_dtype_bytes for a known dtype: every size is a power of
 * two (the unit tests check the table). */
static inline uint32_t graph_dtype_shift(uint32_t dtype)
{
    return (uint32_t)__builtin_ctz(tensor_dtype_bytes(dtype));
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
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT. */
static inline int graph_view_bytes(uint32_t elem, uint64_t extent, uint64_t start_offset, uint64_t buffer_bytes,
                                   uint64_t *first, uint64_t *end)
{
    if (elem == 0 || !graph_view_fits((uint32_t)__builtin_ctz(elem), extent, start_offset, buffer_bytes))
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: the caller's (graph_view_fail) */
    *first = start_offset * elem;
    *end = (start_offset + extent) * elem;
    return 0;
}

/* A whole ChipTensor's checks: reserved bytes zero, buffer_addr +
 * buffer_bytes not wrapping, and its view (tensor_view_extent, then
 * graph_view_bytes inside buffer_bytes). Writes the view's extent and
 * returns 0, or PTO_RUNTIME_ERR_INVALID_ARGUMENT with a reason naming the
 * field as "<what>.<field>". Address spaces are the caller's business. */
int graph_tensor_check(const ChipTensor *t, const char *what, uint64_t *extent);

/* Records that the view of `t` (`extent` elements) does not fit its
 * buffer, naming `what`; returns PTO_RUNTIME_ERR_INVALID_ARGUMENT. */
int graph_view_fail(const ChipTensor *t, const char *what, uint64_t extent);

#endif
