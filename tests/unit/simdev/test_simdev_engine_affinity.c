/*
 * simdev engine placement (simdev_config.engine_affinity): with it on and
 * two or more CPUs allowed, AICPU and AICore pool threads run on disjoint
 * CPU sets that together cover the process's CPUs, in the documented
 * proportion; with it off, or with one CPU, they keep the process's set.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>

#include "simdev_setup.h"
#include "support.h"

static cpu_set_t seen[2]; /* by simdev_engine: the set a block ran with */

static void record_aicpu(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    (void)args;
    if (block_idx == 0)
        (void)sched_getaffinity(0, sizeof(seen[0]), &seen[SIMDEV_ENGINE_AICPU]);
}

static void record_aicore(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    (void)args;
    if (block_idx == 0)
        (void)sched_getaffinity(0, sizeof(seen[0]), &seen[SIMDEV_ENGINE_AICORE]);
}

static cpu_set_t host_fn_seen;

static void record_host_fn(void *user)
{
    (void)user;
    (void)sched_getaffinity(0, sizeof(host_fn_seen), &host_fn_seen);
}

static int clean(void **state)
{
    (void)state;
    memset(seen, 0, sizeof(seen));
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

/* Configures 1 device with 2 + 4 AI cores and 3 AICPU threads, affinity
 * as asked, and records where one block of each engine ran. */
static void run_both_engines(uint32_t affinity)
{
    simdev_config c;
    assert_int_equal(simdev_config_default(&c), SIMDEV_SUCCESS);
    c.device_count = 1;
    c.hbm_bytes = 4u << 20;
    c.engine_affinity = affinity;
    assert_int_equal(simdev_configure(&c), SIMDEV_SUCCESS);
    simdev_stream_t stream = NULL;
    assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, record_aicpu, 1, NULL, 0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, record_aicore, 6, NULL, 0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static void engine_affinity_on_splits_the_process_cpus(void **state)
{
    (void)state;
    cpu_set_t process, both, overlap;
    assert_int_equal(sched_getaffinity(0, sizeof(process), &process), 0);
    int n = CPU_COUNT(&process);
    run_both_engines(1);
    if (n < 2) {
        assert_true(CPU_EQUAL(&seen[SIMDEV_ENGINE_AICPU], &process));
        assert_true(CPU_EQUAL(&seen[SIMDEV_ENGINE_AICORE], &process));
        return;
    }
    int first = n * 3 / 9 < 1 ? 1 : n * 3 / 9;
    assert_int_equal(CPU_COUNT(&seen[SIMDEV_ENGINE_AICPU]), first);
    assert_int_equal(CPU_COUNT(&seen[SIMDEV_ENGINE_AICORE]), n - first);
    CPU_AND(&overlap, &seen[SIMDEV_ENGINE_AICPU], &seen[SIMDEV_ENGINE_AICORE]);
    assert_int_equal(CPU_COUNT(&overlap), 0);
    CPU_OR(&both, &seen[SIMDEV_ENGINE_AICPU], &seen[SIMDEV_ENGINE_AICORE]);
    assert_true(CPU_EQUAL(&both, &process));
    /* The caller's own thread is left alone. */
    cpu_set_t self;
    assert_int_equal(sched_getaffinity(0, sizeof(self), &self), 0);
    assert_true(CPU_EQUAL(&self, &process));
}

static void engine_affinity_off_leaves_threads_alone(void **state)
{
    (void)state;
    cpu_set_t process;
    assert_int_equal(sched_getaffinity(0, sizeof(process), &process), 0);
    run_both_engines(0);
    assert_true(CPU_EQUAL(&seen[SIMDEV_ENGINE_AICPU], &process));
    assert_true(CPU_EQUAL(&seen[SIMDEV_ENGINE_AICORE], &process));
}

/* A one-block kernel runs on the stream's worker, placed on its engine's
 * CPUs; a host function after it runs where the process may. */
static void engine_affinity_host_function_after_inline_kernel_runs_anywhere(void **state)
{
    (void)state;
    cpu_set_t process;
    assert_int_equal(sched_getaffinity(0, sizeof(process), &process), 0);
    simdev_config c;
    assert_int_equal(simdev_config_default(&c), SIMDEV_SUCCESS);
    c.device_count = 1;
    c.hbm_bytes = 4u << 20;
    assert_int_equal(simdev_configure(&c), SIMDEV_SUCCESS);
    simdev_stream_t stream = NULL;
    assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, record_aicpu, 1, NULL, 0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_host_func(stream, record_host_fn, NULL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
    if (CPU_COUNT(&process) >= 2)
        assert_false(CPU_EQUAL(&seen[SIMDEV_ENGINE_AICPU], &process));
    assert_true(CPU_EQUAL(&host_fn_seen, &process));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(engine_affinity_on_splits_the_process_cpus, clean, clean),
        cmocka_unit_test_setup_teardown(engine_affinity_off_leaves_threads_alone, clean, clean),
        cmocka_unit_test_setup_teardown(engine_affinity_host_function_after_inline_kernel_runs_anywhere, clean,
                                        clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
