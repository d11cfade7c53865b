/* The condition-variable and cache-line ping-pongs of handoff.h. */
#define _GNU_SOURCE
#include "handoff.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "timing.h"

struct pingpong {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned turn;   /* odd: the helper's turn; even: the caller's */
    unsigned last;   /* the helper stops after answering this turn */
};

static void *pong_main(void *arg)
{
    struct pingpong *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->turn % 2 == 0)
            pthread_cond_wait(&p->cv, &p->mu);
        unsigned answered = p->turn;
        p->turn++;
        pthread_cond_signal(&p->cv);
        if (answered >= p->last)
            break;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

double bench_handoff_ns(unsigned round_trips)
{
    struct pingpong p = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
                         .turn = 0, .last = 2 * round_trips - 1};
    pthread_t helper;
    if (round_trips == 0 || pthread_create(&helper, NULL, pong_main, &p) != 0)
        return -1;
    uint64_t t0 = bench_now_ns();
    pthread_mutex_lock(&p.mu);
    for (unsigned i = 0; i < round_trips; i++) {
        p.turn++;
        pthread_cond_signal(&p.cv);
        while (p.turn % 2 == 1)
            pthread_cond_wait(&p.cv, &p.mu);
    }
    pthread_mutex_unlock(&p.mu);
    uint64_t elapsed = bench_now_ns() - t0;
    pthread_join(helper, NULL);
    return (double)elapsed / (2.0 * round_trips);
}

#define LINE_WARM_UP 1000u

struct line_pingpong {
    _Alignas(64) _Atomic unsigned ping;
    _Alignas(64) _Atomic unsigned pong;
    unsigned round_trips;
    int cpu[2];
};

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *line_pong_main(void *arg)
{
    struct line_pingpong *p = arg;
    if (pin(p->cpu[1]) != 0) {
        atomic_store(&p->pong, UINT32_MAX); /* tells the caller to give up */
        return NULL;
    }
    for (unsigned i = 1; i <= p->round_trips; i++) {
        while (atomic_load_explicit(&p->ping, memory_order_acquire) != i)
            __builtin_ia32_pause();
        atomic_store_explicit(&p->pong, i, memory_order_release);
    }
    return NULL;
}

double bench_line_round_trip_ns(unsigned round_trips)
{
    struct line_pingpong p = {.round_trips = round_trips + LINE_WARM_UP};
    cpu_set_t allowed, own;
    int n = 0;
    if (round_trips == 0 || sched_getaffinity(0, sizeof(allowed), &allowed) != 0 ||
        pthread_getaffinity_np(pthread_self(), sizeof(own), &own) != 0)
        return -1;
    for (int cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
        if (CPU_ISSET(cpu, &allowed))
            p.cpu[n++] = cpu;
    if (n < 2 || pin(p.cpu[0]) != 0)
        return -1;
    pthread_t helper;
    if (pthread_create(&helper, NULL, line_pong_main, &p) != 0) {
        (void)pthread_setaffinity_np(pthread_self(), sizeof(own), &own);
        return -1;
    }
    /* The first round trips include the helper's start; time the rest. */
    uint64_t t0 = 0;
    int failed = 0;
    for (unsigned i = 1; i <= p.round_trips && !failed; i++) {
        if (i == LINE_WARM_UP + 1)
            t0 = bench_now_ns();
        atomic_store_explicit(&p.ping, i, memory_order_release);
        unsigned got;
        while ((got = atomic_load_explicit(&p.pong, memory_order_acquire)) != i && got != UINT32_MAX)
            __builtin_ia32_pause();
        failed = got == UINT32_MAX;
    }
    uint64_t elapsed = bench_now_ns() - t0;
    pthread_join(helper, NULL);
    (void)pthread_setaffinity_np(pthread_self(), sizeof(own), &own);
    return failed ? -1 : (double)elapsed / round_trips;
}

void bench_empty_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    (void)args;
}

double bench_simdev_round_trip_ns(simdev_stream_t stream, unsigned trips)
{
    uint64_t t0 = bench_now_ns();
    for (unsigned i = 0; i < trips; i++) {
        int rc = simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, bench_empty_kernel, 1, NULL, 0);
        rc = rc ? rc : simdev_stream_synchronize(stream);
        if (rc != SIMDEV_SUCCESS)
            return -(double)rc;
    }
    return trips == 0 ? 0 : (double)(bench_now_ns() - t0) / trips;
}

void bench_machine_row(struct bench_report *r, unsigned runs)
{
    double x[BENCH_RUNS_MAX];
    unsigned n = runs < BENCH_RUNS_MAX ? runs : BENCH_RUNS_MAX;
    for (unsigned run = 0; run < n; run++)
        if ((x[run] = bench_line_round_trip_ns(LINE_ROUND_TRIPS)) < 0)
            return;
    bench_report_add(r, "machine: CPU-to-CPU cache-line round trip", "ns", x, n);
}
