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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
