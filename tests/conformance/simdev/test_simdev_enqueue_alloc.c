/*
 * Per-stream queues are rings: once warm, enqueueing and running work
 * makes no host allocation at all (counted through host_alloc).
 */
#include "fixture.h"

#include "common/host_alloc.h"

#define STEADY_OPS 10000

struct pair {
    simdev_stream_t a, b;
    simdev_event_t event;
    uint8_t *buf;
    uint8_t host[64];
    atomic_int runs;
};

static void pair_init(struct pair *p)
{
    memset(p, 0, sizeof *p);
    p->a = fix_stream();
    p->b = fix_stream();
    p->event = fix_event();
    p->buf = fix_malloc(64);
}

static void pair_deinit(struct pair *p)
{
    assert_int_equal(simdev_free(p->buf), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(p->event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(p->b), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(p->a), SIMDEV_SUCCESS);
}

/* One round: a kernel, a copy, a set, a host func on A; B waits on A. */
static void pair_round(struct pair *p)
{
    atomic_int *runs = &p->runs;
    if (simdev_launch_kernel(p->a, SIMDEV_ENGINE_AICPU, fix_count_kernel, 1, &runs, sizeof runs) ||
        simdev_memcpy_async(p->buf, p->host, sizeof p->host, p->a) ||
        simdev_memset_async(p->buf, 0, sizeof p->host, p->a) ||
        simdev_launch_host_func(p->a, fix_count_host_fn, &p->runs) || simdev_event_record(p->event, p->a) ||
        simdev_stream_wait_event(p->b, p->event) ||
        simdev_launch_kernel(p->b, SIMDEV_ENGINE_AICORE, fix_count_kernel, 2, &runs, sizeof runs))
        fail_msg("an enqueue failed");
}

static void enqueue_steady_state_makes_no_host_allocation(void **state)
{
    (void)state;
    struct pair p;
    pair_init(&p);
    for (int i = 0; i < 2 * SIMDEV_STREAM_RING_OPS; i++)
        pair_round(&p);
    assert_int_equal(simdev_device_synchronize(), SIMDEV_SUCCESS);
    atomic_store(&p.runs, 0);
    uint64_t before = host_alloc_count();
    for (int i = 0; i < STEADY_OPS; i++)
        pair_round(&p);
    /* Stream synchronize keeps the execution inside the window; device
     * synchronize is not an enqueue and may allocate. */
    assert_int_equal(simdev_stream_synchronize(p.b), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(p.a), SIMDEV_SUCCESS);
    uint64_t after = host_alloc_count();
    assert_int_equal(after - before, 0);
    assert_int_equal(atomic_load(&p.runs), 3 * STEADY_OPS);
    pair_deinit(&p);
}

struct wide_args {
    atomic_int *runs;
    uint8_t bytes[4096];
};

/* Argument bytes live in the ring too: many 4 KiB launches, more than
 * the ring's argument capacity in total, allocate nothing. */
static void enqueue_large_arguments_make_no_host_allocation(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    atomic_int runs = 0;
    static struct wide_args args;
    args.runs = &runs;
    size_t total = 2 * (SIMDEV_STREAM_RING_ARG_BYTES / sizeof args) + 10;
    for (size_t i = 0; i < total; i++)
        assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, fix_count_kernel, 1, &args,
                                              sizeof args),
                         SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    uint64_t before = host_alloc_count();
    for (size_t i = 0; i < total; i++)
        assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, fix_count_kernel, 1, &args,
                                              sizeof args),
                         SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(host_alloc_count() - before, 0);
    assert_int_equal(atomic_load(&runs), (int)(2 * total));
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* The host work of simdev_graph_launch does not grow with the graph: a
 * launch enqueues one op naming the graph and allocates nothing, at 1
 * node and at 1000, and every node runs on each replay. */
static uint64_t launch_allocations(unsigned nodes)
{
    enum { LAUNCHES = 50 };
    simdev_stream_t stream = fix_stream();
    atomic_int runs = 0;
    assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    for (unsigned i = 0; i < nodes; i++)
        fix_launch_count(stream, &runs);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_SUCCESS);
    /* The first launch starts the graph's lane threads. */
    assert_int_equal(simdev_graph_launch(graph, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    uint64_t before = host_alloc_count();
    for (int i = 0; i < LAUNCHES; i++)
        assert_int_equal(simdev_graph_launch(graph, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    uint64_t made = host_alloc_count() - before;
    assert_int_equal(atomic_load(&runs), (int)((LAUNCHES + 1) * nodes));
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
    return made;
}

static void graph_launch_host_allocations_do_not_grow_with_node_count(void **state)
{
    (void)state;
    assert_int_equal(launch_allocations(1), 0);
    assert_int_equal(launch_allocations(1000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(enqueue_steady_state_makes_no_host_allocation),
        FIX_TEST(enqueue_large_arguments_make_no_host_allocation),
        FIX_TEST(graph_launch_host_allocations_do_not_grow_with_node_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
