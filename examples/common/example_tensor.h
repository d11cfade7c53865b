/*
 * example_tensor — what the example orchestrations and kernels share
 * beyond the public tensor views (simpler/tensor_view.h, which they use
 * for views, element addresses, block ranges and float32 scalars).
 * Header-only, no libsimpler symbol: safe in a callable binary.
 */
#ifndef SIMPLER_EXAMPLE_TENSOR_H
#define SIMPLER_EXAMPLE_TENSOR_H

#include "simpler/tensor_view.h"

/* The orchestrations report a malformed call with this device-range code
 * (-1..-999 belong to the program). */
#define EXAMPLE_ERR_BAD_ARGS (-22)

#endif
