/* callable_image_check: the one validator of callable images. Each step
 * checks one rule and reads only bytes earlier steps proved in bounds;
 * every refusal records its reason (common/error.h). */
#include <stdio.h>
#include <string.h>

#include "callable/callable_image.h"
#include "common/error.h"
#include "simpler/runtime_c_api.h"

#define INVALID PTO_RUNTIME_ERR_INVALID_ARGUMENT

/* The offset of the first nonzero byte in [from, to), or `to`. */
static uint64_t first_nonzero(const uint8_t *p, uint64_t from, uint64_t to)
{
    for (uint64_t i = from; i < to; i++) {
        if (p[i] != 0)
            return i;
    }
    return to;
}

static int header_check(const SimplerCallableHeader *h, size_t size)
{
    if (h->magic != SIMPLER_CALLABLE_MAGIC)
        return simpler_fail(INVALID, "callable image: magic = 0x%08x: expected 0x%08x (\"SPCI\")", h->magic,
                            SIMPLER_CALLABLE_MAGIC);
    if (h->format_version != SIMPLER_CALLABLE_FORMAT_VERSION &&
        h->format_version != SIMPLER_CALLABLE_FORMAT_VERSION_NAMES)
        return simpler_fail(INVALID, "callable image: format_version = %u: expected %u or %u", h->format_version,
                            SIMPLER_CALLABLE_FORMAT_VERSION, SIMPLER_CALLABLE_FORMAT_VERSION_NAMES);
    if (h->header_size != sizeof(SimplerCallableHeader))
        return simpler_fail(INVALID, "callable image: header_size = %u: expected %zu", h->header_size,
                            sizeof(SimplerCallableHeader));
    if (h->image_size != (uint64_t)size)
        return simpler_fail(INVALID, "callable image: image_size = %llu but callable_size = %zu: they must be equal",
                            (unsigned long long)h->image_size, size);
    if (h->signature_count > SIMPLER_CALLABLE_MAX_SIGNATURE)
        return simpler_fail(INVALID, "callable image: signature_count = %u: at most %u", h->signature_count,
                            (unsigned)SIMPLER_CALLABLE_MAX_SIGNATURE);
    if (h->child_count > SIMPLER_CALLABLE_MAX_CHILDREN)
        return simpler_fail(INVALID, "callable image: child_count = %u: at most %u", h->child_count,
                            SIMPLER_CALLABLE_MAX_CHILDREN);
    for (int i = 0; i < 2; i++) {
        if (h->reserved[i] != 0)
            return simpler_fail(INVALID, "callable image: reserved[%d] = %llu: must be 0", i,
                                (unsigned long long)h->reserved[i]);
    }
    if (!callable_entry_name_valid(h->entry_name))
        return simpler_fail(INVALID, "callable image: entry_name is not a C identifier of 1..%d chars followed "
                                     "by zero bytes",
                            SIMPLER_CALLABLE_ENTRY_NAME_BYTES - 1);
    return 0;
}

/* The signature, its counts and the cached scalar_count. */
static int signature_check(const SimplerCallableHeader *h, const uint8_t *base, size_t size, callable_view *v)
{
    uint64_t table = callable_child_table_offset(h->signature_count);
    if (table > size)
        return simpler_fail(INVALID, "callable image: %u signature bytes end past the image (%zu bytes)",
                            h->signature_count, size);
    const uint8_t *sig = base + sizeof *h;
    uint32_t tensors, scalars;
    if (callable_signature_scan(sig, h->signature_count, &tensors, &scalars) != 0)
        return simpler_fail(INVALID, "callable image: signature has an unknown direction (> %d) or a tensor after "
                                     "a scalar",
                            SIMPLER_ARG_INOUT);
    if (tensors > SIMPLER_MAX_TENSOR_ARGS || scalars > SIMPLER_MAX_SCALAR_ARGS)
        return simpler_fail(INVALID, "callable image: signature has %u tensors and %u scalars: at most %d and %d",
                            tensors, scalars, SIMPLER_MAX_TENSOR_ARGS, SIMPLER_MAX_SCALAR_ARGS);
    if (h->scalar_count != 0 && h->scalar_count != scalars)
        return simpler_fail(INVALID, "callable image: scalar_count = %u but the signature has %u scalars",
                            h->scalar_count, scalars);
    uint64_t nz = first_nonzero(base, sizeof *h + h->signature_count, table);
    if (nz != table)
        return simpler_fail(INVALID, "callable image: padding byte at offset %llu after the signature is not 0",
                            (unsigned long long)nz);
    v->signature = sig;
    v->signature_count = h->signature_count;
    v->tensor_count = tensors;
    v->scalar_count = scalars;
    return 0;
}

