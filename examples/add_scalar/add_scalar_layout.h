/* The add_scalar example's fixed argument layout, shared by
 * its orchestration, its golden, the tests and the CLI. */
#ifndef SIMPLER_EXAMPLE_ADD_SCALAR_LAYOUT_H
#define SIMPLER_EXAMPLE_ADD_SCALAR_LAYOUT_H

/* Tensors: x (IN), y (OUT), float32, one shape. Scalar 0: a float32 bit
 * pattern in its low 32 bits. y = x + s. */
#define ADD_SCALAR_ARG_X 0
#define ADD_SCALAR_ARG_Y 1
#define ADD_SCALAR_TENSOR_COUNT 2
#define ADD_SCALAR_SCALAR_S 0
#define ADD_SCALAR_SCALAR_COUNT 1
/* Bounded like the vector example so one call stays small. */
#define ADD_SCALAR_MAX_ELEMENTS (1u << 20)
/* Independent chunks, one task each. */
#define ADD_SCALAR_CHUNKS 2u
#define ADD_SCALAR_FUNC 0

#endif
