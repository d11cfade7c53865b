/* Call arguments built by hand, without libsimpler's tensor helpers:
 * the graph and device suites describe their dense 1-D float32 tensors
 * and argument lists through these. */
#ifndef SIMPLER_TEST_FIXTURE_TENSOR_H
#define SIMPLER_TEST_FIXTURE_TENSOR_H

#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "simpler/orchestration.h"

/* A dense 1-D float32 tensor of `n` elements at `addr` in `space`. */
static inline ChipTensor fixture_tensor(uint64_t addr, uint32_t n, uint8_t space)
{
    ChipTensor t;
    memset(&t, 0, sizeof(t));
    t.buffer_addr = addr;
    t.buffer_bytes = (uint64_t)n * 4;
    t.ndims = 1;
    t.dtype = SIMPLER_DTYPE_FLOAT32;
    t.address_space = space;
    t.shapes[0] = n;
    t.strides[0] = 1;
    return t;
}

/* The view [first, first + n) elements of `t`. */
static inline ChipTensor fixture_tensor_slice(const ChipTensor *t, uint64_t first, uint32_t n)
{
    ChipTensor v = *t;
    v.start_offset = first;
    v.shapes[0] = n;
    return v;
}

/* An empty argument list; free() it. */
static inline ChipStorageTaskArgs *fixture_args_new(void)
{
    ChipStorageTaskArgs *a = calloc(1, sizeof(*a));
    assert_non_null(a);
    return a;
}

#endif
