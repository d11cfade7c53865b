#include "common/host_alloc.h"

#include <stdatomic.h>
#include <stdlib.h>

static atomic_uint_fast64_t alloc_calls;
static atomic_uint_fast64_t free_calls;
/* Absolute index of the allocation that fails; 0 = none. */
static atomic_uint_fast64_t fail_at;

static int should_fail(void)
{
    uint64_t n = atomic_fetch_add(&alloc_calls, 1) + 1;
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
