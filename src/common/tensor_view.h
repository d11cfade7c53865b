/*
 * tensor_view — the one dtype-size table and the one view-extent formula.
 *
 * Every check of a ChipTensor, on the host (task_args_check,
 * graph_tensor_check) and on the device (graph_image_check), asks these,
 * so they cannot disagree on what a view covers. Pure and thread-safe.
 */
#ifndef SIMPLER_COMMON_TENSOR_VIEW_H
#define SIMPLER_COMMON_TENSOR_VIEW_H

#include <stdint.h>

#include "simpler/task_args.h"

/* Bytes per element of a SIMPLER_DTYPE_*, 0 for an unknown one. Inline:
 * the image check asks once per tensor argument. simpler_dtype_size is
 * this table. */
static inline uint32_t tensor_dtype_bytes(uint32_t dtype)
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
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT. */
int tensor_view_extent(uint32_t dtype, uint32_t ndims, const uint32_t *shapes, const uint32_t *strides,
                       uint64_t *extent);

#endif
