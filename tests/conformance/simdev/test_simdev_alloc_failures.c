/*
 * Host allocation failure sweeps (every failure path is tested by a sweep):
 * fail the k-th host allocation, k = 1, 2, ... until the call succeeds;
 * every failure returns MEMORY_ALLOCATION, has no effect, and the same
 * call then succeeds. Leaks are left to ASan and valgrind.
 */
#include "fixture.h"

#include "common/host_alloc.h"

#define SWEEP_MAX 64
#define SENTINEL ((void *)(uintptr_t)0x5EED)

/* Runs `call` with the k-th allocation failing until it succeeds; after
 * each failure runs `no_effect`. Returns the number of failures seen. */
static int sweep(int (*call)(void *), void (*no_effect)(void *), void *arg)
{
    for (int k = 1; k <= SWEEP_MAX; k++) {
        host_alloc_fail_nth((uint64_t)k);
        int rc = call(arg);
        host_alloc_fail_nth(0);
        if (rc == SIMDEV_SUCCESS)
            return k - 1;
        if (rc != SIMDEV_ERROR_MEMORY_ALLOCATION)
            fail_msg("allocation %d failing gave status %d", k, rc);
        no_effect(arg);
    }
    fail_msg("still failing after %d allocations", SWEEP_MAX);
    return -1;
}

static int stream_create_call(void *p) { return simdev_stream_create(p); }
static int event_create_call(void *p) { return simdev_event_create(p); }
static void out_untouched(void *p) { assert_ptr_equal(*(void **)p, SENTINEL); }

static void alloc_failure_in_stream_and_event_create_has_no_effect(void **state)
{
    (void)state;
    simdev_stream_t stream = SENTINEL;
    assert_true(sweep(stream_create_call, out_untouched, &stream) > 0);
    simdev_event_t event = SENTINEL;
    assert_true(sweep(event_create_call, out_untouched, &event) > 0);
    atomic_int runs = 0;
    fix_launch_count(stream, &runs);
    assert_int_equal(simdev_event_record(event, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_synchronize(event), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&runs), 1);
    assert_int_equal(simdev_event_destroy(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* The first stream after configure starts the device's threads. */
static void alloc_failure_on_first_use_has_no_effect(void **state)
{
    assert_int_equal(simdev_finalize(), SIMDEV_SUCCESS);
    assert_int_equal(fix_setup(state), 0);
    simdev_stream_t stream = SENTINEL;
    assert_true(sweep(stream_create_call, out_untouched, &stream) > 0);
    atomic_int runs = 0;
    fix_launch_count(stream, &runs);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&runs), 1);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

struct malloc_ctx {
    void *ptr;
    simdev_mem_info before;
};

static int malloc_call(void *p)
{
    struct malloc_ctx *m = p;
    return simdev_malloc(&m->ptr, 4096);
}

static void malloc_untouched(void *p)
{
    struct malloc_ctx *m = p;
    assert_ptr_equal(m->ptr, SENTINEL);
    fix_assert_mem_info_equal(fix_mem_info(0), m->before);
}

static void alloc_failure_in_malloc_has_no_effect(void **state)
{
    (void)state;
    /* Enough live blocks that the heap's bookkeeping has to grow. */
    void *blocks[40];
    for (int i = 0; i < 40; i++) {
        struct malloc_ctx m = {SENTINEL, fix_mem_info(0)};
        sweep(malloc_call, malloc_untouched, &m);
        blocks[i] = m.ptr;
    }
    assert_int_equal(fix_mem_info(0).live_allocations, 40);
    for (int i = 0; i < 40; i++)
        assert_int_equal(simdev_free(blocks[i]), SIMDEV_SUCCESS);
}

struct graph_ctx {
    simdev_stream_t stream;
    simdev_graph_t graph;
    atomic_int runs;
};

static int graph_launch_call(void *p)
{
    struct graph_ctx *g = p;
    return simdev_graph_launch(g->graph, g->stream);
}

static void graph_not_replayed(void *p)
{
    struct graph_ctx *g = p;
    assert_int_equal(simdev_stream_synchronize(g->stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&g->runs), 0);
}

/* The first replay of a graph may set up its lanes. */
static void alloc_failure_in_first_graph_launch_has_no_effect(void **state)
{
    (void)state;
    struct graph_ctx g = {fix_stream(), NULL, 0};
    simdev_stream_t side = fix_stream();
    simdev_event_t fork = fix_event(), join = fix_event();
    assert_int_equal(simdev_capture_begin(g.stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(fork, g.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(side, fork), SIMDEV_SUCCESS);
    fix_launch_count(g.stream, &g.runs);
    fix_launch_count(side, &g.runs);
    assert_int_equal(simdev_event_record(join, side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(g.stream, join), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_end(g.stream, &g.graph), SIMDEV_SUCCESS);
    assert_true(sweep(graph_launch_call, graph_not_replayed, &g) > 0);
    assert_int_equal(simdev_stream_synchronize(g.stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&g.runs), 2);
    assert_int_equal(simdev_graph_launch(g.graph, g.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(g.stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&g.runs), 4);
    assert_int_equal(simdev_graph_destroy(g.graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(join), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(g.stream), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(alloc_failure_in_stream_and_event_create_has_no_effect),
        FIX_TEST(alloc_failure_on_first_use_has_no_effect),
        FIX_TEST(alloc_failure_in_malloc_has_no_effect),
        FIX_TEST(alloc_failure_in_first_graph_launch_has_no_effect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
