/* The counting, fault-injecting platform wrapper. */
#include "support.h"

#include <pthread.h>
#include <string.h>

#include <simpler/simdev.h>

#include "platform/platform_counter.h"
#include "platform_stub.h"

static void platform_counter_counts_every_entry_separately(void **state)
{
    platform_stub stub;
    platform_ops inner = platform_stub_ops(&stub);
    platform_counter counter;
    const platform_ops *ops = platform_ops_counting(&inner, &counter);
    (void)state;

    assert_ptr_equal(ops->user, &counter);
    for (int call = 1; call < PLATFORM_CALL_COUNT; call++) {
        for (int k = 0; k < call; k++) {
            assert_int_equal(platform_stub_call(ops, call), 0);
            assert_int_equal(stub.last, call);
        }
    }
    uint64_t total = 0;
    for (int call = 1; call < PLATFORM_CALL_COUNT; call++) {
        assert_int_equal(platform_counter_calls(&counter, call), (uint64_t)call);
        total += (uint64_t)call;
    }
    assert_int_equal(platform_counter_calls(&counter, PLATFORM_CALL_ANY), total);
    assert_int_equal(stub.reached, total);
    assert_int_equal(platform_counter_injected(&counter), 0);
    assert_int_equal(platform_counter_calls(&counter, PLATFORM_CALL_COUNT), 0);
    assert_int_equal(platform_counter_calls(&counter, -1), 0);
}

static void platform_counter_fails_kth_call_overall(void **state)
{
    (void)state;
    for (uint64_t k = 1; k <= 6; k++) {
        platform_stub stub;
        platform_ops inner = platform_stub_ops(&stub);
        platform_counter counter;
        const platform_ops *ops = platform_ops_counting(&inner, &counter);
        /* Calls made before arming do not count towards k. */
        assert_int_equal(platform_stub_call(ops, PLATFORM_CALL_GET_DEVICE), 0);
        platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, k, SIMDEV_ERROR_INVALID_DEVICE);

        const int sequence[6] = {PLATFORM_CALL_MEM_ALLOC,     PLATFORM_CALL_STREAM_CREATE,
                                 PLATFORM_CALL_EVENT_RECORD,  PLATFORM_CALL_LAUNCH_KERNEL,
                                 PLATFORM_CALL_EVENT_QUERY,   PLATFORM_CALL_MEM_FREE};
        for (uint64_t n = 1; n <= 6; n++) {
            uint64_t reached = stub.reached;
            int rc = platform_stub_call(ops, sequence[n - 1]);
            if (n == k) {
                /* The injected failure never reaches the inner table. */
                assert_int_equal(rc, SIMDEV_ERROR_INVALID_DEVICE);
                assert_int_equal(stub.reached, reached);
            } else {
                assert_int_equal(rc, 0);
                assert_int_equal(stub.reached, reached + 1);
            }
        }
        assert_int_equal(platform_counter_injected(&counter), 1);
        /* Failed calls are counted too. */
        assert_int_equal(platform_counter_calls(&counter, PLATFORM_CALL_ANY), 7);
    }
}

static void platform_counter_fails_kth_call_of_one_entry(void **state)
{
    platform_stub stub;
    platform_ops inner = platform_stub_ops(&stub);
    platform_counter counter;
    const platform_ops *ops = platform_ops_counting(&inner, &counter);
    (void)state;

    platform_counter_fail_nth(&counter, PLATFORM_CALL_MEM_ALLOC, 3, SIMDEV_ERROR_MEMORY_ALLOCATION);
    int failures = 0;
    for (int round = 1; round <= 5; round++) {
        /* Other entries interleave and neither fail nor advance k. */
        assert_int_equal(platform_stub_call(ops, PLATFORM_CALL_MEM_FREE), 0);
        int rc = platform_stub_call(ops, PLATFORM_CALL_MEM_ALLOC);
        if (round == 3) {
            assert_int_equal(rc, SIMDEV_ERROR_MEMORY_ALLOCATION);
            failures++;
        } else {
            assert_int_equal(rc, 0);
        }
    }
    assert_int_equal(failures, 1);
    assert_int_equal(platform_counter_calls(&counter, PLATFORM_CALL_MEM_ALLOC), 5);
    assert_int_equal(platform_counter_calls(&counter, PLATFORM_CALL_MEM_FREE), 5);
    assert_int_equal(stub.reached, 9);
}

