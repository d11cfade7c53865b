/*
 * Engine pools: persistent worker threads that run kernel blocks.
 *
 * A launch of two or more blocks is queued whole; each idle thread claims
 * the next block index of the oldest launch. All blocks of a launch up to
 * the pool size therefore run at the same time (persistent kernels whose
 * blocks poll each other rely on it), and the rest run as threads free
 * up, in waves. The launch
 * lives on the caller's stack: sd_pool_run returns when its last block
 * finished, so the pool needs no allocation per launch.
 *
 * A launch of one block is not queued: the calling thread (the stream's
 * worker, or a graph lane) runs it itself, which saves the two hand-offs
 * to and from a pool thread and means a one-block kernel never waits for
 * a free pool thread.
 *
 * Placement (simdev_config.engine_affinity): each pool thread restricts
 * itself to its pool's CPU set when it starts; a thread running a block
 * inline moves itself to that set first.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "simdev/sd_internal.h"

/* The launch whose block the calling engine thread is running, for
 * simdev_kernel_report_fault. */
static _Thread_local struct sd_launch *current_launch;

static void cpus_add(struct sd_cpus *c, int cpu)
{
    c->bits[cpu / 64] |= 1ull << (cpu % 64);
    c->count++;
}

void sd_engine_placement(const simdev_config *cfg, struct sd_cpus out[2])
{
    cpu_set_t allowed;
    int cpus[SD_CPU_WORDS * 64], n = 0;

    memset(out, 0, 2 * sizeof(out[0]));
    if (!cfg->engine_affinity || sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
        return;
    for (int cpu = 0; cpu < SD_CPU_WORDS * 64 && cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &allowed))
            cpus[n++] = cpu;
    if (n < 2)
        return;
    uint64_t aicore = (uint64_t)cfg->aic_cores + cfg->aiv_cores;
    int first = (int)((uint64_t)n * cfg->aicpu_threads / (cfg->aicpu_threads + aicore));
    if (first < 1)
        first = 1;
    if (first > n - 1)
        first = n - 1;
    for (int i = 0; i < n; i++)
        cpus_add(&out[i < first ? SIMDEV_ENGINE_AICPU : SIMDEV_ENGINE_AICORE], cpus[i]);
}

/* Restricts the calling thread to `c`; a refusal leaves it where it is. */
static void cpus_apply(const struct sd_cpus *c)
{
    cpu_set_t set;
    if (c->count == 0)
        return;
    CPU_ZERO(&set);
    for (int cpu = 0; cpu < SD_CPU_WORDS * 64 && cpu < CPU_SETSIZE; cpu++)
        if (c->bits[cpu / 64] & (1ull << (cpu % 64)))
            CPU_SET(cpu, &set);
    (void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

void sd_pool_init(struct sd_pool *p, uint32_t thread_count, const struct sd_cpus *cpus)
{
    memset(p, 0, sizeof(*p));
    p->cpus = *cpus;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    p->thread_count = thread_count;
}

/* Takes the next block of the oldest launch; the caller holds p->mu. */
static struct sd_launch *claim(struct sd_pool *p, uint32_t *block)
{
    struct sd_launch *l = p->head;
    *block = l->next_block++;
    if (l->next_block == l->block_dim) {
        p->head = l->next;
        if (p->head == NULL)
            p->tail = NULL;
    }
    return l;
}

static void *pool_main(void *arg)
{
    struct sd_pool *p = arg;
    cpus_apply(&p->cpus);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->head == NULL && !p->stop)
            pthread_cond_wait(&p->work_cv, &p->mu);
        if (p->head == NULL)
            break;
        uint32_t block;
        struct sd_launch *l = claim(p, &block);
        pthread_mutex_unlock(&p->mu);
        current_launch = l;
        l->fn(block, l->block_dim, l->args);
        current_launch = NULL;
        pthread_mutex_lock(&p->mu);
        if (++l->done_blocks == l->block_dim)
            pthread_cond_broadcast(&p->done_cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int sd_pool_start(struct sd_pool *p)
{
    pthread_mutex_lock(&p->mu);
    int rc = 0;
    while (p->started < p->thread_count) {
        if (pthread_create(&p->threads[p->started], NULL, pool_main, p) != 0) {
            rc = SIMDEV_ERROR_MEMORY_ALLOCATION;
            break;
        }
        p->started++;
    }
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void sd_pool_deinit(struct sd_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->done_cv);
    pthread_mutex_destroy(&p->mu);
    memset(p, 0, sizeof(*p));
}

/* Where the calling (stream worker or graph lane) thread last placed
 * itself to run a block inline, and the CPUs it had before. */
static _Thread_local struct sd_cpus inline_cpus;
static _Thread_local int inline_placed;
static _Thread_local cpu_set_t own_cpus;
static _Thread_local int own_cpus_known;

/* Runs the one block of `l` on the calling thread, placed on the pool's
 * CPUs (a syscall only when that differs from the last inline block). */
static void run_inline(struct sd_pool *p, struct sd_launch *l)
{
    if (p->cpus.count != 0 && (!inline_placed || memcmp(&inline_cpus, &p->cpus, sizeof(p->cpus)) != 0)) {
        if (!own_cpus_known)
            own_cpus_known = pthread_getaffinity_np(pthread_self(), sizeof(own_cpus), &own_cpus) == 0;
        cpus_apply(&p->cpus);
        inline_cpus = p->cpus;
        inline_placed = 1;
    }
    struct sd_launch *outer = current_launch;
    current_launch = l;
    l->fn(0, 1, l->args);
    current_launch = outer;
}

void sd_engine_unplace(void)
{
    if (!inline_placed)
        return;
    if (own_cpus_known)
        (void)pthread_setaffinity_np(pthread_self(), sizeof(own_cpus), &own_cpus);
    inline_placed = 0;
}

int sd_pool_run(struct sd_pool *p, simdev_kernel_fn fn, uint32_t block_dim, const void *args)
{
    struct sd_launch l = {.fn = fn, .args = args, .block_dim = block_dim};
    atomic_init(&l.fault, 0);
    if (block_dim == 1) {
        run_inline(p, &l);
        return atomic_load(&l.fault);
    }
    pthread_mutex_lock(&p->mu);
    if (p->tail != NULL)
        p->tail->next = &l;
    else
        p->head = &l;
    p->tail = &l;
    /* Wake one idle thread per block, not all of them: each woken thread
     * that finds no work goes back to waiting, which costs a handoff. */
    for (uint32_t i = 0; i < block_dim && i < p->thread_count; i++)
        pthread_cond_signal(&p->work_cv);
    while (l.done_blocks < block_dim)
        pthread_cond_wait(&p->done_cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return atomic_load(&l.fault);
}

int simdev_kernel_report_fault(int code)
{
    struct sd_launch *l = current_launch;
    if (l == NULL || code == 0)
        return SIMDEV_ERROR_INVALID_PARAM;
    int expected = 0;
    atomic_compare_exchange_strong(&l->fault, &expected, code);
    return SIMDEV_SUCCESS;
}
