/* The retained temp buffer: in-place service, program growth,
 * and the kernel-mode guard ahead of the free. */
#include "support.h"

#include "fake_device.h"
#include "memory/retained_temp.h"
#include "platform/platform_status.h"

/* Production shape: the graph build places each staged HOST tensor at a
 * RETAINED_TEMP_ALIGN-aligned offset, so two 64-byte tensors stage into
 * 2 KiB. */
static size_t staged_bytes(size_t a, size_t b)
{
    const size_t align = RETAINED_TEMP_ALIGN;
    return (a + align - 1) / align * align + (b + align - 1) / align * align;
}

static void retained_temp_kernel_allocates_once_then_refuses_to_grow(void **state)
{
    fake_device dev;
    retained_temp slot = {NULL, 0};
    size_t sized = staged_bytes(64, 64);
    size_t over = staged_bytes(64, 1025);
    (void)state;
    fake_device_init(&dev);

    assert_int_equal(sized, 2048);
    assert_int_equal(retained_temp_begin(&slot, sized, 1, &dev.ops), 0);
    void *addr = slot.addr;
    assert_non_null(addr);
    assert_int_equal((uintptr_t)addr % RETAINED_TEMP_ALIGN, 0);
    assert_int_equal(slot.size, sized);
    assert_int_equal(dev.alloc_calls, 1);

    /* The refusal comes before any free: the free count does not move. */
    assert_int_equal(retained_temp_begin(&slot, over, 1, &dev.ops), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(dev.free_calls, 0);
    assert_int_equal(dev.alloc_calls, 1);
    assert_ptr_equal(slot.addr, addr);
    assert_int_equal(slot.size, sized);
    assert_true(fake_device_is_live(&dev, addr));

    /* The sized run binds from the same address. */
    assert_int_equal(retained_temp_begin(&slot, sized, 1, &dev.ops), 0);
    assert_ptr_equal(slot.addr, addr);
    assert_int_equal(dev.alloc_calls, 1);
    assert_int_equal(dev.free_calls, 0);
    assert_int_equal(retained_temp_release(&slot, &dev.ops), 0);
    assert_int_equal(fake_device_live_count(&dev), 0);
}

static void retained_temp_kernel_refusal_leaves_buffer_usable(void **state)
{
    fake_device dev;
    retained_temp slot = {NULL, 0};
    (void)state;
    fake_device_init(&dev);
    assert_int_equal(retained_temp_begin(&slot, 4096, 1, &dev.ops), 0);
    void *addr = slot.addr;

    for (int k = 0; k < 3; k++) {
        assert_int_equal(retained_temp_begin(&slot, 4096 + 1, 1, &dev.ops), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
        assert_int_equal(retained_temp_begin(&slot, 1024, 1, &dev.ops), 0);
        assert_ptr_equal(slot.addr, addr);
        assert_int_equal(slot.size, 4096);
    }
    assert_int_equal(dev.alloc_calls, 1);
    assert_int_equal(dev.free_calls, 0);
    assert_int_equal(retained_temp_release(&slot, &dev.ops), 0);
    assert_int_equal(dev.free_calls, 1);
}

static void retained_temp_kernel_holds_one_address_across_repeated_runs(void **state)
{
    fake_device dev;
    retained_temp slot = {NULL, 0};
    size_t sized = staged_bytes(3000, 100);
    const size_t runs[] = {sized, sized, sized, sized, staged_bytes(100, 100), staged_bytes(100, 3000), 0};
    (void)state;
    fake_device_init(&dev);
    assert_int_equal(retained_temp_begin(&slot, sized, 1, &dev.ops), 0);
    void *addr = slot.addr;

    for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
        assert_int_equal(retained_temp_begin(&slot, runs[k], 1, &dev.ops), 0);
        assert_ptr_equal(slot.addr, addr);
        assert_int_equal(slot.size, sized);
    }
    assert_int_equal(dev.alloc_calls, 1);
    assert_int_equal(dev.free_calls, 0);
    assert_int_equal(retained_temp_release(&slot, &dev.ops), 0);
}

static void retained_temp_program_still_grows(void **state)
{
    fake_device dev;
    retained_temp slot = {NULL, 0};
    size_t sized = staged_bytes(64, 64);
    size_t grown = staged_bytes(64, 1025);
    (void)state;
    fake_device_init(&dev);
    assert_int_equal(retained_temp_begin(&slot, sized, 0, &dev.ops), 0);
    void *first = slot.addr;

    assert_int_equal(retained_temp_begin(&slot, grown, 0, &dev.ops), 0);
    assert_int_equal(grown, 1024 + 2048);
    assert_int_equal(slot.size, grown);
    assert_ptr_not_equal(slot.addr, first);
    assert_false(fake_device_is_live(&dev, first));
    assert_int_equal(dev.alloc_calls, 2);
    assert_int_equal(dev.free_calls, 1);
    assert_int_equal(retained_temp_release(&slot, &dev.ops), 0);
    assert_int_equal(fake_device_live_count(&dev), 0);
}

static void retained_temp_zero_required_touches_no_allocator(void **state)
{
    fake_device dev;
    retained_temp slot = {NULL, 0};
    (void)state;
    fake_device_init(&dev);
    assert_int_equal(retained_temp_begin(&slot, 0, 1, &dev.ops), 0);
    assert_int_equal(retained_temp_begin(&slot, 0, 0, &dev.ops), 0);
    assert_null(slot.addr);
    assert_int_equal(dev.alloc_calls, 0);
    assert_int_equal(retained_temp_release(&slot, &dev.ops), 0);
    assert_int_equal(dev.free_calls, 0);
}

static void retained_temp_allocation_failure_empties_slot(void **state)
{
    fake_device dev;
    retained_temp slot = {NULL, 0};
    (void)state;
    fake_device_init(&dev);
    assert_int_equal(retained_temp_begin(&slot, 1024, 0, &dev.ops), 0);

    dev.fail_alloc_at = 2;
    assert_int_equal(retained_temp_begin(&slot, 8192, 0, &dev.ops), PTO_RUNTIME_ERR_OUT_OF_MEMORY);
    assert_null(slot.addr);
    assert_int_equal(slot.size, 0);
    assert_int_equal(fake_device_live_count(&dev), 0);

    /* An empty slot may be allocated again, even in kernel mode. */
    dev.fail_alloc_at = dev.alloc_calls + 1;
    assert_int_equal(retained_temp_begin(&slot, 2048, 1, &dev.ops), PTO_RUNTIME_ERR_OUT_OF_MEMORY);
    assert_null(slot.addr);
    assert_int_equal(retained_temp_begin(&slot, 2048, 1, &dev.ops), 0);
    assert_non_null(slot.addr);
    assert_int_equal(retained_temp_release(&slot, &dev.ops), 0);
    assert_int_equal(fake_device_live_count(&dev), 0);
}

static void retained_temp_failed_free_changes_nothing(void **state)
{
    fake_device dev;
    retained_temp slot = {NULL, 0};
    (void)state;
    fake_device_init(&dev);
    assert_int_equal(retained_temp_begin(&slot, 1024, 0, &dev.ops), 0);
    void *addr = slot.addr;

    dev.fail_free_at = 1;
    assert_int_equal(retained_temp_begin(&slot, 4096, 0, &dev.ops), PTO_RUNTIME_ERR_DEVICE);
    assert_ptr_equal(slot.addr, addr);
    assert_int_equal(slot.size, 1024);
    assert_int_equal(dev.alloc_calls, 1);

    dev.fail_free_at = 2;
    assert_int_equal(retained_temp_release(&slot, &dev.ops), PTO_RUNTIME_ERR_DEVICE);
    assert_ptr_equal(slot.addr, addr);
    assert_int_equal(retained_temp_release(&slot, &dev.ops), 0);
    assert_null(slot.addr);
    assert_int_equal(fake_device_live_count(&dev), 0);
}

static void retained_temp_misaligned_base_is_given_back(void **state)
{
    fake_device dev;
    retained_temp slot = {NULL, 0};
    (void)state;
    fake_device_init(&dev);
    dev.misalign = 1;
    assert_int_equal(retained_temp_begin(&slot, 1024, 0, &dev.ops), PTO_RUNTIME_ERR_INTERNAL);
    assert_null(slot.addr);
    assert_int_equal(dev.free_calls, 1);
    assert_int_equal(fake_device_live_count(&dev), 0);
}

static void retained_temp_invalid_arguments_change_nothing(void **state)
{
    fake_device dev;
    retained_temp slot = {NULL, 0};
    (void)state;
    fake_device_init(&dev);
    assert_int_equal(retained_temp_begin(NULL, 1024, 0, &dev.ops), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(retained_temp_begin(&slot, 1024, 0, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(retained_temp_release(NULL, &dev.ops), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_null(slot.addr);
    assert_int_equal(dev.alloc_calls, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(retained_temp_kernel_allocates_once_then_refuses_to_grow),
        cmocka_unit_test(retained_temp_kernel_refusal_leaves_buffer_usable),
        cmocka_unit_test(retained_temp_kernel_holds_one_address_across_repeated_runs),
        cmocka_unit_test(retained_temp_program_still_grows),
        cmocka_unit_test(retained_temp_zero_required_touches_no_allocator),
        cmocka_unit_test(retained_temp_allocation_failure_empties_slot),
        cmocka_unit_test(retained_temp_failed_free_changes_nothing),
        cmocka_unit_test(retained_temp_misaligned_base_is_given_back),
        cmocka_unit_test(retained_temp_invalid_arguments_change_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
