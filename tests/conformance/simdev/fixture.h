/*
 * Shared fixture for the simdev conformance suites: a small configuration
 * set up before and finalized after every test, and the kernels, host
 * functions, gates and flags the tests build their scenarios from.
 *
 * Kernels and host functions run on simdev's threads, where a cmocka
 * assertion must not fire; they record what they saw in atomics that the
 * test thread asserts on afterwards.
 */
#ifndef SIMDEV_TEST_FIXTURE_H
#define SIMDEV_TEST_FIXTURE_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "simdev_setup.h"
#include "support.h"
#include "simpler/simdev.h"

/* Small enough for valgrind, large enough for two lanes and waves. */
#define FIX_DEVICES 2
#define FIX_HBM_BYTES ((uint64_t)64 << 20)
#define FIX_AIC_CORES 1
#define FIX_AIV_CORES 3
#define FIX_AICORE_POOL (FIX_AIC_CORES + FIX_AIV_CORES)
#define FIX_AICPU_THREADS 2
/* How long a waiter gives a partner that a correct simdev always brings:
 * only a broken (deadlocked or serialized) simdev ever waits this long,
 * so the bound turns a hang into a failure without timing anything. */
#define FIX_LIVENESS_SECONDS 20

/* Streams made through fix_stream in the current test, so teardown can
 * end a capture a failed test left open instead of failing every later
 * test's setup. */
#define FIX_STREAMS_MAX 64
static simdev_stream_t fix_streams[FIX_STREAMS_MAX];
static unsigned fix_stream_count;

static inline void fix_end_open_captures(void)
{
    for (unsigned i = 0; i < fix_stream_count; i++) {
        simdev_capture_status status = SIMDEV_CAPTURE_STATUS_NONE;
        if (simdev_capture_get_info(fix_streams[i], &status, NULL) != SIMDEV_SUCCESS ||
            status == SIMDEV_CAPTURE_STATUS_NONE)
            continue;
        simdev_graph_t graph = NULL;
        if (simdev_capture_end(fix_streams[i], &graph) == SIMDEV_SUCCESS)
            simdev_graph_destroy(graph);
    }
    fix_stream_count = 0;
}

static inline int fix_setup(void **state)
{
    (void)state;
    fix_stream_count = 0;
    return simdev_setup_configure(FIX_DEVICES, FIX_HBM_BYTES, FIX_AIC_CORES, FIX_AIV_CORES, FIX_AICPU_THREADS);
}


/* ---- handles ---- */

static inline simdev_stream_t fix_stream(void)
{
    simdev_stream_t stream = NULL;
    assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
    assert_non_null(stream);
    if (fix_stream_count < FIX_STREAMS_MAX)
        fix_streams[fix_stream_count++] = stream;
    return stream;
}

static inline simdev_event_t fix_event(void)
{
    simdev_event_t event = NULL;
    assert_int_equal(simdev_event_create(&event), SIMDEV_SUCCESS);
    assert_non_null(event);
    return event;
}

static inline void *fix_malloc(size_t size)
{
    void *ptr = NULL;
    assert_int_equal(simdev_malloc(&ptr, size), SIMDEV_SUCCESS);
    assert_non_null(ptr);
    return ptr;
}

static inline simdev_capture_status fix_status(simdev_stream_t stream)
{
    simdev_capture_status status = (simdev_capture_status)-1;
    assert_int_equal(simdev_capture_get_info(stream, &status, NULL), SIMDEV_SUCCESS);
    return status;
}

static inline simdev_capture_mode fix_thread_mode_set(simdev_capture_mode mode)
{
    assert_int_equal(simdev_capture_thread_exchange_mode(&mode), SIMDEV_SUCCESS);
    return mode;
}

static inline size_t fix_node_count(simdev_graph_t graph)
{
    size_t count = (size_t)-1;
    assert_int_equal(simdev_graph_node_count(graph, &count), SIMDEV_SUCCESS);
    return count;
}

static inline simdev_mem_info fix_mem_info(int device)
{
    simdev_mem_info info;
    memset(&info, 0xEE, sizeof info);
    assert_int_equal(simdev_get_mem_info(device, &info), SIMDEV_SUCCESS);
    return info;
}

static inline void fix_assert_mem_info_equal(simdev_mem_info a, simdev_mem_info b)
{
    assert_int_equal(a.hbm_bytes, b.hbm_bytes);
    assert_int_equal(a.committed_bytes, b.committed_bytes);
    assert_int_equal(a.high_water_bytes, b.high_water_bytes);
    assert_int_equal(a.live_allocations, b.live_allocations);
}

