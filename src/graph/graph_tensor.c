#include "graph/graph_tensor.h"

#include <stddef.h>

#include "graph/graph_status.h"

uint32_t graph_dtype_bytes(uint32_t dtype)
{
    static const uint8_t bytes[SIMPLER_DTYPE_COUNT] = {
        [SIMPLER_DTYPE_FLOAT32] = 4, [SIMPLER_DTYPE_FLOAT16] = 2, [SIMPLER_DTYPE_BFLOAT16] = 2,
        [SIMPLER_DTYPE_INT32] = 4,   [SIMPLER_DTYPE_INT64] = 8,   [SIMPLER_DTYPE_INT8] = 1,
        [SIMPLER_DTYPE_UINT8] = 1,   [SIMPLER_DTYPE_INT16] = 2,   [SIMPLER_DTYPE_FLOAT64] = 8,
    };
    return dtype < SIMPLER_DTYPE_COUNT ? bytes[dtype] : 0;
}

int graph_view_range(uint32_t dtype, uint32_t ndims, const uint32_t *shapes, const uint32_t *strides,
                     uint64_t start_offset, uint64_t buffer_bytes, uint64_t *first, uint64_t *end)
{
    uint32_t elem = graph_dtype_bytes(dtype);
    if (elem == 0 || ndims == 0 || ndims > SIMPLER_MAX_TENSOR_DIMS)
        return GRAPH_ERR_INVALID_ARGUMENT;
    /* The last element's index; every term is below 2^64 because shapes
     * and strides are 32-bit and there are at most five of them. */
    uint64_t last = 0;
    for (uint32_t d = 0; d < SIMPLER_MAX_TENSOR_DIMS; d++) {
        int used = d < ndims;
        if (used != (shapes[d] != 0) || used != (strides[d] != 0))
            return GRAPH_ERR_INVALID_ARGUMENT;
        if (used)
            last += (uint64_t)(shapes[d] - 1) * strides[d];
    }
    /* The view's end in bytes, (start_offset + last + 1) * elem, must not
     * wrap (checked without a division: this runs for every argument of
     * every image the scheduler validates); its start is then below it. */
    uint64_t hi;
    if (__builtin_add_overflow(start_offset, last, &hi) || __builtin_add_overflow(hi, 1, &hi) ||
        __builtin_mul_overflow(hi, (uint64_t)elem, &hi) || hi > buffer_bytes)
        return GRAPH_ERR_INVALID_ARGUMENT;
    *first = start_offset * elem;
    *end = hi;
    return GRAPH_OK;
}

int graph_tensor_check(const ChipTensor *t, uint64_t *first, uint64_t *end)
{
    if (t->reserved0[0] != 0 || t->reserved0[1] != 0)
        return GRAPH_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < sizeof(t->reserved); i++)
        if (t->reserved[i] != 0)
            return GRAPH_ERR_INVALID_ARGUMENT;
    if (t->buffer_addr > UINT64_MAX - t->buffer_bytes)
        return GRAPH_ERR_INVALID_ARGUMENT;
    return graph_view_range(t->dtype, t->ndims, t->shapes, t->strides, t->start_offset, t->buffer_bytes,
                            first, end);
}
