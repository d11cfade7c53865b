/*
 * Fork and join: events recorded in a capture pull other streams into it,
 * the dependencies they describe are replayed, and streams outside the
 * capture keep running eagerly.
 */
#include "fixture.h"

#define WORDS 64

struct three {
    simdev_stream_t origin, left, right;
    simdev_event_t fork, join_left, join_right;
    uint32_t *a, *b, *c;
    atomic_int runs, bad;
};

static void three_init(struct three *t)
{
    memset(t, 0, sizeof *t);
    t->origin = fix_stream();
    t->left = fix_stream();
    t->right = fix_stream();
    t->fork = fix_event();
    t->join_left = fix_event();
    t->join_right = fix_event();
    t->a = fix_malloc(WORDS * 4);
    t->b = fix_malloc(WORDS * 4);
    t->c = fix_malloc(WORDS * 4);
}

static void three_deinit(struct three *t)
{
    simdev_stream_t streams[] = {t->origin, t->left, t->right};
    simdev_event_t events[] = {t->fork, t->join_left, t->join_right};
    void *bufs[] = {t->a, t->b, t->c};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(simdev_stream_destroy(streams[i]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_event_destroy(events[i]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_free(bufs[i]), SIMDEV_SUCCESS);
    }
}

static void launch_check(simdev_stream_t stream, struct three *t, const uint32_t *src, uint32_t value)
{
    struct fix_check_args a = {src, WORDS, value, &t->runs, &t->bad};
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, fix_check_kernel, 1, &a, sizeof a),
                     SIMDEV_SUCCESS);
}

/* Begins a capture on origin and forks left into it: left fills b=2 and
 * records join_left, which origin does not wait for yet. */
