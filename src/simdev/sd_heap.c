/*
 * The HBM heap of one device: one mmap'd region, an address-ordered
 * first-fit free list with coalescing, and a sorted table of live
 * allocations. All metadata lives in host memory outside the region, so a
 * kernel scribbling past its buffer cannot corrupt the allocator. Callers
 * hold sd_g.lock.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/host_alloc.h"
#include "simdev/sd_internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define SD_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SD_ASAN 1
#endif
#endif
#ifdef SD_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

enum { FILL_FRESH = 0xA5, FILL_FREED = 0xDD };

int sd_heap_init(struct sd_heap *h, uint64_t bytes, int debug_fill)
{
    memset(h, 0, sizeof(*h));
    void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    h->free_list = host_alloc(4 * sizeof(*h->free_list));
    if (h->free_list == NULL) {
        munmap(base, bytes);
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    }
    h->free_cap = 4;
    h->free_count = 1;
    h->free_list[0] = (struct sd_extent){.offset = 0, .size = bytes};
    h->base = base;
    h->bytes = bytes;
    h->debug_fill = debug_fill;
    POISON(h->base, h->bytes);
    return 0;
}

void sd_heap_deinit(struct sd_heap *h)
{
    if (h->base != NULL) {
        UNPOISON(h->base, h->bytes);
        munmap(h->base, h->bytes);
    }
    host_free(h->free_list);
    host_free(h->live);
    memset(h, 0, sizeof(*h));
}

static int grow(struct sd_extent **list, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 8;
    struct sd_extent *bigger = host_realloc(*list, n * sizeof(**list));
    if (bigger == NULL)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    *list = bigger;
    *cap = n;
    return 0;
}

static void insert_at(struct sd_extent *list, size_t *count, size_t at, struct sd_extent e)
{
    memmove(&list[at + 1], &list[at], (*count - at) * sizeof(*list));
    list[at] = e;
    (*count)++;
}

static void remove_at(struct sd_extent *list, size_t *count, size_t at)
{
    memmove(&list[at], &list[at + 1], (*count - at - 1) * sizeof(*list));
    (*count)--;
}

/* First index whose offset is >= offset. */
static size_t lower_bound(const struct sd_extent *list, size_t count, uint64_t offset)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (list[mid].offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Verify builds keep their checks under NDEBUG (RelWithDebInfo). */
#define HEAP_VERIFY(cond)                                                         \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "%s:%d: heap check failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                              \
        }                                                                         \
    } while (0)

/* The O(n) validator of verify builds: free and live extents are sorted,
 * aligned, disjoint, cover the region exactly, and free ones are
 * coalesced; committed bytes equal the live extents. */
static void heap_check(const struct sd_heap *h)
{
#if SIMPLER_VERIFY
    uint64_t covered = 0, committed = 0, end = 0;
    size_t f = 0, l = 0;
    int last_free = 0;
    while (f < h->free_count || l < h->live_count) {
        int take_free = l == h->live_count || (f < h->free_count && h->free_list[f].offset < h->live[l].offset);
        const struct sd_extent *e = take_free ? &h->free_list[f++] : &h->live[l++];
        HEAP_VERIFY(e->offset == end && e->size > 0 && e->size % SIMDEV_ALLOC_ALIGN == 0);
        HEAP_VERIFY(!(take_free && last_free));
        if (!take_free)
            committed += e->size;
        last_free = take_free;
        end = e->offset + e->size;
        covered += e->size;
    }
    HEAP_VERIFY(covered == h->bytes && committed == h->committed && h->committed <= h->high_water);
#else
    (void)h;
#endif
}

