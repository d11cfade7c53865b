/*
 * Capture lifecycle misuse and cross-thread rules: begin twice, end
 * without begin, end from another thread, synchronous calls from other
 * threads per mode, and what may not be torn down while capturing.
 */
#include "fixture.h"

static const simdev_capture_mode all_modes[] = {
    SIMDEV_CAPTURE_MODE_GLOBAL, SIMDEV_CAPTURE_MODE_THREAD_LOCAL, SIMDEV_CAPTURE_MODE_RELAXED};

static void end_and_destroy(simdev_stream_t stream, size_t expected_nodes)
{
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_SUCCESS);
    assert_non_null(graph);
    assert_int_equal(fix_node_count(graph), expected_nodes);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
}

static void capture_begin_twice_refused_with_conflict(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    struct fix_log log = {0};
    for (size_t m = 0; m < 3; m++) {
        assert_int_equal(simdev_capture_begin(stream, all_modes[m]), SIMDEV_SUCCESS);
        fix_launch_log(stream, &log, 1);
        for (size_t again = 0; again < 3; again++)
            assert_int_equal(simdev_capture_begin(stream, all_modes[again]),
                             SIMDEV_ERROR_STREAM_CAPTURE_CONFLICT);
        assert_int_equal(fix_status(stream), SIMDEV_CAPTURE_STATUS_ACTIVE);
        end_and_destroy(stream, 1);
    }
    assert_int_equal(atomic_load(&log.count), 0);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void capture_end_without_begin_refused_unmatched(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    simdev_graph_t graph = (simdev_graph_t)&graph;
    assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_ERROR_STREAM_CAPTURE_UNMATCHED);
    assert_ptr_equal(graph, (simdev_graph_t)&graph);
    assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    end_and_destroy(stream, 0);
    assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_ERROR_STREAM_CAPTURE_UNMATCHED);
    assert_ptr_equal(graph, (simdev_graph_t)&graph);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void capture_get_info_reports_none_then_active_then_none(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    simdev_capture_status status = SIMDEV_CAPTURE_STATUS_INVALIDATED;
    simdev_graph_t graph = (simdev_graph_t)&graph;
    assert_int_equal(simdev_capture_get_info(stream, &status, &graph), SIMDEV_SUCCESS);
    assert_int_equal(status, SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    graph = NULL;
    assert_int_equal(simdev_capture_get_info(stream, &status, &graph), SIMDEV_SUCCESS);
    assert_int_equal(status, SIMDEV_CAPTURE_STATUS_ACTIVE);
    assert_non_null(graph);
    end_and_destroy(stream, 0);
    assert_int_equal(fix_status(stream), SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* Two captures at once: an event recorded in one is outside the other. */
static void capture_wait_on_event_of_other_capture_refused(void **state)
{
    (void)state;
    simdev_stream_t a = fix_stream(), b = fix_stream();
    simdev_event_t in_b = fix_event();
    struct fix_log log = {0};
    assert_int_equal(simdev_capture_begin(a, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_begin(b, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    fix_launch_log(b, &log, 1);
    assert_int_equal(simdev_event_record(in_b, b), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(a, in_b), SIMDEV_ERROR_CAPTURE_DEPENDENCY);
    fix_launch_log(a, &log, 2);
    end_and_destroy(b, 1);
    end_and_destroy(a, 1);
    assert_int_equal(atomic_load(&log.count), 0);
    assert_int_equal(simdev_event_destroy(in_b), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(b), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(a), SIMDEV_SUCCESS);
}

/* ---- end from another thread ---- */

struct end_call {
    simdev_stream_t stream;
    simdev_graph_t graph;
};

static int end_from_thread(void *p)
{
    struct end_call *call = p;
    return simdev_capture_end(call->stream, &call->graph);
}

static void end_from_other_thread_refused(simdev_capture_mode mode)
{
    simdev_stream_t stream = fix_stream();
    struct fix_log log = {0};
    assert_int_equal(simdev_capture_begin(stream, mode), SIMDEV_SUCCESS);
    fix_launch_log(stream, &log, 1);
    struct end_call call = {stream, (simdev_graph_t)&log};
    assert_int_equal(fix_call_on_thread(end_from_thread, &call), SIMDEV_ERROR_STREAM_CAPTURE_WRONG_THREAD);
    assert_ptr_equal(call.graph, (simdev_graph_t)&log);
    assert_int_equal(fix_status(stream), SIMDEV_CAPTURE_STATUS_ACTIVE);
    fix_launch_log(stream, &log, 2);
    end_and_destroy(stream, 2);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void capture_end_from_other_thread_refused_in_global(void **state)
{
    (void)state;
    end_from_other_thread_refused(SIMDEV_CAPTURE_MODE_GLOBAL);
}

static void capture_end_from_other_thread_refused_in_thread_local(void **state)
{
    (void)state;
    end_from_other_thread_refused(SIMDEV_CAPTURE_MODE_THREAD_LOCAL);
}

static void capture_end_from_other_thread_allowed_in_relaxed(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    struct fix_log log = {0};
    assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_RELAXED), SIMDEV_SUCCESS);
    fix_launch_log(stream, &log, 1);
    struct end_call call = {stream, NULL};
    assert_int_equal(fix_call_on_thread(end_from_thread, &call), SIMDEV_SUCCESS);
    assert_non_null(call.graph);
    assert_int_equal(fix_status(stream), SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(fix_node_count(call.graph), 1);
    assert_int_equal(simdev_graph_launch(call.graph, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&log.count), 1);
    assert_int_equal(simdev_graph_destroy(call.graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* ---- another thread's synchronous calls ---- */

struct sync_call {
    void *dev;
    simdev_capture_mode thread_mode;
};

static int memset_from_thread(void *p)
{
    struct sync_call *call = p;
    simdev_capture_mode mode = call->thread_mode;
    if (simdev_capture_thread_exchange_mode(&mode) != SIMDEV_SUCCESS)
        return -1;
    return simdev_memset(call->dev, 0x77, 256);
}

/* Runs a memset of `dev` from a new thread with interaction mode
 * `thread_mode` while this thread captures in `capture_mode`. */
static int other_thread_memset_during(simdev_capture_mode capture_mode, simdev_capture_mode thread_mode,
                                      void *dev)
{
    simdev_stream_t stream = fix_stream();
    assert_int_equal(simdev_capture_begin(stream, capture_mode), SIMDEV_SUCCESS);
    struct sync_call call = {dev, thread_mode};
    int rc = fix_call_on_thread(memset_from_thread, &call);
    assert_int_equal(fix_status(stream), SIMDEV_CAPTURE_STATUS_ACTIVE);
    end_and_destroy(stream, 0);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
    return rc;
}

static void capture_global_refuses_other_thread_sync_memset(void **state)
{
    (void)state;
    void *dev = fix_malloc(256);
    assert_int_equal(simdev_memset(dev, 0x11, 256), SIMDEV_SUCCESS);
    assert_int_equal(other_thread_memset_during(SIMDEV_CAPTURE_MODE_GLOBAL, SIMDEV_CAPTURE_MODE_GLOBAL, dev),
                     SIMDEV_ERROR_CAPTURE_MODE_NOT_SUPPORT);
    fix_assert_words(dev, 64, 0x11111111u);
    assert_int_equal(simdev_free(dev), SIMDEV_SUCCESS);
}

/* As in CUDA, a thread interacting in THREAD_LOCAL mode answers only to
 * its own captures. */
static void capture_global_allows_thread_local_thread_sync_memset(void **state)
{
    (void)state;
    void *dev = fix_malloc(256);
    assert_int_equal(simdev_memset(dev, 0x11, 256), SIMDEV_SUCCESS);
    assert_int_equal(other_thread_memset_during(SIMDEV_CAPTURE_MODE_GLOBAL, SIMDEV_CAPTURE_MODE_THREAD_LOCAL,
                                                dev),
                     SIMDEV_SUCCESS);
    fix_assert_words(dev, 64, 0x77777777u);
    assert_int_equal(simdev_free(dev), SIMDEV_SUCCESS);
}

static void capture_global_allows_relaxed_thread_sync_memset(void **state)
{
    (void)state;
    void *dev = fix_malloc(256);
    assert_int_equal(other_thread_memset_during(SIMDEV_CAPTURE_MODE_GLOBAL, SIMDEV_CAPTURE_MODE_RELAXED, dev),
                     SIMDEV_SUCCESS);
    fix_assert_words(dev, 64, 0x77777777u);
    assert_int_equal(simdev_free(dev), SIMDEV_SUCCESS);
}

static void capture_thread_local_allows_other_thread_sync_memset(void **state)
{
    (void)state;
    void *dev = fix_malloc(256);
    assert_int_equal(other_thread_memset_during(SIMDEV_CAPTURE_MODE_THREAD_LOCAL, SIMDEV_CAPTURE_MODE_GLOBAL,
                                                dev),
                     SIMDEV_SUCCESS);
    fix_assert_words(dev, 64, 0x77777777u);
    assert_int_equal(simdev_free(dev), SIMDEV_SUCCESS);
}

static void capture_relaxed_allows_other_thread_sync_memset(void **state)
{
    (void)state;
    void *dev = fix_malloc(256);
    assert_int_equal(other_thread_memset_during(SIMDEV_CAPTURE_MODE_RELAXED, SIMDEV_CAPTURE_MODE_GLOBAL, dev),
                     SIMDEV_SUCCESS);
    fix_assert_words(dev, 64, 0x77777777u);
    assert_int_equal(simdev_free(dev), SIMDEV_SUCCESS);
}

static void capture_thread_mode_exchange_returns_previous_mode(void **state)
{
    (void)state;
    simdev_capture_mode mode = SIMDEV_CAPTURE_MODE_THREAD_LOCAL;
    assert_int_equal(simdev_capture_thread_exchange_mode(&mode), SIMDEV_SUCCESS);
    assert_int_equal(mode, SIMDEV_CAPTURE_MODE_GLOBAL);
    mode = SIMDEV_CAPTURE_MODE_RELAXED;
    assert_int_equal(simdev_capture_thread_exchange_mode(&mode), SIMDEV_SUCCESS);
    assert_int_equal(mode, SIMDEV_CAPTURE_MODE_THREAD_LOCAL);
    mode = (simdev_capture_mode)9;
    assert_int_equal(simdev_capture_thread_exchange_mode(&mode), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(mode, 9);
    assert_int_equal(simdev_capture_thread_exchange_mode(NULL), SIMDEV_ERROR_INVALID_PARAM);
    mode = SIMDEV_CAPTURE_MODE_GLOBAL;
    assert_int_equal(simdev_capture_thread_exchange_mode(&mode), SIMDEV_SUCCESS);
    assert_int_equal(mode, SIMDEV_CAPTURE_MODE_RELAXED);
}

/* ---- teardown refused while capturing ---- */

static void capture_active_refuses_destroy_reset_and_finalize(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    struct fix_log log = {0};
    assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    fix_launch_log(stream, &log, 1);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(simdev_reset_device(0), SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(simdev_finalize(), SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(fix_status(stream), SIMDEV_CAPTURE_STATUS_ACTIVE);
    end_and_destroy(stream, 1);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(capture_begin_twice_refused_with_conflict),
        FIX_TEST(capture_end_without_begin_refused_unmatched),
        FIX_TEST(capture_get_info_reports_none_then_active_then_none),
        FIX_TEST(capture_wait_on_event_of_other_capture_refused),
        FIX_TEST(capture_end_from_other_thread_refused_in_global),
        FIX_TEST(capture_end_from_other_thread_refused_in_thread_local),
        FIX_TEST(capture_end_from_other_thread_allowed_in_relaxed),
        FIX_TEST(capture_global_refuses_other_thread_sync_memset),
        FIX_TEST(capture_global_allows_relaxed_thread_sync_memset),
        FIX_TEST(capture_global_allows_thread_local_thread_sync_memset),
        FIX_TEST(capture_thread_local_allows_other_thread_sync_memset),
        FIX_TEST(capture_relaxed_allows_other_thread_sync_memset),
        FIX_TEST(capture_thread_mode_exchange_returns_previous_mode),
        FIX_TEST(capture_active_refuses_destroy_reset_and_finalize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
