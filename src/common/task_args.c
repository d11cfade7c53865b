/* Tensor construction, dtype sizes, the default CallConfig, and the shared
 * argument validators (task_args_check.h). */
#include "common/error.h"
#include "common/task_args_check.h"
#include "common/tensor_view.h"

#include <stdio.h>
#include <string.h>

#include "simpler/runtime_c_api.h"

size_t simpler_dtype_size(uint8_t dtype)
{
    return tensor_dtype_bytes(dtype);
}

/* Pure: every caller names the field (tensor_view_fail, or a device-side
 * image check whose refusal latches a device code). */
int tensor_view_extent(uint32_t dtype, uint32_t ndims, const uint32_t *shapes, const uint32_t *strides,
                       uint64_t *extent)
{
    if (tensor_dtype_bytes(dtype) == 0 || ndims == 0 || ndims > SIMPLER_MAX_TENSOR_DIMS)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: the caller's (tensor_view_fail) */
    /* One more than the last element's index. A term (shape - 1) * stride
     * of two 32-bit numbers fits 64 bits, but five of them summed may
     * not: a sum that wrapped would make a huge view look small. */
    uint64_t span = 1;
    for (uint32_t d = 0; d < SIMPLER_MAX_TENSOR_DIMS; d++) {
        int used = d < ndims;
        if (used != (shapes[d] != 0) || used != (strides[d] != 0))
            return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: the caller's (tensor_view_fail) */
        if (used && __builtin_add_overflow(span, (uint64_t)(shapes[d] - 1) * strides[d], &span))
            return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: the caller's (tensor_view_fail) */
    }
    *extent = span;
    return 0;
}

static int address_space_known(uint8_t space)
{
    return space == SIMPLER_ADDRESS_SPACE_HOST || space == SIMPLER_ADDRESS_SPACE_DEVICE;
}

static int all_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        if (b[i] != 0)
            return 0;
    }
    return 1;
}

int simpler_tensor_make(ChipTensor *t, void *addr, uint8_t dtype, uint32_t ndims, const uint32_t *shapes,
                        uint8_t address_space)
{
    simpler_error_clear();
    size_t elem = simpler_dtype_size(dtype);
    if (t == NULL || shapes == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "%s: NULL", t == NULL ? "t" : "shapes");
    if (elem == 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "dtype = %u: not a SIMPLER_DTYPE_*", dtype);
    if (!address_space_known(address_space))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "address_space = %u: not SIMPLER_ADDRESS_SPACE_HOST (0) or _DEVICE (1)", address_space);
    if (ndims == 0 || ndims > SIMPLER_MAX_TENSOR_DIMS)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ndims = %u: must be 1..%d", ndims,
                            SIMPLER_MAX_TENSOR_DIMS);

    /* Strides are in elements and must fit uint32_t; the byte size must fit
     * uint64_t. Compute everything before writing *t. */
    uint32_t strides[SIMPLER_MAX_TENSOR_DIMS] = {0};
    uint64_t count = 1;
    for (uint32_t d = ndims; d-- > 0;) {
        if (shapes[d] == 0)
            return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "shapes[%u] = 0: a dimension is at least 1", d);
        if (count > UINT32_MAX)
            return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                "shapes[%u]: the stride of dimension %u (%llu elements) does not fit 32 bits", d + 1,
                                d, (unsigned long long)count);
        strides[d] = (uint32_t)count;
        if (__builtin_mul_overflow(count, (uint64_t)shapes[d], &count))
            return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "shapes[%u] = %u: the element count overflows",
                                d, shapes[d]);
    }
    uint64_t bytes;
    if (__builtin_mul_overflow(count, (uint64_t)elem, &bytes))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "shapes: %llu elements of %zu bytes overflow 64 bits",
                            (unsigned long long)count, elem);
    uint64_t base = (uint64_t)(uintptr_t)addr;
    uint64_t end;
    if (__builtin_add_overflow(base, bytes, &end))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "addr = %p: the %llu-byte buffer wraps the address "
                                                              "space",
                            addr, (unsigned long long)bytes);

    memset(t, 0, sizeof *t);
    t->buffer_addr = base;
    t->buffer_bytes = bytes;
    t->ndims = ndims;
    t->dtype = dtype;
    t->address_space = address_space;
    memcpy(t->shapes, shapes, ndims * sizeof shapes[0]);
    memcpy(t->strides, strides, sizeof strides);
    return 0;
}

int simpler_call_config_default(CallConfig *config)
{
    simpler_error_clear();
    if (config == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "config: NULL");
    memset(config, 0, sizeof *config);
    config->struct_size = (uint32_t)sizeof *config;
    return 0;
}

#define INVALID PTO_RUNTIME_ERR_INVALID_ARGUMENT

int tensor_view_fail(const ChipTensor *t, const char *what)
{
    if (tensor_dtype_bytes(t->dtype) == 0)
        return simpler_fail(INVALID, "%s.dtype = %u: not a SIMPLER_DTYPE_*", what, t->dtype);
    if (t->ndims == 0 || t->ndims > SIMPLER_MAX_TENSOR_DIMS)
        return simpler_fail(INVALID, "%s.ndims = %u: must be 1..%d", what, t->ndims, SIMPLER_MAX_TENSOR_DIMS);
    for (uint32_t d = 0; d < SIMPLER_MAX_TENSOR_DIMS; d++) {
        int used = d < t->ndims;
        if (used && t->shapes[d] == 0)
            return simpler_fail(INVALID, "%s.shapes[%u] = 0: a used dimension is at least 1", what, d);
        if (used && t->strides[d] == 0)
            return simpler_fail(INVALID, "%s.strides[%u] = 0: a used dimension's stride is at least 1", what, d);
        if (!used && (t->shapes[d] != 0 || t->strides[d] != 0))
            return simpler_fail(INVALID, "%s.shapes[%u] = %u, strides[%u] = %u: dimensions past ndims = %u must be 0",
                                what, d, t->shapes[d], d, t->strides[d], t->ndims);
    }
    return simpler_fail(INVALID, "%s: the view's extent overflows 64 bits", what);
}

