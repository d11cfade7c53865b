/* simpler_callable_build: packs a descriptor into a canonical image.
 * Validates the whole descriptor and computes the size first, then writes;
 * a failed call writes nothing. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "callable/callable_image.h"
#include "simpler/runtime_c_api.h"
#include "common/error.h"

#define INVALID PTO_RUNTIME_ERR_INVALID_ARGUMENT

/* The signature scan with its reason: `what` names the array. */
static int signature_check(const char *what, const uint8_t *signature, uint32_t count, uint32_t *tensors,
                           uint32_t *scalars)
{
    if (callable_signature_scan(signature, count, tensors, scalars) == 0)
        return 0;
    uint32_t seen_scalar = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (signature[i] > SIMPLER_ARG_INOUT)
            return simpler_fail(INVALID, "%s[%u] = %u: not a SIMPLER_ARG_* direction (0..%d)", what, i, signature[i],
                                SIMPLER_ARG_INOUT);
        if (signature[i] == SIMPLER_ARG_SCALAR)
            seen_scalar = 1;
        else if (seen_scalar)
            return simpler_fail(INVALID, "%s[%u] = %u: a tensor after a scalar (every tensor comes first)", what, i,
                                signature[i]);
    }
    return simpler_fail(PTO_RUNTIME_ERR_INTERNAL, "%s: the scan refused a signature the check accepts", what);
}

static int child_desc_check(const SimplerCallableDesc *d, uint32_t i, uint8_t *seen)
{
    const SimplerCallableChildDesc *c = &d->children[i];
    if (c->func_id < 0 || c->func_id >= SIMPLER_CALLABLE_FUNC_ID_LIMIT)
        return simpler_fail(INVALID, "desc.children[%u].func_id = %d: must be in 0..%d", i, c->func_id,
                            SIMPLER_CALLABLE_FUNC_ID_LIMIT - 1);
    if (seen[c->func_id / 8] & (1u << (c->func_id % 8)))
        return simpler_fail(INVALID, "desc.children[%u].func_id = %d: repeats an earlier child's", i, c->func_id);
    if (c->core_type != SIMPLER_CORE_TYPE_AIC && c->core_type != SIMPLER_CORE_TYPE_AIV)
        return simpler_fail(INVALID, "desc.children[%u].core_type = %u: not SIMPLER_CORE_TYPE_AIC (0) or _AIV (1)",
                            i, c->core_type);
    if (c->reserved0 != 0)
        return simpler_fail(INVALID, "desc.children[%u].reserved0 = %u: must be 0", i, c->reserved0);
    if (c->signature_count > SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE)
        return simpler_fail(INVALID, "desc.children[%u].signature_count = %u: at most %d", i, c->signature_count,
                            SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE);
    if (callable_child_identity_check(c->func_id, c->core_type, c->reserved0, c->signature_count, seen) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INTERNAL, "desc.children[%u]: the identity check disagrees", i);
    if (c->signature_count != 0 && c->signature == NULL)
        return simpler_fail(INVALID, "desc.children[%u].signature = NULL with signature_count = %u", i,
                            c->signature_count);
    if (c->binary == NULL || c->binary_size == 0)
        return simpler_fail(INVALID, "desc.children[%u] (func_id %d): binary = %p, binary_size = %llu: a kernel "
                                     "needs a non-empty binary",
                            i, c->func_id, c->binary, (unsigned long long)c->binary_size);
    char what[48];
    snprintf(what, sizeof what, "desc.children[%u].signature", i);
    uint32_t tensors, scalars;
    return signature_check(what, c->signature, c->signature_count, &tensors, &scalars);
}

/* Every name of d->kernel_names (when given) fits a name field. */
static int kernel_names_check(const SimplerCallableDesc *d)
{
    if (d->struct_size == SIMPLER_CALLABLE_DESC_V1_SIZE || d->kernel_names == NULL)
        return 0;
    for (uint32_t i = 0; i < d->child_count; i++) {
        char field[SIMPLER_CALLABLE_KERNEL_NAME_BYTES];
        const char *name = d->kernel_names[i];
        if (name == NULL)
            return simpler_fail(INVALID, "desc.kernel_names[%u] = NULL: every child needs a name when any has one",
                                i);
        if (memchr(name, '\0', sizeof field) == NULL)
            return simpler_fail(INVALID, "desc.kernel_names[%u] = \"%.*s...\": longer than %d characters", i,
                                (int)sizeof field - 1, name, (int)sizeof field - 1);
        memset(field, 0, sizeof field);
        memcpy(field, name, strlen(name));
        if (!callable_kernel_name_valid(field))
            return simpler_fail(INVALID, "desc.kernel_names[%u] = \"%s\": not 1..%d of [A-Za-z0-9_.+-]", i, name,
                                (int)sizeof field - 1);
    }
    return 0;
}

