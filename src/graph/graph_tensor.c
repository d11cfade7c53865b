#include "graph/graph_tensor.h"

#include <stddef.h>
#include <string.h>

#include "graph/graph_status.h"

int graph_tensor_check(const ChipTensor *t, uint64_t *extent)
{
    static const uint8_t zero[sizeof(t->reserved)];
    uint64_t first, end;
    /* memcmp, not a byte loop: this runs for every argument a build adds. */
    if (t->reserved0[0] != 0 || t->reserved0[1] != 0 || memcmp(t->reserved, zero, sizeof(zero)) != 0)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if (t->buffer_addr > UINT64_MAX - t->buffer_bytes)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if (tensor_view_extent(t->dtype, t->ndims, t->shapes, t->strides, extent) != 0)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    return graph_view_bytes(tensor_dtype_bytes(t->dtype), *extent, t->start_offset, t->buffer_bytes, &first, &end);
}
