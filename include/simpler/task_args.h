/*
 * simpler — task arguments: tensors, the argument block of a call, and the
 * per-call configuration. Plain data with fixed-width fields only; every
 * size and offset is pinned by static asserts here and by tests/unit/abi.
 */
#ifndef SIMPLER_TASK_ARGS_H
#define SIMPLER_TASK_ARGS_H

#include <stddef.h>
#include <stdint.h>

#ifndef SIMPLER_API
#if defined(__GNUC__)
#define SIMPLER_API __attribute__((visibility("default")))
#else
#define SIMPLER_API
#endif
#endif

#ifndef SIMPLER_STATIC_ASSERT
#ifdef __cplusplus
#define SIMPLER_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#define SIMPLER_ALIGNOF(t) alignof(t)
#else
#define SIMPLER_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#define SIMPLER_ALIGNOF(t) _Alignof(t)
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- limits ---- */
#define SIMPLER_MAX_TENSOR_DIMS 5     /* ChipTensor.shapes/strides */
#define SIMPLER_MAX_TENSOR_ARGS 256   /* ChipStorageTaskArgs.tensors */
#define SIMPLER_MAX_SCALAR_ARGS 128   /* ChipStorageTaskArgs.scalars */
#define SIMPLER_TRACE_PREFIX_MAX 256  /* CallConfig.output_prefix, NUL included */

/* ---- dtypes (ChipTensor.dtype) ---- */
#define SIMPLER_DTYPE_FLOAT32 1
#define SIMPLER_DTYPE_FLOAT16 2
#define SIMPLER_DTYPE_BFLOAT16 3
#define SIMPLER_DTYPE_INT32 4
#define SIMPLER_DTYPE_INT64 5
#define SIMPLER_DTYPE_INT8 6
#define SIMPLER_DTYPE_UINT8 7
#define SIMPLER_DTYPE_INT16 8
#define SIMPLER_DTYPE_FLOAT64 9
#define SIMPLER_DTYPE_COUNT 10 /* valid dtypes are 1..COUNT-1 */

/* ---- address spaces (ChipTensor.address_space) ---- */
#define SIMPLER_ADDRESS_SPACE_HOST 0
#define SIMPLER_ADDRESS_SPACE_DEVICE 1

/* ---- orchestration argument tags ---- */
#define SIMPLER_TAG_INPUT 0           /* read */
#define SIMPLER_TAG_OUTPUT 1          /* written; the runtime allocates it from the graph heap */
#define SIMPLER_TAG_INOUT 2           /* read and written */
#define SIMPLER_TAG_OUTPUT_EXISTING 3 /* written into a caller buffer */
#define SIMPLER_TAG_NO_DEP 4          /* passed, never a dependency */

/* A strided view of a buffer. buffer_addr/buffer_bytes describe the whole
 * buffer; the view starts start_offset elements in, with shapes and
 * strides (in elements, > 0) for ndims (1..5) dimensions. Unused dims and
 * every reserved byte must be zero. buffer_addr is never 0 and the buffer
 * never wraps the address space: every entry point that takes call
 * arguments (simpler_run, simpler_kernel_mode_launch,
 * simpler_graph_requirements, simpler_graph_sizer_measure) refuses such a
 * tensor with PTO_RUNTIME_ERR_INVALID_ARGUMENT (-1005) before any effect.
 * 128 bytes, 64-aligned, trivially copyable. */
typedef struct __attribute__((aligned(64))) ChipTensor {
    uint64_t buffer_addr;
    uint64_t buffer_bytes;
    uint64_t start_offset;
    uint32_t ndims;
    uint8_t dtype;
    uint8_t address_space;
    uint8_t reserved0[2];
    uint32_t shapes[SIMPLER_MAX_TENSOR_DIMS];
    uint32_t strides[SIMPLER_MAX_TENSOR_DIMS];
    uint8_t reserved[56];
} ChipTensor;

/* The argument block of one call: tensors first, then scalars. The runtime
 * copies what it needs before a call returns; the caller may reuse it. */
typedef struct ChipStorageTaskArgs {
    ChipTensor tensors[SIMPLER_MAX_TENSOR_ARGS];
    uint64_t scalars[SIMPLER_MAX_SCALAR_ARGS];
    int32_t tensor_count;
    int32_t scalar_count;
} ChipStorageTaskArgs;

