/* simpler_callable_build: packs a descriptor into a canonical image.
 * Validates the whole descriptor and computes the size first, then writes;
 * a failed call writes nothing. */
#include <assert.h>
#include <string.h>

#include "callable/callable_image.h"
#include "simpler/runtime_c_api.h"
#include "common/error.h"

#define INVALID PTO_RUNTIME_ERR_INVALID_ARGUMENT

static int child_desc_check(const SimplerCallableChildDesc *c, uint8_t *seen)
{
    if (callable_child_identity_check(c->func_id, c->core_type, c->reserved0, c->signature_count, seen) != 0)
        return INVALID;
    if (c->signature_count != 0 && c->signature == NULL)
        return INVALID;
    if (c->binary == NULL || c->binary_size == 0)
        return INVALID;
    uint32_t tensors, scalars;
    return callable_signature_scan(c->signature, c->signature_count, &tensors, &scalars);
}

/* Every name of d->kernel_names (when given) fits a name field. */
static int kernel_names_check(const SimplerCallableDesc *d)
{
    if (d->struct_size == SIMPLER_CALLABLE_DESC_V1_SIZE || d->kernel_names == NULL)
        return 0;
    for (uint32_t i = 0; i < d->child_count; i++) {
        char field[SIMPLER_CALLABLE_KERNEL_NAME_BYTES];
        const char *name = d->kernel_names[i];
        if (name == NULL || memchr(name, '\0', sizeof field) == NULL)
            return INVALID;
        memset(field, 0, sizeof field);
        memcpy(field, name, strlen(name));
        if (!callable_kernel_name_valid(field))
            return INVALID;
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
        return INVALID;
    memset(field, 0, SIMPLER_CALLABLE_ENTRY_NAME_BYTES);
    memcpy(field, name, n);
    return callable_entry_name_valid(field) ? 0 : INVALID;
}

/* Checks everything about `d` and computes the image size and the scalar
 * count to record. */
static int desc_check(const SimplerCallableDesc *d, char *name_field, uint64_t *size, uint32_t *scalar_count)
{
    if ((d->struct_size != sizeof *d && d->struct_size != SIMPLER_CALLABLE_DESC_V1_SIZE) || d->reserved != 0)
        return INVALID;
    if (d->signature_count > SIMPLER_CALLABLE_MAX_SIGNATURE || d->child_count > SIMPLER_CALLABLE_MAX_CHILDREN)
        return INVALID;
    if ((d->signature_count != 0 && d->signature == NULL) || (d->child_count != 0 && d->children == NULL))
        return INVALID;
    if (d->orchestration == NULL || d->orchestration_size == 0 || d->entry_name == NULL)
        return INVALID;
    if (entry_name_to_field(d->entry_name, name_field) != 0 || kernel_names_check(d) != 0)
        return INVALID;
    uint32_t tensors, scalars;
    if (callable_signature_scan(d->signature, d->signature_count, &tensors, &scalars) != 0 ||
        tensors > SIMPLER_MAX_TENSOR_ARGS || scalars > SIMPLER_MAX_SCALAR_ARGS)
        return INVALID;
    if (d->scalar_count != 0 && d->scalar_count != scalars)
        return INVALID;

    uint8_t seen[SIMPLER_CALLABLE_FUNC_ID_LIMIT / 8];
    memset(seen, 0, sizeof seen);
    uint64_t end = callable_orchestration_offset(d->signature_count, d->child_count, desc_kernel_names(d) != NULL);
    if (__builtin_add_overflow(end, d->orchestration_size, &end))
        return INVALID;
    for (uint32_t i = 0; i < d->child_count; i++) {
        const SimplerCallableChildDesc *c = &d->children[i];
        uint64_t at = callable_align_up(end);
        if (child_desc_check(c, seen) != 0 || at == 0 || __builtin_add_overflow(at, c->binary_size, &end))
            return INVALID;
    }
    if (end > SIZE_MAX)
        return INVALID;
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
        return INVALID;
    char name_field[SIMPLER_CALLABLE_ENTRY_NAME_BYTES];
    uint64_t size;
    uint32_t scalars;
    if (desc_check(desc, name_field, &size, &scalars) != 0)
        return INVALID;
    if (out == NULL && out_capacity == 0) {
        *out_size = (size_t)size;
        return 0;
    }
    if (out == NULL || (uintptr_t)out % SIMPLER_CALLABLE_ALIGN != 0 || out_capacity < size)
        return INVALID;
    image_write(desc, name_field, size, scalars, out);
    assert(callable_image_check(out, (size_t)size, NULL) == 0);
    *out_size = (size_t)size;
    return 0;
}
