/* One device allocation with a remembered size. */
#include "support.h"

#include "fake_device.h"
#include "memory/device_arena.h"
#include "platform/platform_status.h"

static void device_arena_commit_holds_one_aligned_allocation(void **state)
{
    fake_device dev;
    device_arena arena = {0};
    (void)state;
    fake_device_init(&dev);

    assert_int_equal(device_arena_commit(&arena, 5000, &dev.ops), 0);
    assert_non_null(arena.base);
    assert_int_equal((uintptr_t)arena.base % DEVICE_ARENA_ALIGN, 0);
    assert_int_equal(arena.bytes, 5000);
    assert_int_equal(dev.alloc_calls, 1);

    /* A committed arena is not committed twice. */
    void *base = arena.base;
    assert_int_equal(device_arena_commit(&arena, 100, &dev.ops), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_ptr_equal(arena.base, base);
    assert_int_equal(dev.alloc_calls, 1);

    assert_int_equal(device_arena_release(&arena, &dev.ops), 0);
    assert_null(arena.base);
    assert_int_equal(arena.bytes, 0);
    assert_int_equal(device_arena_release(&arena, &dev.ops), 0);
    assert_int_equal(dev.free_calls, 1);
}

static void device_arena_failed_commit_holds_nothing(void **state)
{
    fake_device dev;
    device_arena arena = {0};
    (void)state;
    fake_device_init(&dev);

    dev.fail_alloc_at = 1;
    assert_int_equal(device_arena_commit(&arena, 4096, &dev.ops), PTO_RUNTIME_ERR_OUT_OF_MEMORY);
    assert_null(arena.base);
    assert_int_equal(arena.bytes, 0);

    dev.misalign = 1;
    assert_int_equal(device_arena_commit(&arena, 4096, &dev.ops), PTO_RUNTIME_ERR_INTERNAL);
    assert_null(arena.base);
    assert_int_equal(dev.free_calls, 1);
    assert_int_equal(fake_device_live_count(&dev), 0);

    assert_int_equal(device_arena_commit(&arena, 0, &dev.ops), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(device_arena_commit(NULL, 1, &dev.ops), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(device_arena_commit(&arena, 1, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(dev.alloc_calls, 2);
}

static void device_arena_failed_release_keeps_it_committed(void **state)
{
    fake_device dev;
    device_arena arena = {0};
    (void)state;
    fake_device_init(&dev);
    assert_int_equal(device_arena_commit(&arena, 4096, &dev.ops), 0);
    void *base = arena.base;

    dev.fail_free_at = 1;
    assert_int_equal(device_arena_release(&arena, &dev.ops), PTO_RUNTIME_ERR_DEVICE);
    assert_ptr_equal(arena.base, base);
    assert_int_equal(arena.bytes, 4096);
    assert_int_equal(device_arena_release(&arena, &dev.ops), 0);
    assert_int_equal(fake_device_live_count(&dev), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_arena_commit_holds_one_aligned_allocation),
        cmocka_unit_test(device_arena_failed_commit_holds_nothing),
        cmocka_unit_test(device_arena_failed_release_keeps_it_committed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
