/*
 * graph_tensor — checks on ChipTensor descriptors and the byte range a
 * strided view touches (the key the TensorMap uses).
 */
#ifndef SIMPLER_GRAPH_TENSOR_H
#define SIMPLER_GRAPH_TENSOR_H

#include <stdint.h>

#include "simpler/task_args.h"

/* Bytes per element of a SIMPLER_DTYPE_*, 0 for an unknown one. */
uint32_t graph_dtype_bytes(uint32_t dtype);

/* Checks a view: known dtype, ndims 1..5, shapes and strides > 0 for used
 * dims and zero after, and the touched bytes inside [0, buffer_bytes).
 * On success writes the touched range relative to the buffer start as
 * [*first, *end) (the bounding range of a strided view) and returns 0;
 * else GRAPH_ERR_INVALID_ARGUMENT. The descriptor's address fields are
 * not looked at. */
int graph_view_range(uint32_t dtype, uint32_t ndims, const uint32_t *shapes, const uint32_t *strides,
                     uint64_t start_offset, uint64_t buffer_bytes, uint64_t *first, uint64_t *end);

/* graph_view_range of a whole ChipTensor, plus: reserved bytes zero and
 * buffer_addr + buffer_bytes not wrapping. Address spaces are the
 * caller's business. */
int graph_tensor_check(const ChipTensor *t, uint64_t *first, uint64_t *end);

#endif
