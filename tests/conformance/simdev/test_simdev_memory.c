/*
 * Device memory: alignment, accounting, exhaustion, refused frees and
 * the bounds of the synchronous copies.
 */
#include "fixture.h"

static void memory_malloc_aligns_and_accounts_rounded_sizes(void **state)
{
    (void)state;
    simdev_mem_info start = fix_mem_info(0);
    assert_int_equal(start.hbm_bytes, FIX_HBM_BYTES);
    assert_int_equal(start.committed_bytes, 0);
    assert_int_equal(start.live_allocations, 0);
    const size_t sizes[] = {1, 1023, 1024, 1025, 5000};
    const uint64_t rounded[] = {1024, 1024, 1024, 2048, 5120};
    void *ptrs[5];
    uint64_t committed = 0;
    for (int i = 0; i < 5; i++) {
        ptrs[i] = fix_malloc(sizes[i]);
        assert_int_equal((uintptr_t)ptrs[i] % SIMDEV_ALLOC_ALIGN, 0);
        committed += rounded[i];
        simdev_mem_info info = fix_mem_info(0);
        assert_int_equal(info.committed_bytes, committed);
        assert_int_equal(info.high_water_bytes, committed);
        assert_int_equal(info.live_allocations, (uint64_t)i + 1);
    }
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            assert_true((char *)ptrs[i] + rounded[i] <= (char *)ptrs[j] ||
                        (char *)ptrs[j] + rounded[j] <= (char *)ptrs[i]);
    assert_int_equal(simdev_free(ptrs[4]), SIMDEV_SUCCESS);
    simdev_mem_info info = fix_mem_info(0);
    assert_int_equal(info.committed_bytes, committed - 5120);
    assert_int_equal(info.high_water_bytes, committed);
    assert_int_equal(info.live_allocations, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(simdev_free(ptrs[i]), SIMDEV_SUCCESS);
    info = fix_mem_info(0);
    assert_int_equal(info.committed_bytes, 0);
    assert_int_equal(info.high_water_bytes, committed);
    assert_int_equal(info.live_allocations, 0);
}

static void memory_fresh_allocation_has_debug_fill(void **state)
{
    (void)state;
    uint8_t *buf = fix_malloc(300);
    uint8_t host[300];
    assert_int_equal(simdev_memcpy(host, buf, sizeof host), SIMDEV_SUCCESS);
    for (size_t i = 0; i < sizeof host; i++)
        assert_int_equal(host[i], 0xA5);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
}

static void memory_exhaustion_refused_and_changes_nothing(void **state)
{
    (void)state;
    void *big = fix_malloc(FIX_HBM_BYTES / 2);
    simdev_mem_info before = fix_mem_info(0);
    void *ptr = (void *)&ptr;
    assert_int_equal(simdev_malloc(&ptr, FIX_HBM_BYTES), SIMDEV_ERROR_MEMORY_ALLOCATION);
    assert_int_equal(simdev_malloc(&ptr, FIX_HBM_BYTES / 2 + 1), SIMDEV_ERROR_MEMORY_ALLOCATION);
    assert_int_equal(simdev_malloc(&ptr, SIZE_MAX), SIMDEV_ERROR_MEMORY_ALLOCATION);
    assert_ptr_equal(ptr, (void *)&ptr);
    fix_assert_mem_info_equal(fix_mem_info(0), before);
    /* The rest is still there, exactly. */
    void *rest = fix_malloc(FIX_HBM_BYTES / 2);
    assert_int_equal(simdev_malloc(&ptr, 1), SIMDEV_ERROR_MEMORY_ALLOCATION);
    assert_int_equal(fix_mem_info(0).committed_bytes, FIX_HBM_BYTES);
    assert_int_equal(simdev_free(rest), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(big), SIMDEV_SUCCESS);
    void *all = fix_malloc(FIX_HBM_BYTES);
    assert_int_equal(simdev_free(all), SIMDEV_SUCCESS);
}

static void memory_other_device_unaffected(void **state)
{
    (void)state;
    void *on0 = fix_malloc(4096);
    simdev_mem_info dev1 = fix_mem_info(1);
    assert_int_equal(dev1.committed_bytes, 0);
    assert_int_equal(dev1.live_allocations, 0);
    assert_int_equal(simdev_set_device(1), SIMDEV_SUCCESS);
    void *on1 = fix_malloc(2048);
    /* A base from device 0 is foreign on device 1. */
    assert_int_equal(simdev_free(on0), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(fix_mem_info(0).live_allocations, 1);
    assert_int_equal(fix_mem_info(1).committed_bytes, 2048);
    assert_int_equal(simdev_free(on1), SIMDEV_SUCCESS);
    assert_int_equal(simdev_set_device(0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(on0), SIMDEV_SUCCESS);
}

static void memory_bad_frees_refused_and_change_nothing(void **state)
{
    (void)state;
    char *buf = fix_malloc(4096);
    simdev_mem_info before = fix_mem_info(0);
    char host[64];
    assert_int_equal(simdev_free(buf + 1), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_free(buf + 1024), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_free(host), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_free(NULL), SIMDEV_ERROR_INVALID_PARAM);
    fix_assert_mem_info_equal(fix_mem_info(0), before);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
    simdev_mem_info after = fix_mem_info(0);
    assert_int_equal(simdev_free(buf), SIMDEV_ERROR_INVALID_PARAM);
    fix_assert_mem_info_equal(fix_mem_info(0), after);
}

static void memory_malloc_bad_arguments_refused(void **state)
{
    (void)state;
    void *ptr = (void *)&ptr;
    assert_int_equal(simdev_malloc(&ptr, 0), SIMDEV_ERROR_INVALID_PARAM);
    assert_ptr_equal(ptr, (void *)&ptr);
    assert_int_equal(simdev_malloc(NULL, 64), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(fix_mem_info(0).live_allocations, 0);
    simdev_mem_info info;
    assert_int_equal(simdev_get_mem_info(FIX_DEVICES, &info), SIMDEV_ERROR_INVALID_DEVICE);
    assert_int_equal(simdev_get_mem_info(-1, &info), SIMDEV_ERROR_INVALID_DEVICE);
    assert_int_equal(simdev_get_mem_info(0, NULL), SIMDEV_ERROR_INVALID_PARAM);
}

static void memory_sync_copy_round_trips(void **state)
{
    (void)state;
    uint8_t *a = fix_malloc(512), *b = fix_malloc(512);
    uint8_t in[512], out[512];
    for (int i = 0; i < 512; i++)
        in[i] = (uint8_t)(i * 7);
    assert_int_equal(simdev_memcpy(a, in, 512), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy(b, a, 512), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset(b + 100, 0x5A, 10), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy(out, b, 512), SIMDEV_SUCCESS);
    for (int i = 0; i < 512; i++)
        assert_int_equal(out[i], i >= 100 && i < 110 ? 0x5A : (uint8_t)(i * 7));
    assert_int_equal(simdev_free(b), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(a), SIMDEV_SUCCESS);
}

static void memory_sync_copy_outside_allocation_refused(void **state)
{
    (void)state;
    uint8_t *buf = fix_malloc(1000);
    assert_int_equal(simdev_memset(buf, 1, 1000), SIMDEV_SUCCESS);
    uint8_t host[2048], other[2048];
    memset(host, 9, sizeof host);
    memset(other, 8, sizeof other);
    /* Neither side on the device. */
    assert_int_equal(simdev_memcpy(other, host, 16), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(other[0], 8);
    assert_int_equal(simdev_memset(host, 0, 16), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(host[0], 9);
    /* Past the end of the allocation (even inside its rounded size). */
    assert_int_equal(simdev_memcpy(buf, host, 1001), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_memcpy(buf + 500, host, 501), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_memcpy(host, buf + 999, 2), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_memset(buf + 10, 0, 991), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(host[0], 9);
    uint8_t check[1000];
    assert_int_equal(simdev_memcpy(check, buf, 1000), SIMDEV_SUCCESS);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(check[i], 1);
    /* A freed allocation is no longer a target. */
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset(buf, 0, 16), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_memcpy(host, buf, 16), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(host[0], 9);
}

static void memory_async_copy_outside_allocation_refused(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    uint8_t *buf = fix_malloc(1000);
    uint8_t host[2048], other[2048];
    memset(host, 9, sizeof host);
    memset(other, 8, sizeof other);
    assert_int_equal(simdev_memcpy_async(other, host, 16, stream), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_memcpy_async(buf, host, 1001, stream), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_memset_async(buf + 10, 0, 991, stream), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_memset_async(host, 0, 16, stream), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(other[0], 8);
    assert_int_equal(host[0], 9);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* Copies into device memory of 64 KiB or more store around the CPU
 * caches (sd_copy); whichever way a copy runs, its bytes must be those
 * of memmove. Each path copies host -> device at several sizes around
 * that bound and misalignments of both ends, between sentinel bytes. */
enum copy_path { COPY_SYNC, COPY_ASYNC, COPY_GRAPH };

static void copy_via(enum copy_path path, simdev_stream_t stream, void *dst, const void *src, size_t size)
{
    simdev_graph_t graph = NULL;
    switch (path) {
    case COPY_SYNC:
        assert_int_equal(simdev_memcpy(dst, src, size), SIMDEV_SUCCESS);
        return;
    case COPY_ASYNC:
        assert_int_equal(simdev_memcpy_async(dst, src, size, stream), SIMDEV_SUCCESS);
        break;
    case COPY_GRAPH:
        assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
        assert_int_equal(simdev_memcpy_async(dst, src, size, stream), SIMDEV_SUCCESS);
        assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_SUCCESS);
        assert_int_equal(simdev_graph_launch(graph, stream), SIMDEV_SUCCESS);
        break;
    }
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    if (graph != NULL)
        assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
}

#define BIG_COPY ((size_t)64 * 1024)
#define BIG_ROOM (3 * BIG_COPY + 64)

static void memory_large_copies_to_device_match_memmove(void **state)
{
    (void)state;
    static uint8_t src[BIG_ROOM], back[BIG_ROOM];
    const size_t sizes[] = {BIG_COPY - 1, BIG_COPY, BIG_COPY + 17, 3 * BIG_COPY + 5};
    const size_t dst_offsets[] = {0, 1, 15}, src_offsets[] = {0, 3};
    simdev_stream_t stream = fix_stream();
    uint8_t *dev = fix_malloc(BIG_ROOM);
    for (size_t i = 0; i < sizeof(src); i++)
        src[i] = (uint8_t)(i * 131u + 7u);
    for (int path = COPY_SYNC; path <= COPY_GRAPH; path++)
        for (size_t si = 0; si < 4; si++)
            for (size_t di = 0; di < 3; di++)
                for (size_t oi = 0; oi < 2; oi++) {
                    size_t size = sizes[si], at = dst_offsets[di], from = src_offsets[oi];
                    assert_int_equal(simdev_memset(dev, 0xEE, BIG_ROOM), SIMDEV_SUCCESS);
                    copy_via((enum copy_path)path, stream, dev + at, src + from, size);
                    assert_int_equal(simdev_memcpy(back, dev, BIG_ROOM), SIMDEV_SUCCESS);
                    for (size_t b = 0; b < BIG_ROOM; b++) {
                        uint8_t want = b >= at && b < at + size ? src[from + b - at] : 0xEE;
                        if (back[b] != want)
                            fail_msg("path %d size %zu dst+%zu src+%zu: byte %zu is %u, want %u", path, size, at,
                                     from, b, back[b], want);
                    }
                }
    assert_int_equal(simdev_free(dev), SIMDEV_SUCCESS);
}

/* Device to device within one allocation, overlapping both ways: the
 * bytes memmove gives (a forward store of either kind would smear). */
static void memory_large_overlapping_device_copies_match_memmove(void **state)
{
    (void)state;
    static uint8_t start[BIG_ROOM], want[BIG_ROOM], back[BIG_ROOM];
    simdev_stream_t stream = fix_stream();
    uint8_t *dev = fix_malloc(BIG_ROOM);
    const size_t size = 2 * BIG_COPY + 9;
    for (size_t i = 0; i < sizeof(start); i++)
        start[i] = (uint8_t)(i * 29u + 1u);
    for (int path = COPY_SYNC; path <= COPY_GRAPH; path++)
        for (int up = 0; up < 2; up++) {
            size_t to = up ? 100 : 0, from = up ? 0 : 100;
            assert_int_equal(simdev_memcpy(dev, start, BIG_ROOM), SIMDEV_SUCCESS);
            copy_via((enum copy_path)path, stream, dev + to, dev + from, size);
            memcpy(want, start, BIG_ROOM);
            memmove(want + to, want + from, size);
            assert_int_equal(simdev_memcpy(back, dev, BIG_ROOM), SIMDEV_SUCCESS);
            assert_memory_equal(back, want, BIG_ROOM);
        }
    assert_int_equal(simdev_free(dev), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(memory_malloc_aligns_and_accounts_rounded_sizes),
        FIX_TEST(memory_fresh_allocation_has_debug_fill),
        FIX_TEST(memory_exhaustion_refused_and_changes_nothing),
        FIX_TEST(memory_other_device_unaffected),
        FIX_TEST(memory_bad_frees_refused_and_change_nothing),
        FIX_TEST(memory_malloc_bad_arguments_refused),
        FIX_TEST(memory_sync_copy_round_trips),
        FIX_TEST(memory_sync_copy_outside_allocation_refused),
        FIX_TEST(memory_async_copy_outside_allocation_refused),
        FIX_TEST(memory_large_copies_to_device_match_memmove),
        FIX_TEST(memory_large_overlapping_device_copies_match_memmove),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
