/* callable_image_check: the one validator of callable images. Each step
 * checks one rule and reads only bytes earlier steps proved in bounds. */
#include <string.h>

#include "callable/callable_image.h"
#include "simpler/runtime_c_api.h"
#include "common/error.h"

#define INVALID PTO_RUNTIME_ERR_INVALID_ARGUMENT

static int bytes_zero(const uint8_t *p, uint64_t from, uint64_t to)
{
    for (uint64_t i = from; i < to; i++) {
        if (p[i] != 0)
            return 0;
    }
    return 1;
}

static int header_check(const SimplerCallableHeader *h, size_t size)
{
    if (h->magic != SIMPLER_CALLABLE_MAGIC || h->format_version != SIMPLER_CALLABLE_FORMAT_VERSION ||
        h->header_size != sizeof(SimplerCallableHeader))
        return INVALID;
    if (h->image_size != (uint64_t)size)
        return INVALID;
    if (h->signature_count > SIMPLER_CALLABLE_MAX_SIGNATURE || h->child_count > SIMPLER_CALLABLE_MAX_CHILDREN)
        return INVALID;
    if (h->reserved[0] != 0 || h->reserved[1] != 0)
        return INVALID;
    if (!callable_entry_name_valid(h->entry_name))
        return INVALID;
    return 0;
}

/* The signature, its counts and the cached scalar_count. */
static int signature_check(const SimplerCallableHeader *h, const uint8_t *base, size_t size, callable_view *v)
{
    uint64_t table = callable_child_table_offset(h->signature_count);
    if (table > size)
        return INVALID;
    const uint8_t *sig = base + sizeof *h;
    uint32_t tensors, scalars;
    if (callable_signature_scan(sig, h->signature_count, &tensors, &scalars) != 0)
        return INVALID;
    if (tensors > SIMPLER_MAX_TENSOR_ARGS || scalars > SIMPLER_MAX_SCALAR_ARGS)
        return INVALID;
    if (h->scalar_count != 0 && h->scalar_count != scalars)
        return INVALID;
    if (!bytes_zero(base, sizeof *h + h->signature_count, table))
        return INVALID;
    v->signature = sig;
    v->signature_count = h->signature_count;
    v->tensor_count = tensors;
    v->scalar_count = scalars;
    return 0;
}

/* A binary must start exactly at `expect` (the canonical offset), be
 * non-empty, end inside the image, and the padding before it be zero.
 * On success *end is where it ends. */
static int binary_check(const uint8_t *base, size_t size, uint64_t prev_end, uint64_t offset, uint64_t bytes,
                        uint64_t *end)
{
    uint64_t expect = callable_align_up(prev_end);
    if (expect == 0 || offset != expect || bytes == 0 || offset > size || bytes > size - offset)
        return INVALID;
    if (!bytes_zero(base, prev_end, offset))
        return INVALID;
    *end = offset + bytes;
    return 0;
}

static int child_fields_check(const SimplerCallableChild *c, uint8_t *seen)
{
    if (callable_child_identity_check(c->func_id, c->core_type, c->reserved0, c->signature_count, seen) != 0)
        return INVALID;
    uint32_t tensors, scalars;
    if (callable_signature_scan(c->signature, c->signature_count, &tensors, &scalars) != 0)
        return INVALID;
    if (!bytes_zero(c->signature, c->signature_count, SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE))
        return INVALID;
    return 0;
}

/* The child table and every binary, in canonical order: orchestration
 * first, then each child's, each at the next 64-byte boundary; the last
 * one ends exactly at the end of the image. */
static int body_check(const SimplerCallableHeader *h, const uint8_t *base, size_t size, callable_view *v)
{
    uint64_t table = callable_child_table_offset(h->signature_count);
    uint64_t table_end = table + (uint64_t)h->child_count * sizeof(SimplerCallableChild);
    if (table_end > size)
        return INVALID;
    const SimplerCallableChild *children = (const SimplerCallableChild *)(const void *)(base + table);

    uint64_t end;
    if (binary_check(base, size, table_end, h->orchestration_offset, h->orchestration_size, &end) != 0)
        return INVALID;
    uint8_t seen[SIMPLER_CALLABLE_FUNC_ID_LIMIT / 8];
    memset(seen, 0, sizeof seen);
    for (uint32_t i = 0; i < h->child_count; i++) {
        const SimplerCallableChild *c = &children[i];
        if (child_fields_check(c, seen) != 0)
            return INVALID;
        if (binary_check(base, size, end, c->binary_offset, c->binary_size, &end) != 0)
            return INVALID;
    }
    if (end != size)
        return INVALID;
    v->child_count = h->child_count;
    v->children = children;
    v->orchestration = base + h->orchestration_offset;
    v->orchestration_size = (size_t)h->orchestration_size;
    return 0;
}

int callable_image_check(const void *image, size_t size, callable_view *out)
{
    if (image == NULL || (uintptr_t)image % SIMPLER_CALLABLE_ALIGN != 0 || size < sizeof(SimplerCallableHeader))
        return INVALID;
    const uint8_t *base = image;
    const SimplerCallableHeader *h = image;
    callable_view v;
    memset(&v, 0, sizeof v);
    if (header_check(h, size) != 0 || signature_check(h, base, size, &v) != 0 || body_check(h, base, size, &v) != 0)
        return INVALID;
    v.base = base;
    v.image_size = size;
    v.header = h;
    v.entry_name = h->entry_name;
    if (out != NULL)
        *out = v;
    return 0;
}

int simpler_callable_check(const void *image, size_t size)
{
    simpler_error_clear();
    return callable_image_check(image, size, NULL);
}