static int tensor_check_named(const ChipTensor *t, const char *what)
{
    uint64_t extent, end, end_bytes, buffer_end;
    if (t == NULL)
        return simpler_fail(INVALID, "%s: NULL", what);
    if (!address_space_known(t->address_space))
        return simpler_fail(INVALID, "%s.address_space = %u: not SIMPLER_ADDRESS_SPACE_HOST (0) or _DEVICE (1)",
                            what, t->address_space);
    if (tensor_view_extent(t->dtype, t->ndims, t->shapes, t->strides, &extent) != 0)
        return tensor_view_fail(t, what);
    if (!all_zero(t->reserved0, sizeof t->reserved0) || !all_zero(t->reserved, sizeof t->reserved))
        return simpler_fail(INVALID, "%s: a reserved byte is not 0", what);
    if (__builtin_add_overflow(t->start_offset, extent, &end) ||
        __builtin_mul_overflow(end, (uint64_t)tensor_dtype_bytes(t->dtype), &end_bytes))
        return simpler_fail(INVALID, "%s.start_offset = %llu: the view's end overflows 64 bits", what,
                            (unsigned long long)t->start_offset);
    if (end_bytes > t->buffer_bytes)
        return simpler_fail(INVALID, "%s.buffer_bytes = %llu: the view (start_offset %llu + extent %llu elements) "
                                     "needs %llu",
                            what, (unsigned long long)t->buffer_bytes, (unsigned long long)t->start_offset,
                            (unsigned long long)extent, (unsigned long long)end_bytes);
    /* No buffer lives at address 0, and none wraps the address space: a
     * kernel or a copy would fault on either. */
    if (t->buffer_addr == 0)
        return simpler_fail(INVALID, "%s.buffer_addr = 0 (NULL): no buffer lives at address 0", what);
    if (__builtin_add_overflow(t->buffer_addr, t->buffer_bytes, &buffer_end))
        return simpler_fail(INVALID, "%s: buffer_addr 0x%llx + buffer_bytes %llu wraps", what,
                            (unsigned long long)t->buffer_addr, (unsigned long long)t->buffer_bytes);
    return 0;
}

int chip_tensor_check(const ChipTensor *t)
{
    return tensor_check_named(t, "tensor");
}

int task_args_check(const ChipStorageTaskArgs *args)
{
    if (args == NULL)
        return simpler_fail(INVALID, "args: NULL");
    if (args->tensor_count < 0 || args->tensor_count > SIMPLER_MAX_TENSOR_ARGS)
        return simpler_fail(INVALID, "args.tensor_count = %d: must be 0..%d", args->tensor_count,
                            SIMPLER_MAX_TENSOR_ARGS);
    if (args->scalar_count < 0 || args->scalar_count > SIMPLER_MAX_SCALAR_ARGS)
        return simpler_fail(INVALID, "args.scalar_count = %d: must be 0..%d", args->scalar_count,
                            SIMPLER_MAX_SCALAR_ARGS);
    for (int32_t i = 0; i < args->tensor_count; i++) {
        char what[32];
        snprintf(what, sizeof what, "args.tensors[%d]", i);
        int rc = tensor_check_named(&args->tensors[i], what);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int call_config_check(const CallConfig *config)
{
    if (config == NULL)
        return simpler_fail(INVALID, "config: NULL");
    if (config->struct_size != sizeof *config)
        return simpler_fail(INVALID, "config.struct_size = %u: expected sizeof(CallConfig) = %zu",
                            config->struct_size, sizeof *config);
    if (config->reserved0 != 0 || !all_zero(config->reserved, sizeof config->reserved))
        return simpler_fail(INVALID, "config: a reserved field is not 0");
    if (memchr(config->output_prefix, '\0', sizeof config->output_prefix) == NULL)
        return simpler_fail(INVALID, "config.output_prefix: no NUL in its %zu bytes", sizeof config->output_prefix);
    if (config->trace > 1)
        return simpler_fail(INVALID, "config.trace = %u: must be 0 or 1", (unsigned)config->trace);
    if (config->aicpu_thread_count > CALL_CONFIG_AICPU_THREADS_MAX)
        return simpler_fail(INVALID, "config.aicpu_thread_count = %u: at most %u",
                            (unsigned)config->aicpu_thread_count, (unsigned)CALL_CONFIG_AICPU_THREADS_MAX);
    if (config->aicore_count > CALL_CONFIG_AICORE_COUNT_MAX)
        return simpler_fail(INVALID, "config.aicore_count = %u: at most %u", (unsigned)config->aicore_count,
                            (unsigned)CALL_CONFIG_AICORE_COUNT_MAX);
    if (config->task_window > CALL_CONFIG_TASK_WINDOW_MAX)
        return simpler_fail(INVALID, "config.task_window = %u: at most %u", (unsigned)config->task_window,
                            (unsigned)CALL_CONFIG_TASK_WINDOW_MAX);
    if (config->heap_bytes > CALL_CONFIG_HEAP_BYTES_MAX)
        return simpler_fail(INVALID, "config.heap_bytes = %llu: at most %llu",
                            (unsigned long long)config->heap_bytes, (unsigned long long)CALL_CONFIG_HEAP_BYTES_MAX);
    return 0;
}
