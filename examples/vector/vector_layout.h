/* The vector example's fixed argument layout and limits,
 * shared by its orchestration, its golden, the tests and the CLI. */
#ifndef SIMPLER_EXAMPLE_VECTOR_LAYOUT_H
#define SIMPLER_EXAMPLE_VECTOR_LAYOUT_H

/* Tensors: a (IN), b (IN), f (OUT); float32, one shape; no scalars. */
#define VECTOR_ARG_A 0
#define VECTOR_ARG_B 1
#define VECTOR_ARG_F 2
#define VECTOR_TENSOR_COUNT 3
/* Any size up to 1M elements. */
#define VECTOR_MAX_ELEMENTS (1u << 20)
/* Independent chunks the work is split into (fewer for tiny tensors). */
#define VECTOR_CHUNKS 4u
/* Kernel func ids. */
#define VECTOR_FUNC_ADD 0
#define VECTOR_FUNC_ADD_SCALAR 1
#define VECTOR_FUNC_MUL 2

#endif
