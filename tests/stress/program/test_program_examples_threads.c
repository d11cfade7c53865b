/* Program mode from four host threads: the vector and add_scalar example
 * images run over and over with fresh inputs, on two devices at once,
 * each context shared by two threads (its lock serializes them), and
 * contexts opened, run and finalized in a loop, one per device at a time
 * (finalize resets the device). Every run is checked against its golden.
 * Workers never call cmocka; they count failures for the test thread. */
#include "simdev_setup.h"
#include "support.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../../examples/add_scalar/add_scalar_golden.h"
#include "../../../examples/common/example_driver.h"
#include "../../../examples/vector/vector_golden.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"
#include "stress_scale.h"

#define THREADS 4
#define ID_VECTOR 0
#define ID_ADD_SCALAR 1
#define ELEMENTS 4096u
#define SHARED_RUNS STRESS_COUNT(160)
#define CHURN_CYCLES STRESS_COUNT(48)

typedef struct image {
    void *bytes;
    size_t size;
} image;

static image images[2];

static int setup(void **state)
{
    static const char *const names[2] = {"vector", "add_scalar"};
    (void)state;
    if (simdev_setup_configure(2, (uint64_t)64 << 20, 1, 2, 2) != 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/examples/%s.callable", SIMPLER_BINARY_DIR, names[i]);
        if (example_image_read(path, &images[i].bytes, &images[i].size) != 0)
            return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++)
        simpler_callable_free(images[i].bytes);
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

/* A context on `device` with both images registered, or NULL. */
static DeviceContextHandle context_open(int device)
{
    DeviceContextHandle ctx = create_device_context();
    if (ctx == NULL)
        return NULL;
    if (simpler_init(ctx, device, NULL) != 0 ||
        simpler_register_callable(ctx, ID_VECTOR, images[0].bytes, images[0].size) != 0 ||
        simpler_register_callable(ctx, ID_ADD_SCALAR, images[1].bytes, images[1].size) != 0) {
        finalize_device(ctx);
        destroy_device_context(ctx);
        return NULL;
    }
    return ctx;
}

/* One run of one example case with fresh inputs from `seed`: 0 when it
 * ran and every output element matched the golden. */
static int run_checked(DeviceContextHandle ctx, int32_t id, example_case *c, int device_tensors, uint64_t seed)
{
    example_buffers b;
    ChipStorageTaskArgs *args = calloc(1, sizeof *args);
    if (args == NULL || example_buffers_create(c, device_tensors ? ctx : NULL, &b) != 0) {
        free(args);
        return -1;
    }
    example_check_result res = {0, 0, 0, 0.0};
    int rc = example_inputs_prepare(ctx, c, &b, seed);
    if (rc == 0)
        rc = example_args_make(c, &b, args);
    if (rc == 0)
        rc = simpler_run(ctx, id, args, NULL);
    if (rc == 0)
        rc = example_output_check(ctx, c, &b, &res);
    if (rc == 0 && (res.mismatches != 0 || res.elements != ELEMENTS))
        rc = -1;
    example_buffers_destroy(device_tensors ? ctx : NULL, &b);
    free(args);
    return rc;
}

/* Runs vector on even runs and add_scalar on odd ones. */
static int run_one(DeviceContextHandle ctx, uint64_t seed, uint32_t run, int device_tensors)
{
    example_case c;
    if (run % 2 == 0) {
        vector_case_make(&c, ELEMENTS);
        return run_checked(ctx, ID_VECTOR, &c, device_tensors, seed);
    }
    add_scalar_case_make(&c, ELEMENTS);
    return run_checked(ctx, ID_ADD_SCALAR, &c, device_tensors, seed);
}

typedef struct worker {
    DeviceContextHandle ctx; /* shared runs; NULL: churn on `device` */
    int device;
    int device_tensors;
    uint64_t seed;
    int failures;
} worker;

static void *shared_worker_main(void *arg)
{
    worker *w = arg;
    for (uint32_t run = 0; run < SHARED_RUNS; run++)
        if (run_one(w->ctx, w->seed + run, run, w->device_tensors) != 0)
            w->failures++;
    return NULL;
}

static void *churn_worker_main(void *arg)
{
    worker *w = arg;
    for (uint32_t cycle = 0; cycle < CHURN_CYCLES; cycle++) {
        DeviceContextHandle ctx = context_open(w->device);
        if (ctx == NULL) {
            w->failures++;
            continue;
        }
        for (uint32_t run = 0; run < 2; run++)
            if (run_one(ctx, w->seed + cycle * 2 + run, run, (int)((cycle + run) % 2)) != 0)
                w->failures++;
        if (finalize_device(ctx) != 0)
            w->failures++;
        destroy_device_context(ctx);
    }
    return NULL;
}

static void run_workers(void *(*fn)(void *), worker *w, int count)
{
    pthread_t threads[THREADS];
    for (int i = 0; i < count; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, fn, &w[i]), 0);
    for (int i = 0; i < count; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
    for (int i = 0; i < count; i++)
        if (w[i].failures != 0)
            fail_msg("worker %d (device %d): %d failed runs", i, w[i].device, w[i].failures);
}

static void program_two_shared_contexts_on_two_devices_match_goldens_from_four_threads(void **state)
{
    static worker w[THREADS];
    DeviceContextHandle ctx[2];
    (void)state;
    for (int d = 0; d < 2; d++) {
        ctx[d] = context_open(d);
        assert_non_null(ctx[d]);
    }
    for (int t = 0; t < THREADS; t++) {
        worker z = {ctx[t / 2], t / 2, t % 2 == 0, 1000u * (uint64_t)(t + 1), 0};
        w[t] = z;
    }
    run_workers(shared_worker_main, w, THREADS);
    for (int d = 0; d < 2; d++) {
        assert_int_equal(finalize_device(ctx[d]), 0);
        destroy_device_context(ctx[d]);
    }
}

static void program_contexts_opened_run_and_finalized_per_device_in_a_loop_match_goldens(void **state)
{
    static worker w[2];
    (void)state;
    for (int d = 0; d < 2; d++) {
        worker z = {NULL, d, 0, 5000u * (uint64_t)(d + 1), 0};
        w[d] = z;
    }
    run_workers(churn_worker_main, w, 2);
    /* Every context finalized: both devices hold nothing any more. */
    for (int d = 0; d < 2; d++) {
        simdev_mem_info info;
        assert_int_equal(simdev_get_mem_info(d, &info), SIMDEV_SUCCESS);
        assert_int_equal(info.live_allocations, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(program_two_shared_contexts_on_two_devices_match_goldens_from_four_threads),
        cmocka_unit_test(program_contexts_opened_run_and_finalized_per_device_in_a_loop_match_goldens),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
