/*
 * Thread safety: several threads on both devices create, launch, record,
 * wait, capture, replay, allocate and destroy at once. Small enough for
 * valgrind; meant to give TSan something to look at.
 */
#include "fixture.h"

#define WORKERS 4
#define ROUNDS 100

struct worker {
    int device;
    atomic_int runs;
    int failures;
    uint8_t host[64]; /* source of async copies: must outlive them */
};

static int check(struct worker *w, int rc)
{
    if (rc != SIMDEV_SUCCESS)
        w->failures++;
    return rc;
}

static void worker_rounds(struct worker *w, simdev_stream_t a, simdev_stream_t b, simdev_event_t e, uint8_t *buf)
{
    atomic_int *runs = &w->runs;
    memset(w->host, w->device + 1, sizeof w->host);
    for (int i = 0; i < ROUNDS; i++) {
        check(w, simdev_launch_kernel(a, SIMDEV_ENGINE_AICPU, fix_count_kernel, 1, &runs, sizeof runs));
        check(w, simdev_memcpy_async(buf, w->host, sizeof w->host, a));
        check(w, simdev_event_record(e, a));
        check(w, simdev_stream_wait_event(b, e));
        check(w, simdev_launch_kernel(b, SIMDEV_ENGINE_AICORE, fix_count_kernel, 2, &runs, sizeof runs));
    }
}

/* A THREAD_LOCAL capture replayed a few times: other threads' sync
 * copies are allowed meanwhile. */
static void worker_capture(struct worker *w, simdev_stream_t a)
{
    atomic_int *runs = &w->runs;
    simdev_graph_t graph = NULL;
    check(w, simdev_capture_begin(a, SIMDEV_CAPTURE_MODE_THREAD_LOCAL));
    check(w, simdev_launch_kernel(a, SIMDEV_ENGINE_AICPU, fix_count_kernel, 1, &runs, sizeof runs));
    if (check(w, simdev_capture_end(a, &graph)) != SIMDEV_SUCCESS)
        return;
    for (int i = 0; i < 5; i++)
        check(w, simdev_graph_launch(graph, a));
    check(w, simdev_stream_synchronize(a));
    check(w, simdev_graph_destroy(graph));
}

static void *worker_main(void *p)
{
    struct worker *w = p;
    simdev_stream_t a = NULL, b = NULL;
    simdev_event_t e = NULL;
    void *buf = NULL;
    if (check(w, simdev_set_device(w->device)) || check(w, simdev_stream_create(&a)) ||
        check(w, simdev_stream_create(&b)) || check(w, simdev_event_create(&e)) ||
        check(w, simdev_malloc(&buf, 64)))
        return NULL;
    worker_rounds(w, a, b, e, buf);
    check(w, simdev_stream_synchronize(b));
    check(w, simdev_stream_synchronize(a));
    uint8_t back[64];
    check(w, simdev_memcpy(back, buf, sizeof back));
    if (back[0] != w->device + 1)
        w->failures++;
    worker_capture(w, a);
    for (int i = 0; i < 20; i++) {
        void *tmp = NULL;
        if (check(w, simdev_malloc(&tmp, 1024 * (size_t)(i + 1))) == SIMDEV_SUCCESS)
            check(w, simdev_free(tmp));
    }
    check(w, simdev_free(buf));
    check(w, simdev_event_destroy(e));
    check(w, simdev_stream_destroy(b));
    check(w, simdev_stream_destroy(a));
    return NULL;
}

static void threads_concurrent_use_of_both_devices_is_consistent(void **state)
{
    (void)state;
    struct worker workers[WORKERS];
    pthread_t threads[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        workers[i].device = i % FIX_DEVICES;
        atomic_init(&workers[i].runs, 0);
        workers[i].failures = 0;
        assert_int_equal(pthread_create(&threads[i], NULL, worker_main, &workers[i]), 0);
    }
    for (int i = 0; i < WORKERS; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
    for (int i = 0; i < WORKERS; i++) {
        assert_int_equal(workers[i].failures, 0);
        assert_int_equal(atomic_load(&workers[i].runs), 2 * ROUNDS + 5);
    }
    for (int d = 0; d < FIX_DEVICES; d++) {
        simdev_mem_info info = fix_mem_info(d);
        assert_int_equal(info.live_allocations, 0);
        assert_int_equal(info.committed_bytes, 0);
    }
    simdev_counters counters;
    assert_int_equal(simdev_get_counters(&counters), SIMDEV_SUCCESS);
    assert_int_equal(counters.stream_create_calls, 2 * WORKERS);
    assert_int_equal(counters.kernel_launches, (2 * ROUNDS + 1) * WORKERS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(threads_concurrent_use_of_both_devices_is_consistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
