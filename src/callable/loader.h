/*
 * loader — turns a checked callable image into loaded code.
 *
 * Each binary of the image (the orchestration, then each child kernel) is
 * first checked as an ELF shared object for this host (elf_check.h: a
 * truncated or corrupt binary is refused before dlopen could fault on
 * it), then written to its own anonymous memory file (memfd_create) and
 * dlopen'ed from /proc/self/fd/N with RTLD_NOW | RTLD_LOCAL, so two images
 * (or two loads of one image) never share code or static state. The
 * memory file is closed as soon as it is loaded (the mapping keeps its
 * pages), so a loaded callable holds no file descriptor; since a closed
 * descriptor's /proc path stays the loaded object's name, each load moves
 * its descriptor to a number whose path names no live object, and the
 * dynamic loader cannot confuse two loads by name. Binaries are trusted
 * code: loading runs their constructors.
 *
 * Who calls it: program-mode register and kernel-mode prepare (through the
 * residency table), and simpler_graph_requirements. Not thread-safe per
 * loaded_callable; distinct loads may run concurrently (the counters are
 * atomic).
 */
#ifndef SIMPLER_CALLABLE_LOADER_H
#define SIMPLER_CALLABLE_LOADER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "simpler/callable.h"
#include "simpler/task_args.h"

/* The orchestration entry, as declared by include/simpler/orchestration.h
 * (SimplerOrchEntryFn); the struct stays incomplete here. */
struct SimplerOrch;
typedef int (*callable_orch_entry_fn)(struct SimplerOrch *orch, const ChipStorageTaskArgs *args);

/* dlopens made by successful loads, kept per context: `host` counts
 * orchestration binaries (get_host_dlopen_count), `aicpu` counts child
 * kernel binaries (get_aicpu_dlopen_count). A failed load adds nothing. */
typedef struct callable_dlopen_counts {
    atomic_size_t host;
    atomic_size_t aicpu;
} callable_dlopen_counts;

/* One loaded child kernel. */
typedef struct callable_kernel {
    int32_t func_id;
    uint32_t core_type;        /* SIMPLER_CORE_TYPE_AIC / _AIV */
    uint32_t signature_count;
    uint8_t signature[SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE];
    char name[SIMPLER_CALLABLE_KERNEL_NAME_BYTES]; /* the image's name for it; "" when it has none */
    void *entry;               /* the binary's kernel_entry symbol */
    void *handle;              /* dlopen handle */
} callable_kernel;

/* A loaded callable: owns its handles and a copy of everything it needs
 * from the image (the image itself may be freed after callable_load). */
typedef struct loaded_callable {
    callable_orch_entry_fn orch_entry;
    void *orch_handle;
    char entry_name[SIMPLER_CALLABLE_ENTRY_NAME_BYTES];
    uint32_t signature_count;
    uint32_t tensor_count;     /* IN/OUT/INOUT entries */
    uint32_t scalar_count;     /* effective SCALAR entries */
    uint8_t signature[SIMPLER_CALLABLE_MAX_SIGNATURE];
    uint32_t kernel_count;
    callable_kernel *kernels;  /* kernel_count entries, in image order */
    int16_t kernel_index[SIMPLER_CALLABLE_FUNC_ID_LIMIT]; /* func_id -> index into kernels, -1 = none */
} loaded_callable;

/* Checks the image with callable_image_check, then loads every binary.
 * `counts` may be NULL. On success *out owns the loaded callable (release
 * with callable_unload) and counts grow by 1 host + child_count aicpu.
 * Returns 0; PTO_RUNTIME_ERR_INVALID_ARGUMENT (-1005) for a NULL out, a
 * malformed image, a binary that is not an ELF shared object for this
 * host (elf_shared_object_check), one dlopen rejects (unresolved
 * symbols) or a missing entry symbol; PTO_RUNTIME_ERR_OUT_OF_MEMORY
 * (-1007) when host memory or a memory file cannot be had, including when
 * the process has no file descriptor left for the memory file or for
 * dlopen. Every refusal logs a reason naming the binary ("child 2
 * (func_id 7)"). On failure everything opened is closed, *out and counts
 * are untouched. */
int callable_load(const void *image, size_t size, callable_dlopen_counts *counts, loaded_callable **out);

/* dlcloses every handle and frees `lc`. NULL is a no-op. */
void callable_unload(loaded_callable *lc);

/* The child kernel with `func_id`, or NULL when the image has none. */
const callable_kernel *callable_kernel_find(const loaded_callable *lc, int32_t func_id);

#endif
