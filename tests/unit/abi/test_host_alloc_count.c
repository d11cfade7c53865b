/* simpler_host_alloc_count (runtime_c_api.h): the public view of the
 * allocator hook's count, without a device. */
#include "support.h"

#include <simpler/runtime_c_api.h>

#include "common/host_alloc.h"

static void host_alloc_count_grows_by_the_allocation_of_a_context(void **state)
{
    (void)state;
    uint64_t before = simpler_host_alloc_count();
    assert_int_equal(before, host_alloc_count());
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    uint64_t created = simpler_host_alloc_count();
    assert_true(created > before);
    assert_int_equal(created, host_alloc_count());
    destroy_device_context(ctx);
    /* A free is not an allocation: the count never goes down. */
    assert_int_equal(simpler_host_alloc_count(), created);
}

static void host_alloc_count_includes_a_failed_allocation(void **state)
{
    (void)state;
    uint64_t before = simpler_host_alloc_count();
    host_alloc_fail_nth(1);
    assert_null(create_device_context());
    host_alloc_fail_nth(0);
    assert_int_equal(simpler_host_alloc_count(), before + 1);
}

static void host_alloc_count_is_unchanged_by_a_call_that_allocates_nothing(void **state)
{
    (void)state;
    uint64_t before = simpler_host_alloc_count();
    assert_int_equal(simpler_kernel_mode_errors(NULL, NULL, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    (void)simpler_strerror(PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_host_alloc_count(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_alloc_count_grows_by_the_allocation_of_a_context),
        cmocka_unit_test(host_alloc_count_includes_a_failed_allocation),
        cmocka_unit_test(host_alloc_count_is_unchanged_by_a_call_that_allocates_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
