/*
 * simdev_streams_synchronize: waits for every listed stream and returns the
 * first sticky fault in list order, also waiting for the streams after a
 * faulted one; refuses bad input before it waits for anything; with engine
 * affinity, a caller on one engine's CPUs first waits for the streams whose
 * newest work is a kernel of that engine (the order is observed through a
 * test-only hook, SIMPLER_VERIFY builds).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "simdev/sd_internal.h"
#include "simdev_engine_cpus.h"
#include "simdev_setup.h"
#include "support.h"

static int clean(void **state)
{
    (void)state;
    (void)simdev_finalize();
    return 0;
}

static void configure(void)
{
    assert_int_equal(simdev_setup_configure(1, 4u << 20, 2, 4, 3), 0);
}

/* A host function that sleeps a little, then marks its flag. */
static void slow_mark(void *flag)
{
    usleep(20000);
    atomic_store((atomic_int *)flag, 1);
}

/* A host function that waits (bounded, 2 s) until its flag is set. */
static void wait_flag(void *flag)
{
    for (int i = 0; i < 20000 && !atomic_load((atomic_int *)flag); i++)
        usleep(100);
}

static void fault_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    (void)simdev_kernel_report_fault(*(const int *)args);
}

static void streams_sync_waits_for_every_stream(void **state)
{
    (void)state;
    configure();
    simdev_stream_t s[3];
    static atomic_int done[3];
    for (int i = 0; i < 3; i++) {
        atomic_store(&done[i], 0);
        assert_int_equal(simdev_stream_create(&s[i]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_launch_host_func(s[i], slow_mark, &done[i]), SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_streams_synchronize(s, 3), SIMDEV_SUCCESS);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(atomic_load(&done[i]), 1);
        assert_int_equal(simdev_stream_query(s[i]), SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_streams_synchronize(s, 0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_streams_synchronize(NULL, 0), SIMDEV_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_stream_destroy(s[i]), SIMDEV_SUCCESS);
}

/* The first fault in list order, and the streams after it still waited
 * for. */
static void streams_sync_returns_the_first_fault_in_list_order(void **state)
{
    (void)state;
    configure();
    simdev_stream_t a, b, c;
    static atomic_int c_done;
    atomic_store(&c_done, 0);
    int code_a = SIMDEV_ERROR_KERNEL_FAULT, code_b = SIMDEV_ERROR_KERNEL_FAULT + 1;
    assert_int_equal(simdev_stream_create(&a), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_create(&b), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_create(&c), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(a, SIMDEV_ENGINE_AICORE, fault_kernel, 1, &code_a, sizeof(code_a)),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(b, SIMDEV_ENGINE_AICPU, fault_kernel, 1, &code_b, sizeof(code_b)),
                     SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_host_func(c, slow_mark, &c_done), SIMDEV_SUCCESS);
    simdev_stream_t abc[3] = {a, b, c}, cba[3] = {c, b, a};
    assert_int_equal(simdev_streams_synchronize(abc, 3), code_a);
    assert_int_equal(atomic_load(&c_done), 1);
    assert_int_equal(simdev_streams_synchronize(cba, 3), code_b);
    assert_int_equal(simdev_stream_destroy(a), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(b), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(c), SIMDEV_SUCCESS);
}

/* Bad input is refused with the documented code before anything is
 * waited for: a stream held inside a host function stays pending. */
static void streams_sync_refuses_bad_input_without_waiting(void **state)
{
    (void)state;
    configure();
    static atomic_int release;
    atomic_store(&release, 0);
    simdev_stream_t held, gone, cap;
    assert_int_equal(simdev_stream_create(&held), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_create(&gone), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_create(&cap), SIMDEV_SUCCESS);
    /* Destroyed last, so no stream created since reuses its address. */
    assert_int_equal(simdev_stream_destroy(gone), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_host_func(held, wait_flag, &release), SIMDEV_SUCCESS);
    assert_int_equal(simdev_streams_synchronize(NULL, 1), SIMDEV_ERROR_INVALID_PARAM);
    simdev_stream_t many[SIMDEV_STREAMS_SYNC_MAX + 1];
    for (uint32_t i = 0; i <= SIMDEV_STREAMS_SYNC_MAX; i++)
        many[i] = held;
    assert_int_equal(simdev_streams_synchronize(many, SIMDEV_STREAMS_SYNC_MAX + 1), SIMDEV_ERROR_INVALID_PARAM);
    simdev_stream_t with_null[2] = {held, NULL};
    assert_int_equal(simdev_streams_synchronize(with_null, 2), SIMDEV_ERROR_INVALID_PARAM);
    simdev_stream_t with_gone[2] = {held, gone};
    assert_int_equal(simdev_streams_synchronize(with_gone, 2), SIMDEV_ERROR_INVALID_HANDLE);
    assert_int_equal(simdev_capture_begin(cap, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    simdev_stream_t with_cap[2] = {held, cap};
    assert_int_equal(simdev_streams_synchronize(with_cap, 2), SIMDEV_ERROR_STREAM_CAPTURED);
    simdev_graph_t g = NULL;
    assert_int_equal(simdev_capture_end(cap, &g), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_query(held), SIMDEV_ERROR_NOT_READY);
    atomic_store(&release, 1);
    assert_int_equal(simdev_streams_synchronize(many, SIMDEV_STREAMS_SYNC_MAX), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(held), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(cap), SIMDEV_SUCCESS);
}

/* An injected failure of the call (class SYNCHRONIZE, counted once)
 * returns the code at once, with no effect: the held stream is not waited
 * for; the next call waits as usual. */
static void streams_sync_injected_failure_waits_for_nothing(void **state)
{
    (void)state;
    configure();
    static atomic_int release;
    atomic_store(&release, 0);
    simdev_stream_t held;
    assert_int_equal(simdev_stream_create(&held), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_host_func(held, wait_flag, &release), SIMDEV_SUCCESS);
    simdev_counters before, after;
    assert_int_equal(simdev_get_counters(&before), SIMDEV_SUCCESS);
    assert_int_equal(simdev_fault_inject(SIMDEV_CALL_SYNCHRONIZE, 1, SIMDEV_ERROR_MEMORY_ALLOCATION), SIMDEV_SUCCESS);
    assert_int_equal(simdev_streams_synchronize(&held, 1), SIMDEV_ERROR_MEMORY_ALLOCATION);
    assert_int_equal(simdev_get_counters(&after), SIMDEV_SUCCESS);
    assert_int_equal(after.synchronize_calls - before.synchronize_calls, 1);
    assert_int_equal(simdev_stream_query(held), SIMDEV_ERROR_NOT_READY);
    atomic_store(&release, 1);
    assert_int_equal(simdev_streams_synchronize(&held, 1), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(held), SIMDEV_SUCCESS);
}

#ifdef SIMPLER_VERIFY
static void empty_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    (void)args;
}

static simdev_stream_t waited[8];
static atomic_uint waits;

static void record_wait(struct simdev_stream *s)
{
    unsigned n = atomic_fetch_add(&waits, 1);
    if (n < 8)
        waited[n] = s;
}

/* The calling thread moved onto `engine`'s CPUs; 0 if it has none. */
static int move_beside(int engine)
{
    cpu_set_t set;
    simdev_engine_cpus(0, engine, &set);
    if (CPU_COUNT(&set) == 0)
        return 0;
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(set), &set), 0);
    return sd_engine_runs_here(&sd_g.dev[0].pools[engine]);
}
#endif

/* With engine affinity, the streams whose newest work is a kernel of the
 * engine beside the caller are waited for first; then the others in list
 * order. A stream ending with a host function counts for no engine. */
static void streams_sync_waits_first_beside_the_caller(void **state)
{
    (void)state;
#ifndef SIMPLER_VERIFY
    skip(); /* the order hook is compiled in SIMPLER_VERIFY builds only */
#else
    cpu_set_t process;
    assert_int_equal(sched_getaffinity(0, sizeof(process), &process), 0);
    if (CPU_COUNT(&process) < 2)
        skip(); /* no placement, no preferred order */
    configure();
    simdev_stream_t host, aicpu, aicore;
    static atomic_int unused;
    assert_int_equal(simdev_stream_create(&host), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_create(&aicpu), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_create(&aicore), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(host, SIMDEV_ENGINE_AICORE, empty_kernel, 1, NULL, 0), SIMDEV_SUCCESS);
    atomic_store(&unused, 1);
    assert_int_equal(simdev_launch_host_func(host, wait_flag, &unused), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(aicpu, SIMDEV_ENGINE_AICPU, empty_kernel, 1, NULL, 0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(aicore, SIMDEV_ENGINE_AICORE, empty_kernel, 1, NULL, 0), SIMDEV_SUCCESS);
    simdev_stream_t list[3] = {host, aicpu, aicore};
    const simdev_stream_t beside_aicore[3] = {aicore, host, aicpu};
    const simdev_stream_t beside_aicpu[3] = {aicpu, host, aicore};
    const simdev_stream_t *expect[2] = {beside_aicpu, beside_aicore};
    for (int engine = 0; engine < 2; engine++) {
        assert_true(move_beside(engine));
        atomic_store(&waits, 0);
        atomic_store(&sd_test_before_wait, record_wait);
        assert_int_equal(simdev_streams_synchronize(list, 3), SIMDEV_SUCCESS);
        atomic_store(&sd_test_before_wait, NULL);
        assert_int_equal(atomic_load(&waits), 3);
        for (int i = 0; i < 3; i++)
            assert_ptr_equal(waited[i], expect[engine][i]);
    }
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(process), &process), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_stream_destroy(list[i]), SIMDEV_SUCCESS);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(streams_sync_waits_for_every_stream, clean),
        cmocka_unit_test_teardown(streams_sync_returns_the_first_fault_in_list_order, clean),
        cmocka_unit_test_teardown(streams_sync_refuses_bad_input_without_waiting, clean),
        cmocka_unit_test_teardown(streams_sync_waits_first_beside_the_caller, clean),
        cmocka_unit_test_teardown(streams_sync_injected_failure_waits_for_nothing, clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
