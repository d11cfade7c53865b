/*
 * Call counters: every class counted, refused calls included, split per
 * thread and per device, reset by finalize.
 */
#include "fixture.h"

static simdev_counters counters_now(void)
{
    simdev_counters c;
    memset(&c, 0xEE, sizeof c);
    assert_int_equal(simdev_get_counters(&c), SIMDEV_SUCCESS);
    return c;
}

static void counters_start_at_zero_after_configure(void **state)
{
    (void)state;
    simdev_counters zero, c = counters_now();
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&c, &zero, sizeof c);
    assert_int_equal(simdev_get_thread_counters(&c), SIMDEV_SUCCESS);
    assert_memory_equal(&c, &zero, sizeof c);
    assert_int_equal(simdev_get_device_counters(1, &c), SIMDEV_SUCCESS);
    assert_memory_equal(&c, &zero, sizeof c);
}

/* One of each: every field counts its calls. */
static void counters_count_every_class(void **state)
{
    (void)state;
    simdev_stream_t s = fix_stream();
    simdev_event_t e = fix_event();
    uint8_t *buf = fix_malloc(64);
    uint8_t host[64] = {0};
    atomic_int runs = 0;
    /* Synchronous calls do not wait for streams: they go first. */
    assert_int_equal(simdev_memcpy(buf, host, 64), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset(buf, 0, 64), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy_async(buf, host, 64, s), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset_async(buf, 0, 64, s), SIMDEV_SUCCESS);
    fix_launch_count(s, &runs);
    assert_int_equal(simdev_launch_host_func(s, fix_count_host_fn, &runs), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(e, s), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(s, e), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(s), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_synchronize(e), SIMDEV_SUCCESS);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_query(s), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_query(e), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_begin(s, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(fix_status(s), SIMDEV_CAPTURE_STATUS_ACTIVE);
    simdev_graph_t g = NULL;
    assert_int_equal(simdev_capture_end(s, &g), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_launch(g, s), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(buf), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(e), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(s), SIMDEV_SUCCESS);
    simdev_counters c = counters_now();
    assert_int_equal(c.malloc_calls, 1);
    assert_int_equal(c.free_calls, 1);
    assert_int_equal(c.memcpy_sync_calls, 1);
    assert_int_equal(c.memcpy_async_calls, 1);
    assert_int_equal(c.memset_calls, 2);
    assert_int_equal(c.synchronize_calls, 3);
    assert_int_equal(c.query_calls, 2);
    assert_int_equal(c.capture_query_calls, 1);
    assert_int_equal(c.stream_create_calls, 1);
    assert_int_equal(c.event_create_calls, 1);
    assert_int_equal(c.kernel_launches, 1);
    assert_int_equal(c.graph_launches, 1);
    assert_int_equal(c.event_record_calls, 1);
    assert_int_equal(c.event_wait_calls, 1);
    assert_int_equal(c.host_func_calls, 1);
    assert_int_equal(c.stream_destroy_calls, 1);
    assert_int_equal(c.event_destroy_calls, 1);
    assert_int_equal(c.capture_begin_calls, 1);
    assert_int_equal(c.capture_end_calls, 1);
    assert_int_equal(c.graph_destroy_calls, 1);
}

static void counters_include_refused_calls(void **state)
{
    (void)state;
    uint8_t host[16];
    void *ptr = NULL;
    assert_int_equal(simdev_memset(host, 0, sizeof host), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_malloc(&ptr, 0), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_free(host), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_stream_synchronize(NULL), SIMDEV_ERROR_INVALID_PARAM);
    simdev_counters c = counters_now();
    assert_int_equal(c.memset_calls, 1);
    assert_int_equal(c.malloc_calls, 1);
    assert_int_equal(c.free_calls, 1);
    assert_int_equal(c.synchronize_calls, 1);
}

static int three_mallocs(void *p)
{
    (void)p;
    for (int i = 0; i < 3; i++) {
        void *ptr = NULL;
        if (simdev_malloc(&ptr, 64) != SIMDEV_SUCCESS || simdev_free(ptr) != SIMDEV_SUCCESS)
            return -1;
    }
    simdev_counters mine;
    if (simdev_get_thread_counters(&mine) != SIMDEV_SUCCESS)
        return -1;
    return (int)(mine.malloc_calls * 10 + mine.free_calls);
}

static void counters_split_per_thread(void **state)
{
    (void)state;
    void *ptr = fix_malloc(64);
    assert_int_equal(fix_call_on_thread(three_mallocs, NULL), 33);
    simdev_counters mine;
    assert_int_equal(simdev_get_thread_counters(&mine), SIMDEV_SUCCESS);
    assert_int_equal(mine.malloc_calls, 1);
    assert_int_equal(mine.free_calls, 0);
    simdev_counters all = counters_now();
    assert_int_equal(all.malloc_calls, 4);
    assert_int_equal(all.free_calls, 3);
    assert_int_equal(simdev_free(ptr), SIMDEV_SUCCESS);
}

static void counters_split_per_current_device(void **state)
{
    (void)state;
    simdev_stream_t on0 = fix_stream();
    assert_int_equal(simdev_set_device(1), SIMDEV_SUCCESS);
    simdev_stream_t on1a = fix_stream();
    simdev_stream_t on1b = fix_stream();
    void *ptr = fix_malloc(64);
    assert_int_equal(simdev_free(ptr), SIMDEV_SUCCESS);
    simdev_counters d0, d1;
    assert_int_equal(simdev_get_device_counters(0, &d0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_get_device_counters(1, &d1), SIMDEV_SUCCESS);
    assert_int_equal(d0.stream_create_calls, 1);
    assert_int_equal(d1.stream_create_calls, 2);
    assert_int_equal(d0.malloc_calls, 0);
    assert_int_equal(d1.malloc_calls, 1);
    assert_int_equal(counters_now().stream_create_calls, 3);
    assert_int_equal(simdev_stream_destroy(on1b), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(on1a), SIMDEV_SUCCESS);
    assert_int_equal(simdev_set_device(0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(on0), SIMDEV_SUCCESS);
}

static void counters_reset_by_finalize(void **state)
{
    void *ptr = fix_malloc(64);
    assert_int_equal(simdev_free(ptr), SIMDEV_SUCCESS);
    assert_int_equal(counters_now().malloc_calls, 1);
    assert_int_equal(simdev_finalize(), SIMDEV_SUCCESS);
    assert_int_equal(fix_setup(state), 0);
    assert_int_equal(counters_now().malloc_calls, 0);
    simdev_counters mine;
    assert_int_equal(simdev_get_thread_counters(&mine), SIMDEV_SUCCESS);
    assert_int_equal(mine.malloc_calls, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(counters_start_at_zero_after_configure),
        FIX_TEST(counters_count_every_class),
        FIX_TEST(counters_include_refused_calls),
        FIX_TEST(counters_split_per_thread),
        FIX_TEST(counters_split_per_current_device),
        FIX_TEST(counters_reset_by_finalize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