/* A binary must start exactly at `expect` (the canonical offset), be
 * non-empty, end inside the image, and the padding before it be zero.
 * On success *end is where it ends. `what` names it in the reason. */
static int binary_check(const uint8_t *base, size_t size, uint64_t prev_end, uint64_t offset, uint64_t bytes,
                        const char *what, uint64_t *end)
{
    uint64_t expect = callable_align_up(prev_end);
    if (expect == 0 || offset != expect)
        return simpler_fail(INVALID, "callable image: %s offset = %llu: expected %llu (canonical packing)", what,
                            (unsigned long long)offset, (unsigned long long)expect);
    if (bytes == 0)
        return simpler_fail(INVALID, "callable image: %s size = 0: a binary is not empty", what);
    if (offset > size || bytes > size - offset)
        return simpler_fail(INVALID, "callable image: %s ends at %llu, past the image's %zu bytes", what,
                            (unsigned long long)offset + bytes, size);
    uint64_t nz = first_nonzero(base, prev_end, offset);
    if (nz != offset)
        return simpler_fail(INVALID, "callable image: padding byte at offset %llu before the %s is not 0",
                            (unsigned long long)nz, what);
    *end = offset + bytes;
    return 0;
}

static int child_fields_check(const SimplerCallableChild *c, uint32_t i, uint8_t *seen)
{
    if (c->func_id < 0 || c->func_id >= SIMPLER_CALLABLE_FUNC_ID_LIMIT)
        return simpler_fail(INVALID, "callable image: child %u func_id = %d: must be in 0..%d", i, c->func_id,
                            SIMPLER_CALLABLE_FUNC_ID_LIMIT - 1);
    if (seen[c->func_id / 8] & (1u << (c->func_id % 8)))
        return simpler_fail(INVALID, "callable image: child %u func_id = %d: repeats an earlier child's", i,
                            c->func_id);
    if (c->core_type != SIMPLER_CORE_TYPE_AIC && c->core_type != SIMPLER_CORE_TYPE_AIV)
        return simpler_fail(INVALID, "callable image: child %u (func_id %d) core_type = %u: not AIC (0) or AIV (1)",
                            i, c->func_id, c->core_type);
    if (c->reserved0 != 0)
        return simpler_fail(INVALID, "callable image: child %u (func_id %d) reserved0 = %u: must be 0", i,
                            c->func_id, c->reserved0);
    if (c->signature_count > SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE)
        return simpler_fail(INVALID, "callable image: child %u (func_id %d) signature_count = %u: at most %d", i,
                            c->func_id, c->signature_count, SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE);
    int rc = callable_child_identity_check(c->func_id, c->core_type, c->reserved0, c->signature_count, seen);
    if (rc != 0)
        return rc;
    uint32_t tensors, scalars;
    if (callable_signature_scan(c->signature, c->signature_count, &tensors, &scalars) != 0)
        return simpler_fail(INVALID, "callable image: child %u (func_id %d) signature has an unknown direction "
                                     "or a tensor after a scalar",
                            i, c->func_id);
    uint64_t nz = first_nonzero(c->signature, c->signature_count, SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE);
    if (nz != SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE)
        return simpler_fail(INVALID, "callable image: child %u (func_id %d) signature[%llu] is unused and must be 0",
                            i, c->func_id, (unsigned long long)nz);
    return 0;
}

