/* simpler_clock_ns is the library's one clock, monotonic from any thread. */
#define _POSIX_C_SOURCE 199309L
#include "support.h"

#include <pthread.h>
#include <time.h>

#include "common/clock.h"
#include "simpler/runtime_c_api.h"

static uint64_t posix_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void clock_ns_is_the_internal_monotonic_clock(void **state)
{
    (void)state;
    for (int i = 0; i < 1000; i++) {
        uint64_t before = clock_now_ns();
        uint64_t posix_before = posix_monotonic_ns();
        uint64_t now = simpler_clock_ns();
        uint64_t posix_after = posix_monotonic_ns();
        uint64_t after = clock_now_ns();
        assert_true(before <= now && now <= after);
        assert_true(posix_before <= now && now <= posix_after);
    }
}

static void *read_many(void *arg)
{
    int *bad = arg;
    uint64_t last = simpler_clock_ns();
    for (int i = 0; i < 100000; i++) {
        uint64_t now = simpler_clock_ns();
        *bad += now < last;
        last = now;
    }
    return NULL;
}

static void clock_ns_never_goes_back_on_any_thread(void **state)
{
    pthread_t threads[4];
    int bad[4] = {0};
    (void)state;
    for (int t = 0; t < 4; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, read_many, &bad[t]), 0);
    for (int t = 0; t < 4; t++) {
        assert_int_equal(pthread_join(threads[t], NULL), 0);
        assert_int_equal(bad[t], 0);
    }
}

static void clock_ns_advances_with_time(void **state)
{
    struct timespec pause = {0, 2000000};
    (void)state;
    uint64_t start = simpler_clock_ns();
    nanosleep(&pause, NULL);
    assert_true(simpler_clock_ns() - start >= 2000000u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clock_ns_is_the_internal_monotonic_clock),
        cmocka_unit_test(clock_ns_never_goes_back_on_any_thread),
        cmocka_unit_test(clock_ns_advances_with_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
