/* The matmul_add example's fixed argument layout, shared by its
 * orchestration, kernels, golden, the tests and the CLI.
 *
 * Tensors (float32, dense):
 *   x    [M, K]     IN   the input rows
 *   w    [L, K, K]  IN   one weight matrix per layer
 *   bias [L, K]     IN   one bias row per layer
 *   y    [M, K]     OUT  y = layer_{L-1}( ... layer_0(x))
 * where layer_l(h) = h @ w[l] + bias[l]. No scalars. */
#ifndef SIMPLER_EXAMPLE_MATMUL_ADD_LAYOUT_H
#define SIMPLER_EXAMPLE_MATMUL_ADD_LAYOUT_H

#define MATMUL_ADD_ARG_X 0
#define MATMUL_ADD_ARG_W 1
#define MATMUL_ADD_ARG_BIAS 2
#define MATMUL_ADD_ARG_Y 3
#define MATMUL_ADD_TENSOR_COUNT 4
/* Bounds that keep one call small: a layer is a K x K matmul per row. */
#define MATMUL_ADD_MAX_ROWS 4096u
#define MATMUL_ADD_MAX_K 256u
#define MATMUL_ADD_MAX_LAYERS 16u
/* Independent row chunks, each its own chain of layers. */
#define MATMUL_ADD_CHUNKS 4u
#define MATMUL_ADD_FUNC_MATMUL 0 /* AIC: [IN a, IN w, OUT c] */
#define MATMUL_ADD_FUNC_ADD 1    /* AIV: [IN h, IN bias, OUT y] */

#endif
