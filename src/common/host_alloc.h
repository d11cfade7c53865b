/*
 * host_alloc — the one door for host heap memory inside libsimpler.
 *
 * Every host allocation made by simdev and by the runtime goes through
 * these functions (SQLite-style hook), so tests can count allocations
 * ("launch allocates nothing") and fail the k-th one to sweep failure
 * paths. Thread-safe.
 */
#ifndef SIMPLER_COMMON_HOST_ALLOC_H
#define SIMPLER_COMMON_HOST_ALLOC_H

#include <stddef.h>
#include <stdint.h>

void *host_alloc(size_t size);                 /* malloc; NULL on failure or injected fault */
void *host_calloc(size_t count, size_t size);  /* calloc; overflow-checked */
void *host_realloc(void *ptr, size_t size);    /* realloc; on failure ptr is untouched */
void host_free(void *ptr);                     /* free; NULL is a no-op */

/* Allocations (alloc, calloc, realloc) attempted since start, including
 * failed ones; and frees of non-NULL pointers. */
uint64_t host_alloc_count(void);
uint64_t host_free_count(void);

/* Device scope: the platform seam brackets every device-runtime call with
 * enter/leave (per thread, nestable), so allocations the device runtime
 * makes on the caller's thread (simdev recording a captured operation, for
 * one) are told apart from the runtime's own. host_alloc_count_runtime()
 * is host_alloc_count() less the allocations attempted in device scope. */
void host_alloc_device_scope_enter(void);
int host_alloc_device_scope_leave(int rc); /* returns rc, for tail calls */
uint64_t host_alloc_count_runtime(void);

/* The nth (1-based) allocation attempted from now on fails (returns NULL);
 * 0 disarms. Only one arming at a time. */
void host_alloc_fail_nth(uint64_t nth);

#endif
