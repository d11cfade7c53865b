/* simdev from four host threads at once, each with its own streams:
 * ordered launches and async copies, cross-thread event ping-pong, and
 * graphs replayed concurrently from several streams. Workers never call
 * cmocka (they may run off the test thread); they count what went wrong
 * and the test thread asserts the counts and every final word. */
#define _POSIX_C_SOURCE 200809L

#include "simdev_setup.h"
#include "support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "simpler/simdev.h"
#include "stress_scale.h"

#define THREADS 4
#define WORDS 512
#define COPY_ITERS STRESS_COUNT(1000)
#define PING_ROUNDS STRESS_COUNT(2000)
#define REPLAYS STRESS_COUNT(1000)

static int setup(void **state)
{
    (void)state;
    return simdev_setup_configure(2, (uint64_t)32 << 20, 1, 3, 2);
}

static int teardown(void **state)
{
    (void)state;
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

static void run_threads(void *(*fn)(void *), void *args, size_t arg_size)
{
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, fn, (char *)args + (size_t)i * arg_size), 0);
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
}

/* ---- kernels (run on simdev threads) ---- */

/* acc[i] += src[i], blocks sharing the words. */
struct accumulate_args {
    uint32_t *acc;
    const uint32_t *src;
    uint32_t count;
};

static void accumulate_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const struct accumulate_args *a = args;
    for (uint32_t i = block_idx; i < a->count; i += block_dim)
        a->acc[i] += a->src[i];
}

/* *x = *x * mul + add; log[round] = the new *x. Non-commutative, so only
 * the intended order of the two sides' steps gives the expected chain. */
struct step_args {
    uint32_t *x;
    uint32_t *log;
    uint32_t round;
    uint32_t mul, add;
};

static void step_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    const struct step_args *a = args;
    *a->x = *a->x * a->mul + a->add;
    a->log[a->round] = *a->x;
}

/* Adds `value` to every word with plain loads and stores, and records
 * how many launches of this kernel ran at once: a graph whose launches
 * are serialized never sees two. */
struct bump_args {
    uint32_t *words;
    uint32_t value;
    atomic_int *in_flight;
    atomic_int *overlaps;
};

static void bump_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    const struct bump_args *a = args;
    if (block_idx != 0)
        return;
    if (atomic_fetch_add(a->in_flight, 1) != 0)
        atomic_fetch_add(a->overlaps, 1);
    for (uint32_t i = 0; i < WORDS; i++)
        a->words[i] += a->value;
    atomic_fetch_sub(a->in_flight, 1);
}

/* ---- launches and async copies ---- */

struct copy_worker {
    int device;
    uint32_t seed;
    int failures;
    uint32_t init[WORDS], out[WORDS];
};

static uint32_t copy_expected(const struct copy_worker *w, uint32_t i)
{
    uint32_t v = w->init[i];
    for (uint32_t it = 0; it < COPY_ITERS; it++)
        v += ((it + w->seed) & 0xffu) * 0x01010101u;
    return v;
}

/* Per iteration: memset_async the staging buffer to a fresh byte, then
 * accumulate it; any reordering of the two changes the final sum. */
static int copy_enqueue_all(struct copy_worker *w, simdev_stream_t s, uint32_t *acc, uint32_t *tmp)
{
    struct accumulate_args a = {acc, tmp, WORDS};
    if (simdev_memcpy_async(acc, w->init, sizeof w->init, s) != SIMDEV_SUCCESS)
        return -1;
    for (uint32_t it = 0; it < COPY_ITERS; it++) {
        int byte = (int)((it + w->seed) & 0xffu);
        if (simdev_memset_async(tmp, byte, WORDS * sizeof(uint32_t), s) != SIMDEV_SUCCESS ||
            simdev_launch_kernel(s, SIMDEV_ENGINE_AICORE, accumulate_kernel, 3, &a, sizeof a) != SIMDEV_SUCCESS)
            return -1;
    }
    if (simdev_memcpy_async(w->out, acc, sizeof w->out, s) != SIMDEV_SUCCESS)
        return -1;
    return simdev_stream_synchronize(s) == SIMDEV_SUCCESS ? 0 : -1;
}