static void platform_counter_rearming_replaces_and_zero_disarms(void **state)
{
    platform_stub stub;
    platform_ops inner = platform_stub_ops(&stub);
    platform_counter counter;
    const platform_ops *ops = platform_ops_counting(&inner, &counter);
    (void)state;

    platform_counter_fail_nth(&counter, PLATFORM_CALL_EVENT_QUERY, 1, SIMDEV_ERROR_NOT_READY);
    platform_counter_fail_nth(&counter, PLATFORM_CALL_STREAM_QUERY, 2, SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(platform_stub_call(ops, PLATFORM_CALL_EVENT_QUERY), 0);
    assert_int_equal(platform_stub_call(ops, PLATFORM_CALL_STREAM_QUERY), 0);
    assert_int_equal(platform_stub_call(ops, PLATFORM_CALL_STREAM_QUERY), SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(platform_stub_call(ops, PLATFORM_CALL_STREAM_QUERY), 0);

    platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, 1, SIMDEV_ERROR_KERNEL_FAULT);
    platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, 0, SIMDEV_ERROR_KERNEL_FAULT);
    assert_int_equal(platform_stub_call(ops, PLATFORM_CALL_LAUNCH_KERNEL), 0);
    platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, 1, 0);
    assert_int_equal(platform_stub_call(ops, PLATFORM_CALL_LAUNCH_KERNEL), 0);
    assert_int_equal(platform_counter_injected(&counter), 1);
}

/* A stub whose entries touch no shared state, for concurrent callers. */
static int quiet_event_query(void *user, platform_event *event)
{
    (void)user, (void)event;
    return 0;
}

static void *hammer(void *arg)
{
    const platform_ops *ops = arg;
    intptr_t failed = 0;
    for (int i = 0; i < 1000; i++)
        failed += ops->event_query(ops->user, NULL) != 0;
    return (void *)failed;
}

static void platform_counter_injects_once_under_concurrent_calls(void **state)
{
    platform_ops inner = {0};
    platform_counter counter;
    pthread_t threads[4];
    intptr_t failed = 0;
    (void)state;
    inner.event_query = quiet_event_query;
    const platform_ops *ops = platform_ops_counting(&inner, &counter);

    platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, 2000, SIMDEV_ERROR_NOT_READY);
    for (int t = 0; t < 4; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, hammer, (void *)ops), 0);
    for (int t = 0; t < 4; t++) {
        void *ret = NULL;
        assert_int_equal(pthread_join(threads[t], &ret), 0);
        failed += (intptr_t)ret;
    }
    assert_int_equal(failed, 1);
    assert_int_equal(platform_counter_injected(&counter), 1);
    assert_int_equal(platform_counter_calls(&counter, PLATFORM_CALL_EVENT_QUERY), 4000);
    assert_int_equal(platform_counter_calls(&counter, PLATFORM_CALL_ANY), 4000);
}

static void platform_counter_names_every_entry(void **state)
{
    (void)state;
    assert_string_equal(platform_call_name(PLATFORM_CALL_ANY), "any");
    assert_string_equal(platform_call_name(PLATFORM_CALL_MEM_ALLOC), "mem_alloc");
    assert_string_equal(platform_call_name(PLATFORM_CALL_DEVICE_INFO), "device_info");
    assert_string_equal(platform_call_name(PLATFORM_CALL_COUNT), "unknown");
    for (int a = 0; a < PLATFORM_CALL_COUNT; a++) {
        assert_string_not_equal(platform_call_name(a), "unknown");
        for (int b = a + 1; b < PLATFORM_CALL_COUNT; b++)
            assert_string_not_equal(platform_call_name(a), platform_call_name(b));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(platform_counter_counts_every_entry_separately),
        cmocka_unit_test(platform_counter_fails_kth_call_overall),
        cmocka_unit_test(platform_counter_fails_kth_call_of_one_entry),
        cmocka_unit_test(platform_counter_rearming_replaces_and_zero_disarms),
        cmocka_unit_test(platform_counter_injects_once_under_concurrent_calls),
        cmocka_unit_test(platform_counter_names_every_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
