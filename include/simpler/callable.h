/*
 * simpler — the callable image format and its builder
 * (docs/file-formats.md has the byte tables).
 *
 * A callable image is one contiguous, position-independent blob: a header,
 * the signature (one byte per argument), a table of children, in format
 * version 2 a table of kernel names, then the orchestration binary and
 * each child's binary, every binary starting at the next 64-byte boundary
 * after the previous one. All fields are
 * fixed-width little-endian. An image is passed to the runtime 64-byte
 * aligned. The structs below describe the bytes exactly (pinned by static
 * asserts here and by tests/unit/abi).
 */
#ifndef SIMPLER_CALLABLE_H
#define SIMPLER_CALLABLE_H

#include <stddef.h>
#include <stdint.h>

#include "simpler/task_args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- format constants ---- */
#define SIMPLER_CALLABLE_MAGIC 0x49435053u   /* bytes "SPCI" */
#define SIMPLER_CALLABLE_FORMAT_VERSION 1       /* an image without kernel names */
#define SIMPLER_CALLABLE_FORMAT_VERSION_NAMES 2 /* the same, plus one name per kernel */
/* A kernel name: 1..31 of [A-Za-z0-9_.+-], NUL, then zeros. */
#define SIMPLER_CALLABLE_KERNEL_NAME_BYTES 32
#define SIMPLER_CALLABLE_ALIGN 64            /* image base and every binary */
#define SIMPLER_CALLABLE_ENTRY_NAME_BYTES 64 /* entry name: <= 63 chars + NUL */
#define SIMPLER_CALLABLE_MAX_CHILDREN 1024   /* children in one image */
#define SIMPLER_CALLABLE_FUNC_ID_LIMIT 1024  /* 0 <= func_id < limit */
#define SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE 32
/* An orchestration takes at most every tensor and every scalar of a call. */
#define SIMPLER_CALLABLE_MAX_SIGNATURE (SIMPLER_MAX_TENSOR_ARGS + SIMPLER_MAX_SCALAR_ARGS)
/* Each child binary exports this symbol (a kernel body). */
#define SIMPLER_CALLABLE_KERNEL_ENTRY "kernel_entry"

/* ArgDirection: one byte per signature entry. Tensors (IN, OUT, INOUT)
 * come before every SCALAR. */
#define SIMPLER_ARG_SCALAR 0
#define SIMPLER_ARG_IN 1
#define SIMPLER_ARG_OUT 2
#define SIMPLER_ARG_INOUT 3

/* Core type of a child kernel. */
#define SIMPLER_CORE_TYPE_AIC 0 /* cube */
#define SIMPLER_CORE_TYPE_AIV 1 /* vector */

/* The image header, at offset 0. */
typedef struct SimplerCallableHeader {
    uint32_t magic;                 /* SIMPLER_CALLABLE_MAGIC */
    uint32_t format_version;        /* SIMPLER_CALLABLE_FORMAT_VERSION or _VERSION_NAMES */
    uint32_t header_size;           /* sizeof(SimplerCallableHeader) = 128 */
    uint32_t signature_count;       /* entries at offset header_size */
    uint64_t image_size;            /* total bytes; equals the end of the last binary */
    uint32_t scalar_count;          /* SCALAR entries, cached; 0 = not recorded */
    uint32_t child_count;           /* 0..SIMPLER_CALLABLE_MAX_CHILDREN */
    uint64_t orchestration_offset;  /* first 64-byte boundary after the child table */
    uint64_t orchestration_size;    /* > 0 */
    char entry_name[SIMPLER_CALLABLE_ENTRY_NAME_BYTES]; /* C identifier, NUL, then zeros */
    uint64_t reserved[2];           /* must be zero */
} SimplerCallableHeader;

/* One child (kernel), in the table at the first 64-byte boundary after the
 * signature. In format version 2 the child table is followed at once by
 * child_count name fields of SIMPLER_CALLABLE_KERNEL_NAME_BYTES, in child
 * order, and the orchestration binary starts at the next 64-byte boundary
 * after them. */
typedef struct SimplerCallableChild {
    int32_t func_id;          /* 0 <= func_id < 1024, unique in the image */
    uint32_t core_type;       /* SIMPLER_CORE_TYPE_AIC or _AIV */
    uint32_t signature_count; /* 0..32 */
    uint32_t reserved0;       /* must be zero */
    uint64_t binary_offset;   /* next 64-byte boundary after the previous binary */
    uint64_t binary_size;     /* > 0 */
    uint8_t signature[SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE]; /* unused entries zero */
} SimplerCallableChild;