/* The descriptor's kernel names, or NULL (a V1-sized descriptor has none). */
static const char *const *desc_kernel_names(const SimplerCallableDesc *d)
{
    return d->struct_size == SIMPLER_CALLABLE_DESC_V1_SIZE ? NULL : d->kernel_names;
}

static int entry_name_to_field(const char *name, char field[SIMPLER_CALLABLE_ENTRY_NAME_BYTES])
{
    size_t n = 0;
    while (n < SIMPLER_CALLABLE_ENTRY_NAME_BYTES && name[n] != '\0')
        n++;
    if (n == SIMPLER_CALLABLE_ENTRY_NAME_BYTES)
        return simpler_fail(INVALID, "desc.entry_name = \"%.*s...\": longer than %d characters", 16, name,
                            SIMPLER_CALLABLE_ENTRY_NAME_BYTES - 1);
    memset(field, 0, SIMPLER_CALLABLE_ENTRY_NAME_BYTES);
    memcpy(field, name, n);
    if (!callable_entry_name_valid(field))
        return simpler_fail(INVALID, "desc.entry_name = \"%s\": not a C identifier of 1..%d characters", name,
                            SIMPLER_CALLABLE_ENTRY_NAME_BYTES - 1);
    return 0;
}

/* Checks everything about `d` and computes the image size and the scalar
 * count to record. */
static int desc_check(const SimplerCallableDesc *d, char *name_field, uint64_t *size, uint32_t *scalar_count)
{
    if (d->struct_size != sizeof *d && d->struct_size != SIMPLER_CALLABLE_DESC_V1_SIZE)
        return simpler_fail(INVALID, "desc.struct_size = %u: expected %zu (or %zu without kernel_names)",
                            d->struct_size, sizeof *d, (size_t)SIMPLER_CALLABLE_DESC_V1_SIZE);
    if (d->reserved != 0)
        return simpler_fail(INVALID, "desc.reserved = %llu: must be 0", (unsigned long long)d->reserved);
    if (d->signature_count > SIMPLER_CALLABLE_MAX_SIGNATURE)
        return simpler_fail(INVALID, "desc.signature_count = %u: at most %d", d->signature_count,
                            SIMPLER_CALLABLE_MAX_SIGNATURE);
    if (d->child_count > SIMPLER_CALLABLE_MAX_CHILDREN)
        return simpler_fail(INVALID, "desc.child_count = %u: at most %d", d->child_count,
                            SIMPLER_CALLABLE_MAX_CHILDREN);
    if (d->signature_count != 0 && d->signature == NULL)
        return simpler_fail(INVALID, "desc.signature = NULL with signature_count = %u", d->signature_count);
    if (d->child_count != 0 && d->children == NULL)
        return simpler_fail(INVALID, "desc.children = NULL with child_count = %u", d->child_count);
    if (d->orchestration == NULL || d->orchestration_size == 0)
        return simpler_fail(INVALID, "desc.orchestration = %p, orchestration_size = %llu: a non-empty binary is "
                                     "required",
                            d->orchestration, (unsigned long long)d->orchestration_size);
    if (d->entry_name == NULL)
        return simpler_fail(INVALID, "desc.entry_name = NULL: the orchestration's entry symbol is required");
    int rc = entry_name_to_field(d->entry_name, name_field);
    rc = rc != 0 ? rc : kernel_names_check(d);
    if (rc != 0)
        return rc;
    uint32_t tensors = 0, scalars = 0;
    rc = signature_check("desc.signature", d->signature, d->signature_count, &tensors, &scalars);
    if (rc != 0)
        return rc;
    if (tensors > SIMPLER_MAX_TENSOR_ARGS || scalars > SIMPLER_MAX_SCALAR_ARGS)
        return simpler_fail(INVALID, "desc.signature: %u tensors and %u scalars: at most %d and %d", tensors,
                            scalars, SIMPLER_MAX_TENSOR_ARGS, SIMPLER_MAX_SCALAR_ARGS);
    if (d->scalar_count != 0 && d->scalar_count != scalars)
        return simpler_fail(INVALID, "desc.scalar_count = %u but desc.signature has %u scalars (0 derives it)",
                            d->scalar_count, scalars);

    uint8_t seen[SIMPLER_CALLABLE_FUNC_ID_LIMIT / 8];
    memset(seen, 0, sizeof seen);
    uint64_t end = callable_orchestration_offset(d->signature_count, d->child_count, desc_kernel_names(d) != NULL);
    if (__builtin_add_overflow(end, d->orchestration_size, &end))
        return simpler_fail(INVALID, "desc.orchestration_size = %llu: the image size overflows",
                            (unsigned long long)d->orchestration_size);
    for (uint32_t i = 0; i < d->child_count; i++) {
        const SimplerCallableChildDesc *c = &d->children[i];
        rc = child_desc_check(d, i, seen);
        if (rc != 0)
            return rc;
        uint64_t at = callable_align_up(end);
        if (at == 0 || __builtin_add_overflow(at, c->binary_size, &end))
            return simpler_fail(INVALID, "desc.children[%u].binary_size = %llu: the image size overflows", i,
                                (unsigned long long)c->binary_size);
    }
    if (end > SIZE_MAX)
        return simpler_fail(INVALID, "desc: the image would be %llu bytes, more than this process can address",
                            (unsigned long long)end);
    *size = end;
    *scalar_count = scalars;
    return 0;
}

