/*
 * callable_image — reading and checking callable images.
 *
 * callable_image_check is THE validator: every entry point that accepts an
 * image (program register, kernel prepare, graph requirements, the loader,
 * `simpler inspect`) calls it first and uses the view it fills, so no code
 * path reads an unchecked image. The layout helpers are shared with the
 * builder so both agree on canonical packing.
 */
#ifndef SIMPLER_CALLABLE_CALLABLE_IMAGE_H
#define SIMPLER_CALLABLE_CALLABLE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "simpler/callable.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "callable images are little-endian and read in place: big-endian hosts are not supported"
#endif

/* A checked image, pointing into the caller's bytes (valid as long as they
 * are). Counts are the effective ones. */
typedef struct callable_view {
    const uint8_t *base;                 /* the image, 64-byte aligned */
    size_t image_size;
    const SimplerCallableHeader *header;
    const char *entry_name;              /* NUL-terminated, inside the header */
    const uint8_t *signature;            /* signature_count ArgDirection bytes */
    uint32_t signature_count;
    uint32_t tensor_count;               /* IN/OUT/INOUT entries */
    uint32_t scalar_count;               /* effective: SCALAR entries */
    uint32_t child_count;
    const SimplerCallableChild *children; /* child_count entries */
    const char *kernel_names;            /* version 2: child_count fields of
                                            SIMPLER_CALLABLE_KERNEL_NAME_BYTES; else NULL */
    const uint8_t *orchestration;        /* the orchestration binary */
    size_t orchestration_size;
} callable_view;

/* Validates `size` bytes at `image` and, when `out` is not NULL and the
 * image is valid, fills *out. Reads only. Returns 0 or
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT (-1005) for: NULL, a misaligned pointer,
 * size not equal to the header's image_size, bad magic/version/header
 * size, offsets out of bounds or overlapping (any non-canonical packing),
 * nonzero padding or reserved bytes, an invalid entry name, a bad
 * signature (unknown direction, scalar before tensor, counts over limits),
 * a disagreeing nonzero scalar_count, a bad child (core type, func_id
 * range or duplicate, signature), or a zero-size binary. */
int callable_image_check(const void *image, size_t size, callable_view *out);

/* The binary of child `i` of a checked view. */
static inline const uint8_t *callable_view_child_binary(const callable_view *v, uint32_t i)
{
    return v->base + v->children[i].binary_offset;
}

/* The name of child `i` of a checked view, or NULL when the image
 * carries no names (format version 1). */
static inline const char *callable_view_kernel_name(const callable_view *v, uint32_t i)
{
    return v->kernel_names != NULL ? v->kernel_names + (size_t)i * SIMPLER_CALLABLE_KERNEL_NAME_BYTES : NULL;
}

/* ---- layout rules shared by the checker and the builder ---- */

/* Counts tensor and scalar entries of a signature of `count` bytes,
 * requiring known directions and every tensor before every scalar.
 * Returns 0 or -1005. */
int callable_signature_scan(const uint8_t *signature, uint32_t count, uint32_t *tensor_count,
                            uint32_t *scalar_count);

/* An entry name field: a C identifier of 1..63 chars, NUL, then zeros to
 * the end of `field` (SIMPLER_CALLABLE_ENTRY_NAME_BYTES bytes). */
int callable_entry_name_valid(const char *field);

/* A child's identity fields: func_id in range and not yet in `seen` (a
 * SIMPLER_CALLABLE_FUNC_ID_LIMIT-bit set, marked on success), a known core
 * type, reserved zero, signature count within the child limit. Returns 0
 * or -1005; `seen` changes only on success. */
int callable_child_identity_check(int32_t func_id, uint32_t core_type, uint32_t reserved0,
                                  uint32_t signature_count, uint8_t *seen);

/* A kernel name field: 1..31 of [A-Za-z0-9_.+-], NUL, then zeros to the
 * end of `field` (SIMPLER_CALLABLE_KERNEL_NAME_BYTES bytes). */
int callable_kernel_name_valid(const char *field);

/* Rounds `offset` up to SIMPLER_CALLABLE_ALIGN; returns 0 on overflow
 * (never a valid result, since the header occupies offset 0). */
uint64_t callable_align_up(uint64_t offset);

/* Offset of the child table for `signature_count` entries, and of the
 * orchestration binary after `child_count` children and, when `named`,
 * their name table. */
uint64_t callable_child_table_offset(uint32_t signature_count);
uint64_t callable_orchestration_offset(uint32_t signature_count, uint32_t child_count, int named);

#endif
