#include "common/host_alloc.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "simpler/runtime_c_api.h"

static atomic_uint_fast64_t alloc_calls;
static atomic_uint_fast64_t free_calls;
static atomic_uint_fast64_t device_alloc_calls;
static _Thread_local unsigned device_scope_depth;
/* Absolute index of the allocation that fails; 0 = none. */
static atomic_uint_fast64_t fail_at;

static int should_fail(void)
{
    uint64_t n = atomic_fetch_add(&alloc_calls, 1) + 1;
    if (device_scope_depth > 0)
        atomic_fetch_add(&device_alloc_calls, 1);
    uint64_t target = atomic_load(&fail_at);
    if (target == 0 || n != target)
        return 0;
    atomic_store(&fail_at, 0);
    return 1;
}

void *host_alloc(size_t size)
{
    return should_fail() ? NULL : malloc(size);
}

void *host_calloc(size_t count, size_t size)
{
    if (should_fail())
        return NULL;
    return calloc(count, size);
}

void *host_realloc(void *ptr, size_t size)
{
    return should_fail() ? NULL : realloc(ptr, size);
}

void host_free(void *ptr)
{
    if (ptr == NULL)
        return;
    atomic_fetch_add(&free_calls, 1);
    free(ptr);
}

uint64_t host_alloc_count(void)
{
    return atomic_load(&alloc_calls);
}

uint64_t host_free_count(void)
{
    return atomic_load(&free_calls);
}

void host_alloc_fail_nth(uint64_t nth)
{
    atomic_store(&fail_at, nth == 0 ? 0 : atomic_load(&alloc_calls) + nth);
}

void host_alloc_device_scope_enter(void)
{
    device_scope_depth++;
}

int host_alloc_device_scope_leave(int rc)
{
    device_scope_depth--;
    return rc;
}

uint64_t host_alloc_count_runtime(void)
{
    uint64_t device = atomic_load(&device_alloc_calls);
    return atomic_load(&alloc_calls) - device;
}

SIMPLER_API uint64_t simpler_host_alloc_count(void)
{
    return host_alloc_count();
}