/* The child table and every binary, in canonical order: orchestration
 * first, then each child's, each at the next 64-byte boundary; the last
 * one ends exactly at the end of the image. */
static int body_check(const SimplerCallableHeader *h, const uint8_t *base, size_t size, callable_view *v)
{
    uint64_t table = callable_child_table_offset(h->signature_count);
    uint64_t table_end = table + (uint64_t)h->child_count * sizeof(SimplerCallableChild);
    const char *names = NULL;
    if (h->format_version == SIMPLER_CALLABLE_FORMAT_VERSION_NAMES) {
        names = (const char *)(base + table_end);
        table_end += (uint64_t)h->child_count * SIMPLER_CALLABLE_KERNEL_NAME_BYTES;
    }
    if (table_end > size)
        return simpler_fail(INVALID, "callable image: the table of %u children ends at %llu, past the image's %zu "
                                     "bytes",
                            h->child_count, (unsigned long long)table_end, size);
    const SimplerCallableChild *children = (const SimplerCallableChild *)(const void *)(base + table);

    uint64_t end;
    int rc = binary_check(base, size, table_end, h->orchestration_offset, h->orchestration_size,
                          "orchestration binary", &end);
    if (rc != 0)
        return rc;
    uint8_t seen[SIMPLER_CALLABLE_FUNC_ID_LIMIT / 8];
    memset(seen, 0, sizeof seen);
    for (uint32_t i = 0; i < h->child_count; i++) {
        const SimplerCallableChild *c = &children[i];
        char what[64];
        rc = child_fields_check(c, i, seen);
        if (rc != 0)
            return rc;
        if (names != NULL && !callable_kernel_name_valid(names + (size_t)i * SIMPLER_CALLABLE_KERNEL_NAME_BYTES))
            return simpler_fail(INVALID, "callable image: child %u (func_id %d) name is not 1..%d of "
                                         "[A-Za-z0-9_.+-] followed by zero bytes",
                                i, c->func_id, SIMPLER_CALLABLE_KERNEL_NAME_BYTES - 1);
        snprintf(what, sizeof what, "child %u (func_id %d) binary", i, c->func_id);
        rc = binary_check(base, size, end, c->binary_offset, c->binary_size, what, &end);
        if (rc != 0)
            return rc;
    }
    if (end != size)
        return simpler_fail(INVALID, "callable image: the last binary ends at %llu but the image has %zu bytes",
                            (unsigned long long)end, size);
    v->child_count = h->child_count;
    v->children = children;
    v->kernel_names = names;
    v->orchestration = base + h->orchestration_offset;
    v->orchestration_size = (size_t)h->orchestration_size;
    return 0;
}

int callable_image_check(const void *image, size_t size, callable_view *out)
{
    if (image == NULL)
        return simpler_fail(INVALID, "callable: NULL");
    if ((uintptr_t)image % SIMPLER_CALLABLE_ALIGN != 0)
        return simpler_fail(INVALID, "callable = %p: not %d-byte aligned", image, SIMPLER_CALLABLE_ALIGN);
    if (size < sizeof(SimplerCallableHeader))
        return simpler_fail(INVALID, "callable_size = %zu: smaller than the %zu-byte header", size,
                            sizeof(SimplerCallableHeader));
    const uint8_t *base = image;
    const SimplerCallableHeader *h = image;
    callable_view v;
    memset(&v, 0, sizeof v);
    int rc = header_check(h, size);
    rc = rc ? rc : signature_check(h, base, size, &v);
    rc = rc ? rc : body_check(h, base, size, &v);
    if (rc != 0)
        return rc;
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
