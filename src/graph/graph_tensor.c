#include "graph/graph_tensor.h"

#include <stddef.h>
#include <string.h>

#include "common/error.h"
#include "common/task_args_check.h"
#include "graph/graph_status.h"

int graph_tensor_check(const ChipTensor *t, const char *what, uint64_t *extent)
{
    static const uint8_t zero[sizeof(t->reserved)];
    uint64_t first, end;
    /* memcmp, not a byte loop: this runs for every argument a build adds. */
    if (t->reserved0[0] != 0 || t->reserved0[1] != 0 || memcmp(t->reserved, zero, sizeof(zero)) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "%s: a reserved byte is not 0", what);
    if (t->buffer_addr > UINT64_MAX - t->buffer_bytes)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "%s: buffer_addr 0x%llx + buffer_bytes %llu wraps",
                            what, (unsigned long long)t->buffer_addr, (unsigned long long)t->buffer_bytes);
    if (tensor_view_extent(t->dtype, t->ndims, t->shapes, t->strides, extent) != 0)
        return tensor_view_fail(t, what);
    if (graph_view_bytes(tensor_dtype_bytes(t->dtype), *extent, t->start_offset, t->buffer_bytes, &first, &end) != 0)
        return graph_view_fail(t, what, *extent);
    return 0;
}

int graph_view_fail(const ChipTensor *t, const char *what, uint64_t extent)
{
    return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                        "%s.buffer_bytes = %llu: the view (start_offset %llu + extent %llu elements of %u bytes) "
                        "does not fit",
                        what, (unsigned long long)t->buffer_bytes, (unsigned long long)t->start_offset,
                        (unsigned long long)extent, (unsigned)tensor_dtype_bytes(t->dtype));
}