/* Reads `count` words of device memory and checks each equals `value`. */
static inline void fix_assert_words(const void *dev, size_t count, uint32_t value)
{
    uint32_t host[256];
    assert_true(count <= 256);
    assert_int_equal(simdev_memcpy(host, dev, count * sizeof host[0]), SIMDEV_SUCCESS);
    for (size_t i = 0; i < count; i++)
        assert_int_equal(host[i], value);
}

/* ---- timed waits (liveness bounds, never timing assertions) ---- */

static inline struct timespec fix_deadline(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += FIX_LIVENESS_SECONDS;
    return ts;
}

/* A one-shot flag another thread sets; waiters block on a condition. */
struct fix_flag {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int set;
};

static inline void fix_flag_init(struct fix_flag *flag)
{
    pthread_mutex_init(&flag->mutex, NULL);
    pthread_cond_init(&flag->cond, NULL);
    flag->set = 0;
}

static inline void fix_flag_deinit(struct fix_flag *flag)
{
    pthread_cond_destroy(&flag->cond);
    pthread_mutex_destroy(&flag->mutex);
}

static inline void fix_flag_raise(struct fix_flag *flag)
{
    pthread_mutex_lock(&flag->mutex);
    flag->set = 1;
    pthread_cond_broadcast(&flag->cond);
    pthread_mutex_unlock(&flag->mutex);
}

/* 1 when the flag was raised, 0 when the liveness bound ran out. */
static inline int fix_flag_wait(struct fix_flag *flag)
{
    struct timespec deadline = fix_deadline();
    int rc = 0;
    pthread_mutex_lock(&flag->mutex);
    while (!flag->set && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&flag->cond, &flag->mutex, &deadline);
    int set = flag->set;
    pthread_mutex_unlock(&flag->mutex);
    return set;
}

static inline int fix_flag_is_set(struct fix_flag *flag)
{
    pthread_mutex_lock(&flag->mutex);
    int set = flag->set;
    pthread_mutex_unlock(&flag->mutex);
    return set;
}

/* Host function: blocks its stream until the flag is raised; counts a
 * timeout in `timeouts`. */
struct fix_gate {
    struct fix_flag flag;
    atomic_int timeouts;
    atomic_int passed;
};

static inline void fix_gate_init(struct fix_gate *gate)
{
    fix_flag_init(&gate->flag);
    atomic_init(&gate->timeouts, 0);
    atomic_init(&gate->passed, 0);
}

static inline void fix_gate_host_fn(void *user_data)
{
    struct fix_gate *gate = user_data;
    if (!fix_flag_wait(&gate->flag))
        atomic_fetch_add(&gate->timeouts, 1);
    atomic_fetch_add(&gate->passed, 1);
}

/* Gates live in the fixture, not on a test's stack: teardown opens every
 * gate of a failed test before finalize waits for the streams it holds. */
#define FIX_GATES_MAX 8
static struct fix_gate fix_gates[FIX_GATES_MAX];
static unsigned fix_gate_count;

static inline struct fix_gate *fix_gate_new(void)
{
    assert_true(fix_gate_count < FIX_GATES_MAX);
    struct fix_gate *gate = &fix_gates[fix_gate_count++];
    fix_gate_init(gate);
    return gate;
}

static inline void fix_gate_open(struct fix_gate *gate)
{
    fix_flag_raise(&gate->flag);
}

/* ---- kernels ---- */

/* Appends `value` to a log: records the order in which ops ran. */
#define FIX_LOG_MAX 512
struct fix_log {
    atomic_uint count;
    int values[FIX_LOG_MAX];
};

struct fix_log_args {
    struct fix_log *log;
    int value;
};

static inline void fix_log_append(struct fix_log *log, int value)
{
    unsigned at = atomic_fetch_add(&log->count, 1);
    if (at < FIX_LOG_MAX)
        log->values[at] = value;
}

static inline void fix_log_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    const struct fix_log_args *a = args;
    if (block_idx == 0)
        fix_log_append(a->log, a->value);
}

static inline void fix_log_host_fn(void *user_data)
{
    const struct fix_log_args *a = user_data;
    fix_log_append(a->log, a->value);
}

static inline void fix_launch_log(simdev_stream_t stream, struct fix_log *log, int value)
{
    struct fix_log_args a = {log, value};
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, fix_log_kernel, 1, &a, sizeof a),
                     SIMDEV_SUCCESS);
}

/* Fills `count` words at `dst` with `value`, blocks sharing the work. */
struct fix_fill_args {
    uint32_t *dst;
    uint32_t count;
    uint32_t value;
};

static inline void fix_fill_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const struct fix_fill_args *a = args;
    for (uint32_t i = block_idx; i < a->count; i += block_dim)
        a->dst[i] = a->value;
}