static void *copy_worker_main(void *arg)
{
    struct copy_worker *w = arg;
    simdev_stream_t s = NULL;
    uint32_t *acc = NULL, *tmp = NULL;
    for (uint32_t i = 0; i < WORDS; i++)
        w->init[i] = w->seed * 7919u + i;
    if (simdev_set_device(w->device) != SIMDEV_SUCCESS || simdev_stream_create(&s) != SIMDEV_SUCCESS ||
        simdev_malloc((void **)&acc, WORDS * sizeof(uint32_t)) != SIMDEV_SUCCESS ||
        simdev_malloc((void **)&tmp, WORDS * sizeof(uint32_t)) != SIMDEV_SUCCESS) {
        w->failures++;
    } else if (copy_enqueue_all(w, s, acc, tmp) != 0) {
        w->failures++;
    }
    if (acc != NULL && simdev_free(acc) != SIMDEV_SUCCESS)
        w->failures++;
    if (tmp != NULL && simdev_free(tmp) != SIMDEV_SUCCESS)
        w->failures++;
    if (s != NULL && simdev_stream_destroy(s) != SIMDEV_SUCCESS)
        w->failures++;
    return NULL;
}

static void simdev_mt_ordered_launches_and_async_copies_give_exact_sums(void **state)
{
    static struct copy_worker w[THREADS];
    (void)state;
    for (int t = 0; t < THREADS; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].device = t % 2;
        w[t].seed = (uint32_t)(t * 37 + 1);
    }
    run_threads(copy_worker_main, w, sizeof w[0]);
    for (int t = 0; t < THREADS; t++) {
        assert_int_equal(w[t].failures, 0);
        for (uint32_t i = 0; i < WORDS; i++)
            if (w[t].out[i] != copy_expected(&w[t], i))
                fail_msg("thread %d word %u: got %u want %u", t, i, w[t].out[i], copy_expected(&w[t], i));
    }
}

/* ---- cross-thread event ping-pong ---- */

/* Two host threads take turns on one device word: each turn waits for
 * the other side's event, steps the word on its own stream and records
 * its own event. The host turn only orders the enqueue calls (a wait
 * sees the record made before it); the device order comes from the
 * events alone, since no side synchronizes its stream until the end. */
struct ping_pair {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    uint32_t turn; /* next round to enqueue; even rounds are side 0's */
    int device;
    uint32_t *x, *log;
    simdev_event_t done[2];
};

struct ping_side {
    struct ping_pair *pair;
    int side;
    int failures;
};

static void ping_turn_wait(struct ping_pair *p, uint32_t round)
{
    pthread_mutex_lock(&p->mutex);
    while (p->turn != round)
        pthread_cond_wait(&p->cond, &p->mutex);
    pthread_mutex_unlock(&p->mutex);
}

static void ping_turn_pass(struct ping_pair *p)
{
    pthread_mutex_lock(&p->mutex);
    p->turn++;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mutex);
}

static const uint32_t ping_mul[2] = {3, 5}, ping_add[2] = {1, 2};

static int ping_round(struct ping_side *me, simdev_stream_t s, uint32_t round)
{
    struct ping_pair *p = me->pair;
    struct step_args a = {p->x, p->log, round, ping_mul[me->side], ping_add[me->side]};
    ping_turn_wait(p, round);
    int rc = simdev_stream_wait_event(s, p->done[1 - me->side]);
    if (rc == SIMDEV_SUCCESS)
        rc = simdev_launch_kernel(s, SIMDEV_ENGINE_AICPU, step_kernel, 1, &a, sizeof a);
    if (rc == SIMDEV_SUCCESS)
        rc = simdev_event_record(p->done[me->side], s);
    /* Pass the turn even after a failure, so the partner never hangs. */
    ping_turn_pass(p);
    return rc;
}

