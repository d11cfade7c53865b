/* The consumer's callable: z = (x + y) * s over 1-D float32 tensors.
 * The orchestration cuts the tensors into CONSUMER_CHUNKS chunks; each
 * chunk is two tasks: kernel 0 (AIV) t = x + y into a graph-heap
 * intermediate, kernel 1 (AIC) z = t * s, which depends on it. */
#ifndef CONSUMER_H
#define CONSUMER_H

#define CONSUMER_CHUNKS 4
#define CONSUMER_FUNC_SUM 0
#define CONSUMER_FUNC_SCALE 1

/* Argument block: tensors x, y, z, then the scalar s (float bits). */
#define CONSUMER_ARG_X 0
#define CONSUMER_ARG_Y 1
#define CONSUMER_ARG_Z 2
#define CONSUMER_TENSORS 3
#define CONSUMER_SCALARS 1

/* The orchestration's own refusal of malformed arguments (a device-range
 * error, -1..-999). */
#define CONSUMER_ERR_BAD_ARGS (-7)

#endif
