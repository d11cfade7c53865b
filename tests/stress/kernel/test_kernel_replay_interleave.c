/* Kernel mode under load, over the "vadd" fixture image (f = 2 * (a + b
 * + R)): two contexts on one device, each with its own caller stream and
 * captured graph, replayed many times interleaved (from one thread, then
 * from two) with fresh inputs copied in place between replays; and many
 * unsynchronized eager launches with different scalars and addresses on
 * one context followed by a single synchronize. Every result is checked. */
#include "support.h"

#include <pthread.h>

#include "../../integration/kernel/kernel_fixture.h"
#include "../../integration/program/image_fixture.h"
#include "stress_scale.h"

#define REPLAYS STRESS_COUNT(1000)
#define EAGER_CALLS STRESS_COUNT(400)
#define ROUNDS_MAX 7u

/* One context, its buffers and its graph of one launch of `rounds`. */
typedef struct lane {
    kfix k;
    kbufs d;
    simdev_graph_t graph;
    uint64_t rounds;
    float seed;
    int failures;
    vadd_buffers v;
} lane;

static void lane_open(lane *l, uint64_t rounds, float seed)
{
    SimplerKernelCtxControl c = kfix_plan(&image, ROUNDS_MAX);
    l->rounds = rounds;
    l->seed = seed;
    l->failures = 0;
    kfix_open(&l->k, &image, &c);
    kbufs_alloc(&l->d);
    l->graph = kfix_capture(&l->k, &l->d, rounds);
}

static void lane_close(lane *l)
{
    assert_int_equal(simdev_stream_synchronize(l->k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(l->graph), SIMDEV_SUCCESS);
    kbufs_free(&l->d);
    kfix_close(&l->k);
}

/* Fresh inputs for replay `r`, copied over the captured addresses. No
 * cmocka here: this also runs on worker threads. */
static int lane_upload(lane *l, uint32_t r)
{
    vadd_buffers_fill(&l->v, l->seed + (float)r);
    if (simdev_memcpy(l->d.a, l->v.a, sizeof l->v.a) != SIMDEV_SUCCESS ||
        simdev_memcpy(l->d.b, l->v.b, sizeof l->v.b) != SIMDEV_SUCCESS ||
        simdev_memcpy(l->d.f, l->v.f, sizeof l->v.f) != SIMDEV_SUCCESS)
        return -1;
    return simdev_graph_launch(l->graph, l->k.stream) == SIMDEV_SUCCESS ? 0 : -1;
}

static int lane_finish(lane *l)
{
    if (simdev_stream_synchronize(l->k.stream) != SIMDEV_SUCCESS ||
        simdev_memcpy(l->v.f, l->d.f, sizeof l->v.f) != SIMDEV_SUCCESS)
        return -1;
    return vadd_check(&l->v, l->rounds);
}

static void kernel_two_contexts_interleaved_replays_match_every_result(void **state)
{
    static lane lanes[2];
    (void)state;
    lane_open(&lanes[0], 2, 1.0f);
    lane_open(&lanes[1], 7, 500.0f);
    for (uint32_t r = 0; r < REPLAYS; r++) {
        /* Both replays are in flight together; the first alternates. */
        lane *first = &lanes[r % 2], *second = &lanes[1 - r % 2];
        if (lane_upload(first, r) != 0 || lane_upload(second, r) != 0)
            fail_msg("replay %u: upload or graph launch failed", r);
        if (lane_finish(first) != 0 || lane_finish(second) != 0)
            fail_msg("replay %u: a result differs from its golden", r);
    }
    lane_close(&lanes[0]);
    lane_close(&lanes[1]);
}

static void *lane_main(void *arg)
{
    lane *l = arg;
    for (uint32_t r = 0; r < REPLAYS; r++)
        if (lane_upload(l, r) != 0 || lane_finish(l) != 0)
            l->failures++;
    return NULL;
}

static void kernel_two_contexts_replayed_from_two_threads_match_every_result(void **state)
{
    static lane lanes[2];
    pthread_t threads[2];
    (void)state;
    lane_open(&lanes[0], 3, 7.0f);
    lane_open(&lanes[1], 5, 900.0f);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, lane_main, &lanes[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
    assert_int_equal(lanes[0].failures, 0);
    assert_int_equal(lanes[1].failures, 0);
    lane_close(&lanes[0]);
    lane_close(&lanes[1]);
}

static void kernel_many_unsynchronized_eager_launches_each_leave_their_own_result(void **state)
{
    static vadd_buffers v[EAGER_CALLS];
    static kbufs d[EAGER_CALLS];
    kfix k;
    (void)state;
    kfix_open_plan(&k, &image, ROUNDS_MAX);
    for (uint32_t i = 0; i < EAGER_CALLS; i++) {
        kbufs_alloc(&d[i]);
        kbufs_upload(&d[i], &v[i], 3.0f * (float)i);
    }
    for (uint32_t i = 0; i < EAGER_CALLS; i++)
        assert_int_equal(kfix_launch(&k, &d[i], i % (ROUNDS_MAX + 1)), 0);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    for (uint32_t i = 0; i < EAGER_CALLS; i++) {
        if (kbufs_check(&d[i], &v[i], i % (ROUNDS_MAX + 1)) != 0)
            fail_msg("launch %u: result differs from its golden", i);
        kbufs_free(&d[i]);
    }
    kfix_close(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_two_contexts_interleaved_replays_match_every_result),
        cmocka_unit_test(kernel_two_contexts_replayed_from_two_threads_match_every_result),
        cmocka_unit_test(kernel_many_unsynchronized_eager_launches_each_leave_their_own_result),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