SIMPLER_STATIC_ASSERT(sizeof(SimplerCallableHeader) == 128, "callable header is 128 bytes");
SIMPLER_STATIC_ASSERT(offsetof(SimplerCallableHeader, image_size) == 16, "callable header layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerCallableHeader, scalar_count) == 24, "callable header layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerCallableHeader, orchestration_offset) == 32, "callable header layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerCallableHeader, entry_name) == 48, "callable header layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerCallableHeader, reserved) == 112, "callable header layout");
SIMPLER_STATIC_ASSERT(sizeof(SimplerCallableChild) == 64, "callable child is 64 bytes");
SIMPLER_STATIC_ASSERT(offsetof(SimplerCallableChild, binary_offset) == 16, "callable child layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerCallableChild, signature) == 32, "callable child layout");

/* ---- builder ---- */

/* One child for simpler_callable_build. Pointers are borrowed. */
typedef struct SimplerCallableChildDesc {
    int32_t func_id;
    uint32_t core_type;
    uint32_t signature_count;  /* 0..32 */
    uint32_t reserved0;        /* must be zero */
    const uint8_t *signature;  /* signature_count ArgDirection bytes; may be NULL when 0 */
    const void *binary;        /* ELF shared object exporting kernel_entry */
    uint64_t binary_size;      /* > 0 */
} SimplerCallableChildDesc;

/* What simpler_callable_build packs. Pointers are borrowed for the call. */
typedef struct SimplerCallableDesc {
    uint32_t struct_size;       /* sizeof(SimplerCallableDesc) */
    uint32_t signature_count;   /* 0..SIMPLER_CALLABLE_MAX_SIGNATURE */
    const uint8_t *signature;   /* ArgDirection bytes; may be NULL when 0 */
    const void *orchestration;  /* ELF shared object exporting entry_name */
    uint64_t orchestration_size; /* > 0 */
    const char *entry_name;     /* C identifier, 1..63 chars */
    uint32_t scalar_count;      /* 0 = derive from the signature; else must match it */
    uint32_t child_count;       /* 0..SIMPLER_CALLABLE_MAX_CHILDREN */
    const SimplerCallableChildDesc *children; /* child_count entries; may be NULL when 0 */
    uint64_t reserved;          /* must be zero */
    /* Added with format version 2; a caller whose struct_size is
     * SIMPLER_CALLABLE_DESC_V1_SIZE has no such field. NULL, or
     * child_count kernel names (each 1..31 of [A-Za-z0-9_.+-]; every one
     * given) packed into a version 2 image. */
    const char *const *kernel_names;
} SimplerCallableDesc;

/* The struct_size of a descriptor without kernel_names. */
#define SIMPLER_CALLABLE_DESC_V1_SIZE offsetof(SimplerCallableDesc, kernel_names)

/* Packs `desc` into a canonical image: format version 2 when
 * desc->kernel_names is given, else version 1, byte for byte as before
 * names existed. The scalar_count field of the image always records the
 * count of SCALAR signature entries.
 *
 * Size query: with out == NULL and out_capacity == 0, writes the image size
 * to *out_size and returns 0. Build: `out` (64-byte aligned, out_capacity
 * bytes, owned by the caller) receives the image and *out_size its size.
 * The result passes simpler_callable_check.
 *
 * Returns 0, or PTO_RUNTIME_ERR_INVALID_ARGUMENT (-1005) for a NULL desc or
 * out_size, a struct_size other than sizeof(SimplerCallableDesc) or
 * SIMPLER_CALLABLE_DESC_V1_SIZE, nonzero reserved, a NULL or invalid kernel
 * name, a signature or child
 * that breaks the format rules (order, counts, func_id range or
 * duplicates, core type), an invalid entry name, a disagreeing scalar_count,
 * a misaligned `out`, or out_capacity smaller than the image. On failure
 * nothing is written. Thread-safe; allocates nothing. */
SIMPLER_API int simpler_callable_build(const SimplerCallableDesc *desc, void *out, size_t out_capacity,
                                       size_t *out_size);

/* Validates an image the way every runtime entry point does,
 * reading only. Returns 0 or -1005. Thread-safe. */
SIMPLER_API int simpler_callable_check(const void *image, size_t size);

/* simpler_callable_check, then what loading the image needs of its
 * binaries, without loading any: each binary is an ELF shared object for
 * this machine (identification, class, type, machine, every header table
 * and segment inside the binary; the check the loader makes before
 * dlopen), the orchestration exports its entry function and each kernel
 * exports kernel_entry. `simpler pack` and `simpler inspect` run it.
 * Reads only, runs no code of the image. Returns 0, or -1005 with a
 * reason naming the binary ("child 2 (func_id 7)") and the problem
 * (simpler_last_error_message). Thread-safe. */
SIMPLER_API int simpler_callable_verify(const void *image, size_t size);

/* Reads the whole file at `path` (a callable image, as `simpler pack` or
 * simpler_add_callable writes it) into new host memory aligned to
 * SIMPLER_CALLABLE_ALIGN (64) bytes, which the registration and prepare
 * calls require. On success *image receives the memory (owned by the
 * caller, released with simpler_callable_free) and *size its byte count.
 * The bytes are not checked: simpler_callable_check, or the call the
 * image is passed to, does that.
 * Returns 0; -1005 (PTO_RUNTIME_ERR_INVALID_ARGUMENT) for a NULL path,
 * image or size, or a file that cannot be opened or read, is not a
 * regular file or is empty (the reason names the path and the cause);
 * -1007 (PTO_RUNTIME_ERR_OUT_OF_MEMORY) when host memory runs out. On
 * failure *image and *size are not written and nothing stays allocated.
 * Thread-safe. */
SIMPLER_API int simpler_callable_load_file(const char *path, void **image, size_t *size);

/* Releases memory simpler_callable_load_file returned. NULL is a no-op;
 * any other pointer must come from simpler_callable_load_file and not be
 * released already. Thread-safe. */
SIMPLER_API void simpler_callable_free(void *image);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLER_CALLABLE_H */
