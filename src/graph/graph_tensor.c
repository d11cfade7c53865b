#include "graph/graph_tensor.h"

#include <stddef.h>
#include <string.h>

#include "graph/graph_status.h"

int graph_view_extent(uint32_t dtype, uint32_t ndims, const uint32_t *shapes, const uint32_t *strides,
                      uint64_t *extent)
{
    if (graph_dtype_bytes(dtype) == 0 || ndims == 0 || ndims > SIMPLER_MAX_TENSOR_DIMS)
        return GRAPH_ERR_INVALID_ARGUMENT;
    /* One more than the last element's index. A term (shape - 1) * stride
     * of two 32-bit numbers fits 64 bits, but five of them summed may
     * not: a sum that wrapped would make a huge view look small. */
    uint64_t span = 1;
    for (uint32_t d = 0; d < SIMPLER_MAX_TENSOR_DIMS; d++) {
        int used = d < ndims;
        if (used != (shapes[d] != 0) || used != (strides[d] != 0))
            return GRAPH_ERR_INVALID_ARGUMENT;
        if (used && __builtin_add_overflow(span, (uint64_t)(shapes[d] - 1) * strides[d], &span))
            return GRAPH_ERR_INVALID_ARGUMENT;
    }
    *extent = span;
    return GRAPH_OK;
}

int graph_tensor_check(const ChipTensor *t, uint64_t *extent)
{
    static const uint8_t zero[sizeof(t->reserved)];
    uint64_t first, end;
    /* memcmp, not a byte loop: this runs for every argument a build adds. */
    if (t->reserved0[0] != 0 || t->reserved0[1] != 0 || memcmp(t->reserved, zero, sizeof(zero)) != 0)
        return GRAPH_ERR_INVALID_ARGUMENT;
    if (t->buffer_addr > UINT64_MAX - t->buffer_bytes)
        return GRAPH_ERR_INVALID_ARGUMENT;
    if (graph_view_extent(t->dtype, t->ndims, t->shapes, t->strides, extent) != GRAPH_OK)
        return GRAPH_ERR_INVALID_ARGUMENT;
    return graph_view_bytes(graph_dtype_bytes(t->dtype), *extent, t->start_offset, t->buffer_bytes, &first, &end);
}