static void image_write(const SimplerCallableDesc *d, const char *name_field, uint64_t size, uint32_t scalars,
                        uint8_t *out)
{
    memset(out, 0, (size_t)size);
    SimplerCallableHeader h;
    memset(&h, 0, sizeof h);
    h.magic = SIMPLER_CALLABLE_MAGIC;
    const char *const *names = desc_kernel_names(d);
    h.format_version = names != NULL ? SIMPLER_CALLABLE_FORMAT_VERSION_NAMES : SIMPLER_CALLABLE_FORMAT_VERSION;
    h.header_size = sizeof h;
    h.signature_count = d->signature_count;
    h.image_size = size;
    h.scalar_count = scalars;
    h.child_count = d->child_count;
    h.orchestration_offset = callable_orchestration_offset(d->signature_count, d->child_count, names != NULL);
    h.orchestration_size = d->orchestration_size;
    memcpy(h.entry_name, name_field, sizeof h.entry_name);
    memcpy(out, &h, sizeof h);
    if (d->signature_count != 0)
        memcpy(out + sizeof h, d->signature, d->signature_count);
    memcpy(out + h.orchestration_offset, d->orchestration, (size_t)d->orchestration_size);

    uint64_t table = callable_child_table_offset(d->signature_count);
    uint64_t end = h.orchestration_offset + h.orchestration_size;
    for (uint32_t i = 0; i < d->child_count; i++) {
        const SimplerCallableChildDesc *cd = &d->children[i];
        SimplerCallableChild c;
        memset(&c, 0, sizeof c);
        c.func_id = cd->func_id;
        c.core_type = cd->core_type;
        c.signature_count = cd->signature_count;
        c.binary_offset = callable_align_up(end);
        c.binary_size = cd->binary_size;
        if (cd->signature_count != 0)
            memcpy(c.signature, cd->signature, cd->signature_count);
        memcpy(out + table + (uint64_t)i * sizeof c, &c, sizeof c);
        if (names != NULL)
            memcpy(out + table + (uint64_t)d->child_count * sizeof c + (uint64_t)i * SIMPLER_CALLABLE_KERNEL_NAME_BYTES,
                   names[i], strlen(names[i]));
        memcpy(out + c.binary_offset, cd->binary, (size_t)cd->binary_size);
        end = c.binary_offset + c.binary_size;
    }
}

int simpler_callable_build(const SimplerCallableDesc *desc, void *out, size_t out_capacity, size_t *out_size)
{
    simpler_error_clear();
    if (desc == NULL || out_size == NULL)
        return simpler_fail(INVALID, "%s: NULL", desc == NULL ? "desc" : "out_size");
    char name_field[SIMPLER_CALLABLE_ENTRY_NAME_BYTES];
    uint64_t size = 0;
    uint32_t scalars = 0;
    int rc = desc_check(desc, name_field, &size, &scalars);
    if (rc != 0)
        return rc;
    if (out == NULL && out_capacity == 0) {
        *out_size = (size_t)size;
        return 0;
    }
    if (out == NULL)
        return simpler_fail(INVALID, "out = NULL with out_capacity = %zu (NULL and 0 ask for the size)",
                            out_capacity);
    if ((uintptr_t)out % SIMPLER_CALLABLE_ALIGN != 0)
        return simpler_fail(INVALID, "out = %p: not %d-byte aligned", out, SIMPLER_CALLABLE_ALIGN);
    if (out_capacity < size)
        return simpler_fail(INVALID, "out_capacity = %zu: the image needs %llu bytes", out_capacity,
                            (unsigned long long)size);
    image_write(desc, name_field, size, scalars, out);
    assert(callable_image_check(out, (size_t)size, NULL) == 0);
    *out_size = (size_t)size;
    return 0;
}