static void *ping_side_main(void *arg)
{
    struct ping_side *me = arg;
    simdev_stream_t s = NULL;
    if (simdev_set_device(me->pair->device) != SIMDEV_SUCCESS || simdev_stream_create(&s) != SIMDEV_SUCCESS) {
        me->failures++;
        s = NULL;
    }
    for (uint32_t round = (uint32_t)me->side; round < PING_ROUNDS; round += 2) {
        if (s == NULL) {
            ping_turn_wait(me->pair, round);
            ping_turn_pass(me->pair);
        } else if (ping_round(me, s, round) != SIMDEV_SUCCESS)
            me->failures++;
    }
    if (s != NULL && simdev_stream_destroy(s) != SIMDEV_SUCCESS)
        me->failures++;
    return NULL;
}

static void ping_pair_open(struct ping_pair *p, int device)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->cond, NULL);
    p->device = device;
    assert_int_equal(simdev_set_device(device), SIMDEV_SUCCESS);
    assert_int_equal(simdev_malloc((void **)&p->x, sizeof(uint32_t)), SIMDEV_SUCCESS);
    assert_int_equal(simdev_malloc((void **)&p->log, PING_ROUNDS * sizeof(uint32_t)), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset(p->x, 0, sizeof(uint32_t)), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_create(&p->done[0]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_create(&p->done[1]), SIMDEV_SUCCESS);
}

static void ping_pair_check_close(struct ping_pair *p)
{
    static uint32_t log[PING_ROUNDS];
    uint32_t x = 0;
    assert_int_equal(simdev_set_device(p->device), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy(log, p->log, sizeof log), SIMDEV_SUCCESS);
    for (uint32_t round = 0; round < PING_ROUNDS; round++) {
        x = x * ping_mul[round % 2] + ping_add[round % 2];
        if (log[round] != x)
            fail_msg("device %d round %u: got %u want %u", p->device, round, log[round], x);
    }
    assert_int_equal(simdev_event_destroy(p->done[0]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(p->done[1]), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(p->x), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(p->log), SIMDEV_SUCCESS);
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->mutex);
    assert_int_equal(simdev_set_device(0), SIMDEV_SUCCESS);
}

static void simdev_mt_cross_thread_event_ping_pong_orders_every_step(void **state)
{
    static struct ping_pair pairs[2];
    static struct ping_side sides[THREADS];
    (void)state;
    for (int d = 0; d < 2; d++)
        ping_pair_open(&pairs[d], d);
    for (int t = 0; t < THREADS; t++) {
        sides[t].pair = &pairs[t / 2];
        sides[t].side = t % 2;
        sides[t].failures = 0;
    }
    run_threads(ping_side_main, sides, sizeof sides[0]);
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(sides[t].failures, 0);
    /* Streams were destroyed by their threads, which waits for their work. */
    for (int d = 0; d < 2; d++)
        ping_pair_check_close(&pairs[d]);
}

/* ---- graphs replayed from several streams ---- */

/* Every thread captures its own graph (THREAD_LOCAL, so no other thread
 * is refused anything) and replays it alternately with one shared graph,
 * all four threads at once on their own streams. */
struct replay_worker {
    simdev_graph_t shared;
    uint32_t *own_words;
    uint32_t value;
    atomic_int *in_flight, *overlaps;
    int failures;
};

static int replay_capture(struct replay_worker *w, simdev_stream_t s, atomic_int *own_in_flight,
                          simdev_graph_t *graph)
{
    struct bump_args a = {w->own_words, w->value, own_in_flight, w->overlaps};
    if (simdev_capture_begin(s, SIMDEV_CAPTURE_MODE_THREAD_LOCAL) != SIMDEV_SUCCESS)
        return -1;
    int rc = simdev_launch_kernel(s, SIMDEV_ENGINE_AICPU, bump_kernel, 1, &a, sizeof a);
    simdev_graph_t g = NULL;
    int end = simdev_capture_end(s, &g);
    if (rc != SIMDEV_SUCCESS || end != SIMDEV_SUCCESS) {
        if (g != NULL)
            simdev_graph_destroy(g);
        return -1;
    }
    *graph = g;
    return 0;
}

