/*
 * A fake device allocator for the memory tests: a platform_ops table whose
 * mem_alloc hands out fresh, never-reused, 1024-aligned fake addresses
 * (never dereferenced) and whose mem_free accepts only live bases. It
 * counts both, so tests assert allocator calls and addresses, and it can
 * be told to fail an allocation or a free, or to misalign a base.
 */
#ifndef SIMPLER_TEST_FAKE_DEVICE_H
#define SIMPLER_TEST_FAKE_DEVICE_H

#include <stdint.h>
#include <string.h>

#include <simpler/simdev.h>

#include "platform/platform_ops.h"

#define FAKE_DEVICE_MAX_LIVE 32

typedef struct {
    platform_ops ops;
    uintptr_t next;         /* next fake address */
    uintptr_t live[FAKE_DEVICE_MAX_LIVE];
    size_t live_bytes[FAKE_DEVICE_MAX_LIVE];
    uint64_t alloc_calls;   /* attempted, failed ones included */
    uint64_t free_calls;
    uint64_t fail_alloc_at; /* alloc_calls value that fails; 0 = none */
    uint64_t fail_free_at;  /* free_calls value that fails; 0 = none */
    int misalign;           /* nonzero: bases are off by 64 bytes */
} fake_device;

static inline int fake_mem_alloc(void *user, void **dev_ptr, size_t size)
{
    fake_device *f = user;
    f->alloc_calls++;
    if (f->alloc_calls == f->fail_alloc_at || size == 0)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    for (int i = 0; i < FAKE_DEVICE_MAX_LIVE; i++) {
        if (f->live[i] != 0)
            continue;
        f->live[i] = f->next + (f->misalign ? 64u : 0u);
        f->live_bytes[i] = size;
        /* A gap after each block keeps every address distinct. */
        f->next += ((size + 1023u) & ~(uintptr_t)1023u) + 4096u;
        *dev_ptr = (void *)f->live[i];
        return SIMDEV_SUCCESS;
    }
    return SIMDEV_ERROR_MEMORY_ALLOCATION;
}

static inline int fake_mem_free(void *user, void *dev_ptr)
{
    fake_device *f = user;
    f->free_calls++;
    if (f->free_calls == f->fail_free_at)
        return SIMDEV_ERROR_INVALID_HANDLE;
    for (int i = 0; i < FAKE_DEVICE_MAX_LIVE; i++) {
        if (dev_ptr != NULL && f->live[i] == (uintptr_t)dev_ptr) {
            f->live[i] = 0;
            f->live_bytes[i] = 0;
            return SIMDEV_SUCCESS;
        }
    }
    return SIMDEV_ERROR_INVALID_PARAM;
}

static inline void fake_device_init(fake_device *f)
{
    memset(f, 0, sizeof(*f));
    f->next = (uintptr_t)1 << 32;
    f->ops.user = f;
    f->ops.mem_alloc = fake_mem_alloc;
    f->ops.mem_free = fake_mem_free;
}

static inline size_t fake_device_live_count(const fake_device *f)
{
    size_t n = 0;
    for (int i = 0; i < FAKE_DEVICE_MAX_LIVE; i++)
        n += f->live[i] != 0;
    return n;
}

static inline int fake_device_is_live(const fake_device *f, const void *base)
{
    for (int i = 0; i < FAKE_DEVICE_MAX_LIVE; i++) {
        if (base != NULL && f->live[i] == (uintptr_t)base)
            return 1;
    }
    return 0;
}

#endif
