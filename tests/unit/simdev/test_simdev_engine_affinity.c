/*
 * simdev engine placement (simdev_config.engine_affinity): with it on and
 * two or more CPUs allowed, AICPU and AICore pool threads run on disjoint
 * CPU sets that together cover the process's CPUs, in the documented
 * proportion; with it off, or with one CPU, they keep the process's set.
 * A replay's runners take the lanes they can run where they are placed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "simdev/sd_internal.h"
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

/* sd_engine_runs_here, which a synchronize asks before it polls (a caller
 * beside the AICore cores blocks at once): for the calling thread moved
 * onto each CPU in turn, it names exactly the CPUs the engine's blocks
 * ran on; with engine affinity off, none. */
static void engine_affinity_runs_here_names_the_engine_cpus(void **state)
{
    (void)state;
    cpu_set_t process, one;
    assert_int_equal(sched_getaffinity(0, sizeof(process), &process), 0);
    for (uint32_t affinity = 0; affinity < 2; affinity++) {
        run_both_engines(affinity);
        int on = affinity && CPU_COUNT(&process) >= 2;
        int hits[2] = {0, 0};
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
            if (!CPU_ISSET(cpu, &process))
                continue;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
            for (int e = 0; e < 2; e++) {
                int here = sd_engine_runs_here(&sd_g.dev[0].pools[e]);
                assert_int_equal(here, on && CPU_ISSET(cpu, &seen[e]));
                hits[e] += here;
            }
        }
        assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(process), &process), 0);
        assert_int_equal(hits[SIMDEV_ENGINE_AICPU] > 0, on);
        assert_int_equal(hits[SIMDEV_ENGINE_AICORE] > 0, on);
        /* A synchronize from an AICore CPU still waits for the work. */
        if (on) {
            simdev_stream_t stream = NULL;
            for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
                if (CPU_ISSET(cpu, &seen[SIMDEV_ENGINE_AICORE])) {
                    CPU_ZERO(&one);
                    CPU_SET(cpu, &one);
                    break;
                }
            assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
            memset(&seen[SIMDEV_ENGINE_AICORE], 0, sizeof(seen[0]));
            assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
            assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, record_aicore, 4, NULL, 0),
                             SIMDEV_SUCCESS);
            assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
            assert_true(CPU_COUNT(&seen[SIMDEV_ENGINE_AICORE]) > 0);
            assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
            assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(process), &process), 0);
        }
        assert_int_equal(simdev_finalize(), SIMDEV_SUCCESS);
    }
}

/* simdev with one small device and its default engine affinity; the
 * process's CPUs in *process. */
static void configure_one_device(cpu_set_t *process)
{
    assert_int_equal(sched_getaffinity(0, sizeof(*process), process), 0);
    simdev_config c;
    assert_int_equal(simdev_config_default(&c), SIMDEV_SUCCESS);
    c.device_count = 1;
    c.hbm_bytes = 4u << 20;
    assert_int_equal(simdev_configure(&c), SIMDEV_SUCCESS);
}

/* A one-block kernel runs on the stream's worker, placed on its engine's
 * CPUs; a host function after it runs where the process may. */
static void engine_affinity_host_function_after_inline_kernel_runs_anywhere(void **state)
{
    (void)state;
    cpu_set_t process;
    configure_one_device(&process);
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

/* ---- replay runners keep to one engine ---- */

#define REPLAYS 40
#define GRAPH_KERNELS 4
/* The thread that ran each kernel of each replay. */
static pthread_t ran_by[REPLAYS][GRAPH_KERNELS];
static uint32_t replay_no;

static void record_thread(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    ran_by[replay_no][*(const uint32_t *)args] = pthread_self();
}

static void next_replay(void *user)
{
    (void)user;
    replay_no++;
}

/* The shape of the kernel-mode chain: on lane 0 an AICPU gate, then on
 * lane 1 an AICPU kernel and on lane 2 an AICore kernel that both wait
 * for it, then the AICPU tail on lane 0 after both. With the engines on
 * disjoint CPUs, no thread runs kernels of both engines in any replay:
 * the AICore kernel goes to a runner that stays on the AICore's CPUs, and
 * the AICPU kernels stay with runners on the AICPU's (each move would be
 * a system call and a forced migration). */
static void engine_affinity_replay_runners_keep_to_one_engine(void **state)
{
    (void)state;
    cpu_set_t process;
    configure_one_device(&process);
    simdev_stream_t s[3];
    simdev_event_t fork, join[2];
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_stream_create(&s[i]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_create(&fork), SIMDEV_SUCCESS);
    for (int i = 0; i < 2; i++)
        assert_int_equal(simdev_event_create(&join[i]), SIMDEV_SUCCESS);
    const uint32_t ids[GRAPH_KERNELS] = {0, 1, 2, 3};
    assert_int_equal(simdev_capture_begin(s[0], SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(s[0], SIMDEV_ENGINE_AICPU, record_thread, 1, &ids[0], 4), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(fork, s[0]), SIMDEV_SUCCESS);
    for (int i = 1; i < 3; i++)
        assert_int_equal(simdev_stream_wait_event(s[i], fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(s[1], SIMDEV_ENGINE_AICPU, record_thread, 1, &ids[1], 4), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(s[2], SIMDEV_ENGINE_AICORE, record_thread, 1, &ids[2], 4), SIMDEV_SUCCESS);
    for (int i = 1; i < 3; i++) {
        assert_int_equal(simdev_event_record(join[i - 1], s[i]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_wait_event(s[0], join[i - 1]), SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_launch_kernel(s[0], SIMDEV_ENGINE_AICPU, record_thread, 1, &ids[3], 4), SIMDEV_SUCCESS);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(s[0], &graph), SIMDEV_SUCCESS);
    replay_no = 0;
    for (int r = 0; r < REPLAYS; r++) {
        assert_int_equal(simdev_graph_launch(graph, s[0]), SIMDEV_SUCCESS);
        assert_int_equal(simdev_launch_host_func(s[0], next_replay, NULL), SIMDEV_SUCCESS);
    }
    assert_int_equal(simdev_stream_synchronize(s[0]), SIMDEV_SUCCESS);
    assert_int_equal(replay_no, REPLAYS);
    if (CPU_COUNT(&process) >= 2) {
        /* Every thread that ran the AICore kernel ran no AICPU kernel. */
        for (int r = 0; r < REPLAYS; r++)
            for (int q = 0; q < REPLAYS; q++)
                for (int k = 0; k < GRAPH_KERNELS; k++)
                    if (k != 2)
                        assert_false(pthread_equal(ran_by[r][2], ran_by[q][k]));
    }
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    for (int i = 0; i < 2; i++)
        assert_int_equal(simdev_event_destroy(join[i]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(fork), SIMDEV_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_stream_destroy(s[i]), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(engine_affinity_on_splits_the_process_cpus, clean, clean),
        cmocka_unit_test_setup_teardown(engine_affinity_off_leaves_threads_alone, clean, clean),
        cmocka_unit_test_setup_teardown(engine_affinity_runs_here_names_the_engine_cpus, clean, clean),
        cmocka_unit_test_setup_teardown(engine_affinity_host_function_after_inline_kernel_runs_anywhere, clean,
                                        clean),
        cmocka_unit_test_setup_teardown(engine_affinity_replay_runners_keep_to_one_engine, clean, clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
