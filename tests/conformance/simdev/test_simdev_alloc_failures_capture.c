/* Host allocation failure sweeps for capture calls (simdev.h, the one
 * exception to "a failed call has no effect"): begin, end and a fork that
 * fail for want of host memory change nothing; an operation whose recording into an
 * active capture fails returns MEMORY_ALLOCATION and invalidates the
 * capture, whose later operations and end report
 * STREAM_CAPTURE_INVALIDATED; a new capture on the same streams then works.
 */
#include "fixture.h"

#include "common/host_alloc.h"

#define SWEEP_MAX 64

struct cap {
    simdev_stream_t origin, side;
    simdev_event_t fork, join;
    simdev_graph_t graph;
    atomic_int runs;
    atomic_int *runs_ptr;
    size_t nodes;
};

static void cap_init(struct cap *c)
{
    memset(c, 0, sizeof *c);
    c->runs_ptr = &c->runs;
    c->origin = fix_stream();
    c->side = fix_stream();
    c->fork = fix_event();
    c->join = fix_event();
}

static void cap_deinit(struct cap *c)
{
    assert_int_equal(simdev_event_destroy(c->join), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(c->fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(c->side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(c->origin), SIMDEV_SUCCESS);
}

static int begin_call(struct cap *c) { return simdev_capture_begin(c->origin, SIMDEV_CAPTURE_MODE_GLOBAL); }
static int kernel_call(struct cap *c)
{
    return simdev_launch_kernel(c->origin, SIMDEV_ENGINE_AICPU, fix_count_kernel, 1, &c->runs_ptr,
                                sizeof c->runs_ptr);
}
static int record_call(struct cap *c) { return simdev_event_record(c->fork, c->origin); }
static int fork_call(struct cap *c) { return simdev_stream_wait_event(c->side, c->fork); }
static int side_kernel_call(struct cap *c)
{
    return simdev_launch_kernel(c->side, SIMDEV_ENGINE_AICPU, fix_count_kernel, 1, &c->runs_ptr,
                                sizeof c->runs_ptr);
}
static int join_record_call(struct cap *c) { return simdev_event_record(c->join, c->side); }
static int join_wait_call(struct cap *c) { return simdev_stream_wait_event(c->origin, c->join); }
static int end_call(struct cap *c) { return simdev_capture_end(c->origin, &c->graph); }

typedef int (*cap_call)(struct cap *c);

static const cap_call steps[] = {begin_call,       kernel_call,      record_call,    fork_call,
                                 side_kernel_call, join_record_call, join_wait_call, end_call};
#define STEP_COUNT (sizeof steps / sizeof steps[0])

/* Runs steps [0, upto) with no fault armed. */
static void run_steps(struct cap *c, size_t upto)
{
    for (size_t i = 0; i < upto; i++)
        assert_int_equal(steps[i](c), SIMDEV_SUCCESS);
}

static void check_replay(struct cap *c)
{
    assert_non_null(c->graph);
    assert_int_equal(fix_node_count(c->graph), 2);
    atomic_store(&c->runs, 0);
    assert_int_equal(simdev_graph_launch(c->graph, c->origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(c->origin), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&c->runs), 2);
    assert_int_equal(simdev_graph_destroy(c->graph), SIMDEV_SUCCESS);
    c->graph = NULL;
}

/* After a failed step: begin, fork and end failures leave the capture as
 * it was; a failed recording leaves it INVALIDATED until end. Either way the
 * streams are out of capture afterwards. */
static void check_after_failure(struct cap *c, size_t step)
{
    if (step == 0) {
        assert_int_equal(fix_status(c->origin), SIMDEV_CAPTURE_STATUS_NONE);
        return;
    }
    if (steps[step] == fork_call) {
        /* A fork that fails adds no stream: the capture goes on without it. */
        assert_int_equal(fix_status(c->origin), SIMDEV_CAPTURE_STATUS_ACTIVE);
        assert_int_equal(fix_status(c->side), SIMDEV_CAPTURE_STATUS_NONE);
        assert_int_equal(end_call(c), SIMDEV_SUCCESS);
        assert_int_equal(fix_node_count(c->graph), 1);
        assert_int_equal(simdev_graph_destroy(c->graph), SIMDEV_SUCCESS);
        c->graph = NULL;
        return;
    }
    if (step == STEP_COUNT - 1) {
        assert_int_equal(fix_status(c->origin), SIMDEV_CAPTURE_STATUS_ACTIVE);
        assert_int_equal(end_call(c), SIMDEV_SUCCESS);
        check_replay(c);
        return;
    }
    if (fix_status(c->origin) != SIMDEV_CAPTURE_STATUS_INVALIDATED)
        fail_msg("step %zu: a failed recording left status %d", step, (int)fix_status(c->origin));
    assert_int_equal(kernel_call(c), SIMDEV_ERROR_STREAM_CAPTURE_INVALIDATED);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(c->origin, &graph), SIMDEV_ERROR_STREAM_CAPTURE_INVALIDATED);
    assert_null(graph);
    assert_int_equal(fix_status(c->origin), SIMDEV_CAPTURE_STATUS_NONE);
    assert_int_equal(fix_status(c->side), SIMDEV_CAPTURE_STATUS_NONE);
}

static void alloc_failure_in_capture_calls_invalidates_only_recordings(void **state)
{
    (void)state;
    struct cap c;
    cap_init(&c);
    for (size_t step = 0; step < STEP_COUNT; step++) {
        for (int k = 1;; k++) {
            assert_true(k <= SWEEP_MAX);
            run_steps(&c, step);
            host_alloc_fail_nth((uint64_t)k);
            int rc = steps[step](&c);
            host_alloc_fail_nth(0);
            if (rc == SIMDEV_SUCCESS) {
                for (size_t rest = step + 1; rest < STEP_COUNT; rest++)
                    assert_int_equal(steps[rest](&c), SIMDEV_SUCCESS);
                check_replay(&c);
                break;
            }
            assert_int_equal(rc, SIMDEV_ERROR_MEMORY_ALLOCATION);
            check_after_failure(&c, step);
        }
    }
    cap_deinit(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(alloc_failure_in_capture_calls_invalidates_only_recordings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