/* Per-call configuration. struct_size must equal sizeof(CallConfig). Zero
 * means "default" for every count and size. */
typedef struct CallConfig {
    uint32_t struct_size;
    uint32_t aicpu_thread_count; /* 0 = default */
    uint32_t aicore_count;       /* 0 = all cores of the device */
    uint32_t task_window;        /* 0 = default; max tasks in one graph */
    uint64_t heap_bytes;         /* 0 = default graph heap */
    uint32_t trace;              /* 0 off, 1 on */
    uint32_t reserved0;          /* must be zero */
    char output_prefix[SIMPLER_TRACE_PREFIX_MAX]; /* trace file prefix, NUL terminated; "" = none */
    uint64_t reserved[4];        /* must be zero */
} CallConfig;

SIMPLER_STATIC_ASSERT(sizeof(ChipTensor) == 128, "ChipTensor is 128 bytes");
SIMPLER_STATIC_ASSERT(SIMPLER_ALIGNOF(ChipTensor) == 64, "ChipTensor is 64-aligned");
SIMPLER_STATIC_ASSERT(offsetof(ChipTensor, buffer_addr) == 0, "ChipTensor layout");
SIMPLER_STATIC_ASSERT(offsetof(ChipTensor, buffer_bytes) == 8, "ChipTensor layout");
SIMPLER_STATIC_ASSERT(offsetof(ChipTensor, start_offset) == 16, "ChipTensor layout");
SIMPLER_STATIC_ASSERT(offsetof(ChipTensor, ndims) == 24, "ChipTensor layout");
SIMPLER_STATIC_ASSERT(offsetof(ChipTensor, dtype) == 28, "ChipTensor layout");
SIMPLER_STATIC_ASSERT(offsetof(ChipTensor, address_space) == 29, "ChipTensor layout");
SIMPLER_STATIC_ASSERT(offsetof(ChipTensor, shapes) == 32, "ChipTensor layout");
SIMPLER_STATIC_ASSERT(offsetof(ChipTensor, strides) == 52, "ChipTensor layout");
SIMPLER_STATIC_ASSERT(offsetof(ChipTensor, reserved) == 72, "ChipTensor layout");
SIMPLER_STATIC_ASSERT(offsetof(ChipStorageTaskArgs, scalars) == 256 * 128, "ChipStorageTaskArgs layout");
SIMPLER_STATIC_ASSERT(offsetof(ChipStorageTaskArgs, tensor_count) == 256 * 128 + 128 * 8, "ChipStorageTaskArgs layout");
SIMPLER_STATIC_ASSERT(offsetof(CallConfig, heap_bytes) == 16, "CallConfig layout");
SIMPLER_STATIC_ASSERT(offsetof(CallConfig, output_prefix) == 32, "CallConfig layout");
SIMPLER_STATIC_ASSERT(sizeof(CallConfig) == 32 + SIMPLER_TRACE_PREFIX_MAX + 32, "CallConfig layout");

/* Fills *t as a dense row-major tensor over `addr` (shapes[0..ndims-1],
 * strides derived, start_offset 0, buffer_bytes = elements * dtype size,
 * reserved bytes zero). `addr` may be NULL (buffer_addr 0); `shapes` is
 * read only during the call. Thread-safe.
 * Returns 0, or PTO_RUNTIME_ERR_INVALID_ARGUMENT (-1005) for NULL t/shapes,
 * ndims outside 1..5, a zero shape, an unknown dtype or address space, or a
 * byte size that overflows; *t is unchanged on failure. */
SIMPLER_API int simpler_tensor_make(ChipTensor *t, void *addr, uint8_t dtype, uint32_t ndims,
                                    const uint32_t *shapes, uint8_t address_space);
/* Size in bytes of one element of `dtype`, or 0 for an unknown dtype. */
SIMPLER_API size_t simpler_dtype_size(uint8_t dtype);
/* Fills a valid default CallConfig. Returns 0, or -1005 for NULL. */
SIMPLER_API int simpler_call_config_default(CallConfig *config);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLER_TASK_ARGS_H */