static void three_capture_left_fork(struct three *t)
{
    assert_int_equal(simdev_capture_begin(t->origin, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(t->fork, t->origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(t->left, t->fork), SIMDEV_SUCCESS);
    fix_launch_fill(t->left, t->b, WORDS, 2);
    assert_int_equal(simdev_event_record(t->join_left, t->left), SIMDEV_SUCCESS);
}

/* origin: fill a=1, fork; left: check a==1, fill b=2; right: check a==1,
 * fill c=3; join both; origin: check b==2 and c==3. Seven nodes. */
static void three_capture_diamond(struct three *t)
{
    fix_launch_fill(t->origin, t->a, WORDS, 1);
    assert_int_equal(simdev_event_record(t->fork, t->origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(t->left, t->fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(t->right, t->fork), SIMDEV_SUCCESS);
    assert_int_equal(fix_status(t->left), SIMDEV_CAPTURE_STATUS_ACTIVE);
    assert_int_equal(fix_status(t->right), SIMDEV_CAPTURE_STATUS_ACTIVE);
    launch_check(t->left, t, t->a, 1);
    fix_launch_fill(t->left, t->b, WORDS, 2);
    launch_check(t->right, t, t->a, 1);
    fix_launch_fill(t->right, t->c, WORDS, 3);
    assert_int_equal(simdev_event_record(t->join_left, t->left), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(t->join_right, t->right), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(t->origin, t->join_left), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(t->origin, t->join_right), SIMDEV_SUCCESS);
    launch_check(t->origin, t, t->b, 2);
    launch_check(t->origin, t, t->c, 3);
}

static void capture_fork_join_three_streams_replays_dependencies(void **state)
{
    (void)state;
    struct three t;
    three_init(&t);
    assert_int_equal(simdev_capture_begin(t.origin, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    three_capture_diamond(&t);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(t.origin, &graph), SIMDEV_SUCCESS);
    assert_non_null(graph);
    assert_int_equal(fix_node_count(graph), 7);
    assert_int_equal(fix_status(t.left), SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(fix_status(t.right), SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(atomic_load(&t.runs), 0);
    for (int round = 1; round <= 3; round++) {
        assert_int_equal(simdev_memset(t.a, 0, WORDS * 4), SIMDEV_SUCCESS);
        assert_int_equal(simdev_memset(t.b, 0, WORDS * 4), SIMDEV_SUCCESS);
        assert_int_equal(simdev_memset(t.c, 0, WORDS * 4), SIMDEV_SUCCESS);
        assert_int_equal(simdev_graph_launch(graph, t.origin), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(t.origin), SIMDEV_SUCCESS);
        assert_int_equal(atomic_load(&t.runs), 4 * round);
        assert_int_equal(atomic_load(&t.bad), 0);
        fix_assert_words(t.c, WORDS, 3);
    }
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    three_deinit(&t);
}

static void capture_fork_join_unjoined_third_stream_refused_at_end(void **state)
{
    (void)state;
    struct three t;
    three_init(&t);
    assert_int_equal(simdev_capture_begin(t.origin, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    fix_launch_fill(t.origin, t.a, WORDS, 1);
    assert_int_equal(simdev_event_record(t.fork, t.origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(t.left, t.fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(t.right, t.fork), SIMDEV_SUCCESS);
    fix_launch_fill(t.left, t.b, WORDS, 2);
    fix_launch_fill(t.right, t.c, WORDS, 3);
    /* Only the left stream is joined back; the right one is left open. */
    assert_int_equal(simdev_event_record(t.join_left, t.left), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(t.origin, t.join_left), SIMDEV_SUCCESS);
    simdev_graph_t graph = (simdev_graph_t)&t;
    assert_int_equal(simdev_capture_end(t.origin, &graph), SIMDEV_ERROR_STREAM_UNJOINED);
    assert_ptr_equal(graph, (simdev_graph_t)&t);
    assert_int_equal(fix_status(t.origin), SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(fix_status(t.left), SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(fix_status(t.right), SIMDEV_CAPTURE_STATUS_NONE);
    /* Nothing captured ran, and every stream runs eager work again. */
    assert_int_equal(simdev_memset(t.c, 0, WORDS * 4), SIMDEV_SUCCESS);
    fix_launch_fill(t.right, t.b, WORDS, 9);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    fix_assert_words(t.b, WORDS, 9);
    fix_assert_words(t.c, WORDS, 0);
    three_deinit(&t);
}

/* The join needs the record after the side stream's last node: a record
 * before it leaves that node unjoined. */
static void capture_fork_join_record_before_last_side_node_is_unjoined(void **state)
{
    (void)state;
    struct three t;
    three_init(&t);
    three_capture_left_fork(&t);
    fix_launch_fill(t.left, t.b, WORDS, 4);
    assert_int_equal(simdev_stream_wait_event(t.origin, t.join_left), SIMDEV_SUCCESS);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(t.origin, &graph), SIMDEV_ERROR_STREAM_UNJOINED);
    assert_null(graph);
    assert_int_equal(fix_status(t.left), SIMDEV_CAPTURE_STATUS_NONE);
    three_deinit(&t);
}

/* A stream forked into a capture is capturing: it refuses what the
 * origin refuses, cannot begin or end a capture of its own, and cannot
 * be destroyed, until the capture ends. */
static void capture_forked_stream_counts_as_capturing(void **state)
{
    (void)state;
    struct three t;
    three_init(&t);
    three_capture_left_fork(&t);
    assert_int_equal(simdev_stream_synchronize(t.left), SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(simdev_stream_query(t.left), SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(simdev_event_query(t.join_left), SIMDEV_ERROR_EVENT_CAPTURED);
    assert_int_equal(simdev_event_synchronize(t.join_left), SIMDEV_ERROR_EVENT_CAPTURED);
    assert_int_equal(simdev_capture_begin(t.left, SIMDEV_CAPTURE_MODE_GLOBAL),
                     SIMDEV_ERROR_STREAM_CAPTURE_CONFLICT);
    simdev_graph_t graph = (simdev_graph_t)&t;
    assert_int_equal(simdev_capture_end(t.left, &graph), SIMDEV_ERROR_STREAM_CAPTURE_UNMATCHED);
    assert_ptr_equal(graph, (simdev_graph_t)&t);
    assert_int_equal(simdev_stream_destroy(t.left), SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(fix_status(t.left), SIMDEV_CAPTURE_STATUS_ACTIVE);
    assert_int_equal(simdev_stream_wait_event(t.origin, t.join_left), SIMDEV_SUCCESS);
    graph = NULL;
    assert_int_equal(simdev_capture_end(t.origin, &graph), SIMDEV_SUCCESS);
    assert_int_equal(fix_node_count(graph), 1);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    three_deinit(&t);
}

static void raise_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    fix_flag_raise(*(struct fix_flag *const *)args);
}

static void capture_outside_stream_runs_now_and_is_not_replayed(void **state)
{
    (void)state;
    simdev_stream_t capturing = fix_stream();
    simdev_stream_t outside = fix_stream();
    struct fix_log log = {0};
    atomic_int outside_runs = 0;
    struct fix_flag ran;
    fix_flag_init(&ran);
    struct fix_flag *ran_ptr = &ran;
    assert_int_equal(simdev_capture_begin(capturing, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    fix_launch_log(capturing, &log, 1);
    fix_launch_count(outside, &outside_runs);
    assert_int_equal(simdev_launch_kernel(outside, SIMDEV_ENGINE_AICPU, raise_kernel, 1, &ran_ptr, sizeof ran_ptr),
                     SIMDEV_SUCCESS);
    /* The outside kernel completes while the capture is still open. */
    assert_true(fix_flag_wait(&ran));
    assert_int_equal(fix_status(capturing), SIMDEV_CAPTURE_STATUS_ACTIVE);
    assert_int_equal(fix_status(outside), SIMDEV_CAPTURE_STATUS_NONE);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(capturing, &graph), SIMDEV_SUCCESS);
    assert_int_equal(fix_node_count(graph), 1);
    assert_int_equal(simdev_stream_synchronize(outside), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&outside_runs), 1);
    assert_int_equal(simdev_graph_launch(graph, capturing), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_launch(graph, outside), SIMDEV_SUCCESS);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&outside_runs), 1);
    assert_int_equal(atomic_load(&log.count), 2);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(outside), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(capturing), SIMDEV_SUCCESS);
    fix_flag_deinit(&ran);
}

/* Event record and wait inside a capture are edges, not nodes; so are
 * waits on never-recorded events. */
static void capture_event_record_and_wait_are_not_nodes(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    simdev_event_t event = fix_event();
    simdev_event_t never = fix_event();
    struct fix_log log = {0};
    assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    fix_launch_log(stream, &log, 1);
    assert_int_equal(simdev_event_record(event, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(stream, event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(stream, never), SIMDEV_SUCCESS);
    fix_launch_log(stream, &log, 2);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_SUCCESS);
    assert_int_equal(fix_node_count(graph), 2);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(never), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(capture_fork_join_three_streams_replays_dependencies),
        FIX_TEST(capture_fork_join_unjoined_third_stream_refused_at_end),
        FIX_TEST(capture_fork_join_record_before_last_side_node_is_unjoined),
        FIX_TEST(capture_forked_stream_counts_as_capturing),
        FIX_TEST(capture_outside_stream_runs_now_and_is_not_replayed),
        FIX_TEST(capture_event_record_and_wait_are_not_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