int sd_heap_alloc(struct sd_heap *h, size_t size, void **out)
{
    if (size == 0 || size > h->bytes)
        return size == 0 ? SIMDEV_ERROR_INVALID_PARAM : SIMDEV_ERROR_MEMORY_ALLOCATION;
    uint64_t rounded = ((uint64_t)size + SIMDEV_ALLOC_ALIGN - 1) & ~(uint64_t)(SIMDEV_ALLOC_ALIGN - 1);
    size_t i = 0;
    while (i < h->free_count && h->free_list[i].size < rounded)
        i++;
    if (i == h->free_count)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    /* Room for the live entry first, so failure changes nothing. */
    if (grow(&h->live, &h->live_cap, h->live_count + 1) != 0)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    struct sd_extent *f = &h->free_list[i];
    struct sd_extent e = {.offset = f->offset, .size = rounded, .requested = size};
    f->offset += rounded;
    f->size -= rounded;
    if (f->size == 0)
        remove_at(h->free_list, &h->free_count, i);
    insert_at(h->live, &h->live_count, lower_bound(h->live, h->live_count, e.offset), e);
    h->committed += rounded;
    if (h->committed > h->high_water)
        h->high_water = h->committed;
    uint8_t *p = h->base + e.offset;
    UNPOISON(p, size);
    if (h->debug_fill)
        memset(p, FILL_FRESH, size);
    heap_check(h);
    *out = p;
    return 0;
}

/* Returns the free extent to the list, merging with its neighbours. */
static int release(struct sd_heap *h, struct sd_extent e)
{
    size_t at = lower_bound(h->free_list, h->free_count, e.offset);
    int merge_prev = at > 0 && h->free_list[at - 1].offset + h->free_list[at - 1].size == e.offset;
    int merge_next = at < h->free_count && e.offset + e.size == h->free_list[at].offset;
    if (!merge_prev && !merge_next) {
        if (grow(&h->free_list, &h->free_cap, h->free_count + 1) != 0)
            return SIMDEV_ERROR_MEMORY_ALLOCATION;
        insert_at(h->free_list, &h->free_count, at, (struct sd_extent){.offset = e.offset, .size = e.size});
        return 0;
    }
    if (merge_prev) {
        h->free_list[at - 1].size += e.size;
        if (merge_next) {
            h->free_list[at - 1].size += h->free_list[at].size;
            remove_at(h->free_list, &h->free_count, at);
        }
        return 0;
    }
    h->free_list[at].offset = e.offset;
    h->free_list[at].size += e.size;
    return 0;
}

static int live_index(const struct sd_heap *h, const void *ptr, size_t *index)
{
    const uint8_t *p = ptr;
    if (h->base == NULL || p < h->base || p >= h->base + h->bytes)
        return 0;
    uint64_t offset = (uint64_t)(p - h->base);
    size_t at = lower_bound(h->live, h->live_count, offset);
    if (at == h->live_count || h->live[at].offset != offset)
        return 0;
    *index = at;
    return 1;
}

int sd_heap_free(struct sd_heap *h, void *ptr)
{
    size_t at;
    if (!live_index(h, ptr, &at))
        return SIMDEV_ERROR_INVALID_PARAM;
    struct sd_extent e = h->live[at];
    if (release(h, e) != 0)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    remove_at(h->live, &h->live_count, at);
    h->committed -= e.size;
    uint8_t *p = h->base + e.offset;
    if (h->debug_fill) {
        UNPOISON(p, e.size);
        memset(p, FILL_FREED, e.size);
    }
    POISON(p, e.size);
    heap_check(h);
    return 0;
}

/* Forgets every allocation at once: used by device reset, which must not
 * fail halfway. */
void sd_heap_free_all(struct sd_heap *h)
{
    for (size_t i = 0; i < h->live_count; i++) {
        uint8_t *p = h->base + h->live[i].offset;
        if (h->debug_fill) {
            UNPOISON(p, h->live[i].size);
            memset(p, FILL_FREED, h->live[i].size);
        }
        POISON(p, h->live[i].size);
    }
    h->live_count = 0;
    h->free_count = 1;
    h->free_list[0] = (struct sd_extent){.offset = 0, .size = h->bytes};
    h->committed = 0;
    heap_check(h);
}

int sd_heap_contains(const struct sd_heap *h, const void *ptr, size_t size)
{
    const uint8_t *p = ptr;
    if (h->base == NULL || p < h->base || p >= h->base + h->bytes)
        return 0;
    uint64_t offset = (uint64_t)(p - h->base);
    size_t at = lower_bound(h->live, h->live_count, offset + 1);
    if (at == 0)
        return 0;
    const struct sd_extent *e = &h->live[at - 1];
    return offset >= e->offset && size <= e->requested && offset - e->offset <= e->requested - size;
}
