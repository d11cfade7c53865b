/*
 * simpler — the kernel-mode invocation envelope.
 *
 * Every kernel-mode launch ships one SimplerKernelInvocationHeader followed
 * by `payload_bytes` of graph packet. The header holds no pointers, so a
 * captured launch can replay its packet bytes unchanged. Fixed-width,
 * little-endian fields; the layout is pinned below and by tests/unit/abi.
 */
#ifndef SIMPLER_KERNEL_INVOCATION_HEADER_H
#define SIMPLER_KERNEL_INVOCATION_HEADER_H

#include <stddef.h>
#include <stdint.h>

#include "simpler/task_args.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIMPLER_KERNEL_INVOCATION_ABI_VERSION 1
#define SIMPLER_KERNEL_INVOCATION_HEADER_SIZE 64

typedef struct SimplerKernelInvocationHeader {
    uint32_t abi_version;            /* SIMPLER_KERNEL_INVOCATION_ABI_VERSION */
    uint32_t header_size;            /* SIMPLER_KERNEL_INVOCATION_HEADER_SIZE */
    uint32_t mode;                   /* SIMPLER_MODE_KERNEL (1) */
    int32_t callable_id;             /* residency slot */
    uint64_t generation;             /* must equal the slot's generation */
    int32_t tensor_count;            /* tensors in the call */
    int32_t scalar_count;            /* scalars in the call */
    int32_t host_copy_tensor_count;  /* HOST tensors staged in the retained temp buffer */
    uint32_t reserved0;              /* must be zero */
    uint64_t payload_bytes;          /* graph packet bytes after this header */
    uint64_t reserved[2];            /* must be zero */
} SimplerKernelInvocationHeader;

SIMPLER_STATIC_ASSERT(sizeof(SimplerKernelInvocationHeader) == SIMPLER_KERNEL_INVOCATION_HEADER_SIZE,
                      "SimplerKernelInvocationHeader is 64 bytes");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelInvocationHeader, header_size) == 4, "invocation header layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelInvocationHeader, mode) == 8, "invocation header layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelInvocationHeader, callable_id) == 12, "invocation header layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelInvocationHeader, generation) == 16, "invocation header layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelInvocationHeader, tensor_count) == 24, "invocation header layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelInvocationHeader, scalar_count) == 28, "invocation header layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelInvocationHeader, host_copy_tensor_count) == 32,
                      "invocation header layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelInvocationHeader, reserved0) == 36, "invocation header layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelInvocationHeader, payload_bytes) == 40, "invocation header layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelInvocationHeader, reserved) == 48, "invocation header layout");

#ifdef __cplusplus
}
#endif

#endif /* SIMPLER_KERNEL_INVOCATION_HEADER_H */
