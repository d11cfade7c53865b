/* Layout rules shared by the image checker and the builder. */
#include "callable/callable_image.h"

#include "simpler/runtime_c_api.h"

int callable_signature_scan(const uint8_t *signature, uint32_t count, uint32_t *tensor_count,
                            uint32_t *scalar_count)
{
    uint32_t tensors = 0, scalars = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint8_t dir = signature[i];
        if (dir > SIMPLER_ARG_INOUT)
            return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: the caller's (check.c, build.c) */
        if (dir == SIMPLER_ARG_SCALAR) {
            scalars++;
        } else {
            /* A tensor after a scalar breaks "every tensor before every scalar". */
            if (scalars != 0)
                return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: the caller's */
            tensors++;
        }
    }
    *tensor_count = tensors;
    *scalar_count = scalars;
    return 0;
}

static int identifier_char(char c, int first)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
        return 1;
    return !first && c >= '0' && c <= '9';
}

int callable_entry_name_valid(const char *field)
{
    size_t n = 0;
    while (n < SIMPLER_CALLABLE_ENTRY_NAME_BYTES && field[n] != '\0') {
        if (!identifier_char(field[n], n == 0))
            return 0;
        n++;
    }
    if (n == 0 || n == SIMPLER_CALLABLE_ENTRY_NAME_BYTES)
        return 0;
    /* Bytes after the terminator are zero: no second, hidden string. */
    for (size_t i = n; i < SIMPLER_CALLABLE_ENTRY_NAME_BYTES; i++) {
        if (field[i] != '\0')
            return 0;
    }
    return 1;
}

int callable_child_identity_check(int32_t func_id, uint32_t core_type, uint32_t reserved0,
                                  uint32_t signature_count, uint8_t *seen)
{
    if (func_id < 0 || func_id >= SIMPLER_CALLABLE_FUNC_ID_LIMIT)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: the caller's (check.c, build.c) */
    uint8_t bit = (uint8_t)(1u << (func_id % 8));
    if (seen[func_id / 8] & bit)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: the caller's */
    if (core_type != SIMPLER_CORE_TYPE_AIC && core_type != SIMPLER_CORE_TYPE_AIV)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: the caller's */
    if (reserved0 != 0 || signature_count > SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: the caller's */
    seen[func_id / 8] |= bit;
    return 0;
}

static int kernel_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '+' || c == '-';
}

int callable_kernel_name_valid(const char *field)
{
    size_t n = 0;
    while (n < SIMPLER_CALLABLE_KERNEL_NAME_BYTES && field[n] != '\0') {
        if (!kernel_name_char(field[n]))
            return 0;
        n++;
    }
    if (n == 0 || n == SIMPLER_CALLABLE_KERNEL_NAME_BYTES)
        return 0;
    for (size_t i = n; i < SIMPLER_CALLABLE_KERNEL_NAME_BYTES; i++) {
        if (field[i] != '\0')
            return 0;
    }
    return 1;
}

uint64_t callable_align_up(uint64_t offset)
{
    const uint64_t mask = SIMPLER_CALLABLE_ALIGN - 1;
    if (offset > UINT64_MAX - mask)
        return 0;
    return (offset + mask) & ~mask;
}

uint64_t callable_child_table_offset(uint32_t signature_count)
{
    return callable_align_up((uint64_t)sizeof(SimplerCallableHeader) + signature_count);
}

uint64_t callable_orchestration_offset(uint32_t signature_count, uint32_t child_count, int named)
{
    uint64_t per_child = sizeof(SimplerCallableChild) + (named ? SIMPLER_CALLABLE_KERNEL_NAME_BYTES : 0);
    return callable_align_up(callable_child_table_offset(signature_count) + (uint64_t)child_count * per_child);
}