static void *replay_worker_main(void *arg)
{
    struct replay_worker *w = arg;
    simdev_stream_t s = NULL;
    simdev_graph_t own = NULL;
    atomic_int own_in_flight;
    atomic_init(&own_in_flight, 0);
    if (simdev_stream_create(&s) != SIMDEV_SUCCESS) {
        w->failures++;
        return NULL;
    }
    if (replay_capture(w, s, &own_in_flight, &own) != 0) {
        w->failures++;
    } else {
        for (uint32_t r = 0; r < REPLAYS; r++)
            if (simdev_graph_launch(r % 2 ? own : w->shared, s) != SIMDEV_SUCCESS ||
                simdev_graph_launch(r % 2 ? w->shared : own, s) != SIMDEV_SUCCESS)
                w->failures++;
        if (simdev_stream_synchronize(s) != SIMDEV_SUCCESS || simdev_graph_destroy(own) != SIMDEV_SUCCESS)
            w->failures++;
    }
    if (simdev_stream_destroy(s) != SIMDEV_SUCCESS)
        w->failures++;
    return NULL;
}

static simdev_graph_t capture_shared(uint32_t *words, atomic_int *in_flight, atomic_int *overlaps)
{
    simdev_stream_t s = NULL;
    simdev_graph_t g = NULL;
    struct bump_args a = {words, 1, in_flight, overlaps};
    assert_int_equal(simdev_stream_create(&s), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_begin(s, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(s, SIMDEV_ENGINE_AICPU, bump_kernel, 1, &a, sizeof a), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_end(s, &g), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(s), SIMDEV_SUCCESS);
    return g;
}

static void assert_device_words(const uint32_t *dev, uint32_t value)
{
    static uint32_t host[WORDS];
    assert_int_equal(simdev_memcpy(host, dev, sizeof host), SIMDEV_SUCCESS);
    for (uint32_t i = 0; i < WORDS; i++)
        if (host[i] != value)
            fail_msg("word %u: got %u want %u", i, host[i], value);
}

static void simdev_mt_one_graph_replayed_from_four_streams_serializes_launches(void **state)
{
    static struct replay_worker w[THREADS];
    atomic_int shared_in_flight, overlaps;
    uint32_t *shared_words = NULL, *own_words = NULL;
    (void)state;
    atomic_init(&shared_in_flight, 0);
    atomic_init(&overlaps, 0);
    assert_int_equal(simdev_malloc((void **)&shared_words, WORDS * sizeof(uint32_t)), SIMDEV_SUCCESS);
    assert_int_equal(simdev_malloc((void **)&own_words, THREADS * WORDS * sizeof(uint32_t)), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset(shared_words, 0, WORDS * sizeof(uint32_t)), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset(own_words, 0, THREADS * WORDS * sizeof(uint32_t)), SIMDEV_SUCCESS);
    simdev_graph_t shared = capture_shared(shared_words, &shared_in_flight, &overlaps);
    for (int t = 0; t < THREADS; t++) {
        struct replay_worker z = {shared, own_words + (size_t)t * WORDS, (uint32_t)t + 2, &shared_in_flight,
                                  &overlaps, 0};
        w[t] = z;
    }
    run_threads(replay_worker_main, w, sizeof w[0]);
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(w[t].failures, 0);
    assert_int_equal(simdev_graph_destroy(shared), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&overlaps), 0);
    assert_device_words(shared_words, THREADS * REPLAYS);
    for (int t = 0; t < THREADS; t++)
        assert_device_words(own_words + (size_t)t * WORDS, REPLAYS * w[t].value);
    assert_int_equal(simdev_free(shared_words), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(own_words), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(simdev_mt_ordered_launches_and_async_copies_give_exact_sums, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(simdev_mt_cross_thread_event_ping_pong_orders_every_step, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(simdev_mt_one_graph_replayed_from_four_streams_serializes_launches,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
