/* Contexts and threads: two contexts on two devices run at once from two
 * threads, and two threads sharing one context are serialized by its
 * lock; every result is checked (TSan runs this suite too). */
#include "support.h"

#include <pthread.h>

#include "program_fixture.h"
#include "image_fixture.h"

#define THREAD_RUNS 8

typedef struct worker {
    DeviceContextHandle ctx;
    float seed;
    int failures;
    vadd_buffers v;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    ChipStorageTaskArgs args;
    for (int i = 0; i < THREAD_RUNS; i++) {
        uint64_t rounds = (uint64_t)(i % 3);
        vadd_buffers_fill(&w->v, w->seed + (float)i);
        vadd_args_make(&args, w->v.a, w->v.b, w->v.f, SIMPLER_ADDRESS_SPACE_HOST, rounds, 0);
        if (simpler_run(w->ctx, 0, &args, NULL) != 0 || vadd_check(&w->v, rounds) != 0)
            w->failures++;
    }
    return NULL;
}

static void run_workers(worker *w, int count)
{
    pthread_t threads[2];
    for (int i = 0; i < count; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, worker_main, &w[i]), 0);
    for (int i = 0; i < count; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
    for (int i = 0; i < count; i++)
        assert_int_equal(w[i].failures, 0);
}

static DeviceContextHandle context_on(int device)
{
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    assert_int_equal(simpler_init(ctx, device, NULL), 0);
    assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
    return ctx;
}

static void program_contexts_on_two_devices_run_concurrently(void **state)
{
    static worker w[2];
    (void)state;
    w[0].ctx = context_on(0);
    w[1].ctx = context_on(1);
    w[0].seed = 1.0f;
    w[1].seed = 100.0f;
    run_workers(w, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(finalize_device(w[i].ctx), 0);
        destroy_device_context(w[i].ctx);
    }
}

static void program_one_context_shared_by_two_threads_is_serialized(void **state)
{
    static worker w[2];
    (void)state;
    DeviceContextHandle ctx = context_on(0);
    w[0].ctx = ctx;
    w[1].ctx = ctx;
    w[0].seed = 3.0f;
    w[1].seed = 50.0f;
    run_workers(w, 2);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(program_contexts_on_two_devices_run_concurrently),
        cmocka_unit_test(program_one_context_shared_by_two_threads_is_serialized),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
