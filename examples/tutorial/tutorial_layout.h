/* The tutorial example's argument layout (docs/tutorial.md), shared by its
 * orchestration, its golden, its host program and the CLI. */
#ifndef SIMPLER_EXAMPLE_TUTORIAL_LAYOUT_H
#define SIMPLER_EXAMPLE_TUTORIAL_LAYOUT_H

/* Tensors: x (IN), y (IN), out (OUT), float32, 1-D, one length. */
#define TUTORIAL_ARG_X 0
#define TUTORIAL_ARG_Y 1
#define TUTORIAL_ARG_OUT 2
#define TUTORIAL_TENSOR_COUNT 3
#define TUTORIAL_MAX_ELEMENTS (1u << 20)
/* Independent chunks; each is a multiply then an add. */
#define TUTORIAL_CHUNKS 2u
/* The kernels' func ids, as packed into the image. */
#define TUTORIAL_FUNC_MUL 0
#define TUTORIAL_FUNC_ADD 1
/* A malformed call, reported from the orchestration (-1..-999 are the
 * program's own codes). */
#define TUTORIAL_ERR_BAD_ARGS (-22)

#endif