static inline void fix_launch_fill(simdev_stream_t stream, void *dst, uint32_t count, uint32_t value)
{
    struct fix_fill_args a = {dst, count, value};
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, fix_fill_kernel, 2, &a, sizeof a),
                     SIMDEV_SUCCESS);
}

/* Checks `count` words at `src` equal `value`; counts runs and mismatches. */
struct fix_check_args {
    const uint32_t *src;
    uint32_t count;
    uint32_t value;
    atomic_int *runs;
    atomic_int *bad;
};

static inline void fix_check_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    const struct fix_check_args *a = args;
    if (block_idx != 0)
        return;
    for (uint32_t i = 0; i < a->count; i++) {
        if (a->src[i] != a->value) {
            atomic_fetch_add(a->bad, 1);
            break;
        }
    }
    atomic_fetch_add(a->runs, 1);
}

/* Increments a host counter once per launch. */
static inline void fix_count_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    atomic_int *counter = *(atomic_int *const *)args;
    if (block_idx == 0)
        atomic_fetch_add(counter, 1);
}

static inline void fix_launch_count(simdev_stream_t stream, atomic_int *counter)
{
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, fix_count_kernel, 1, &counter,
                                          sizeof counter),
                     SIMDEV_SUCCESS);
}

static inline void fix_count_host_fn(void *user_data)
{
    atomic_fetch_add((atomic_int *)user_data, 1);
}

/* N arrivals meet: each waits (within the liveness bound) until all N of
 * its round have arrived; counts waits that ran out. Only concurrent
 * execution of all N can satisfy it. */
struct fix_rendezvous {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    unsigned arrived, expected;
    atomic_int timeouts;
};

static inline void fix_rendezvous_init(struct fix_rendezvous *r, unsigned expected)
{
    pthread_mutex_init(&r->mutex, NULL);
    pthread_cond_init(&r->cond, NULL);
    r->arrived = 0;
    r->expected = expected;
    atomic_init(&r->timeouts, 0);
}

static inline void fix_rendezvous_deinit(struct fix_rendezvous *r)
{
    pthread_cond_destroy(&r->cond);
    pthread_mutex_destroy(&r->mutex);
}

static inline unsigned fix_rendezvous_arrived(struct fix_rendezvous *r)
{
    pthread_mutex_lock(&r->mutex);
    unsigned arrived = r->arrived;
    pthread_mutex_unlock(&r->mutex);
    return arrived;
}

static inline void fix_rendezvous_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    struct fix_rendezvous *r = *(struct fix_rendezvous *const *)args;
    struct timespec deadline = fix_deadline();
    int rc = 0;
    pthread_mutex_lock(&r->mutex);
    unsigned goal = (r->arrived / r->expected + 1) * r->expected;
    r->arrived++;
    pthread_cond_broadcast(&r->cond);
    while (r->arrived < goal && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&r->cond, &r->mutex, &deadline);
    if (r->arrived < goal)
        atomic_fetch_add(&r->timeouts, 1);
    pthread_mutex_unlock(&r->mutex);
}

/* Reports `code` as the launch's fault. */
static inline void fix_fault_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    if (block_idx == 0)
        simdev_kernel_report_fault(*(const int *)args);
}

static inline void fix_launch_fault(simdev_stream_t stream, int code)
{
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, fix_fault_kernel, 1, &code, sizeof code),
                     SIMDEV_SUCCESS);
}

/* Runs `fn(arg)` on a new thread and joins it: for calls that must come
 * from a thread other than the test's. */
struct fix_call {
    int (*fn)(void *);
    void *arg;
    int rc;
};

static inline void *fix_call_main(void *p)
{
    struct fix_call *call = p;
    call->rc = call->fn(call->arg);
    return NULL;
}

static inline int fix_call_on_thread(int (*fn)(void *), void *arg)
{
    struct fix_call call = {fn, arg, -1};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, fix_call_main, &call), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    return call.rc;
}

static inline int fix_teardown(void **state)
{
    (void)state;
    simdev_capture_mode mode = SIMDEV_CAPTURE_MODE_GLOBAL;
    simdev_capture_thread_exchange_mode(&mode);
    simdev_fault_clear();
    simdev_set_device(0);
    for (unsigned i = 0; i < fix_gate_count; i++)
        fix_gate_open(&fix_gates[i]);
    fix_end_open_captures();
    int rc = simdev_finalize();
    for (unsigned i = 0; i < fix_gate_count; i++)
        fix_flag_deinit(&fix_gates[i].flag);
    fix_gate_count = 0;
    return rc == SIMDEV_SUCCESS ? 0 : -1;
}

#define FIX_TEST(f) cmocka_unit_test_setup_teardown(f, fix_setup, fix_teardown)

#endif
