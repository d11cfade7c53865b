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
 * The calling thread (the stream's worker, or a graph runner) runs blocks
 * of its own launch too: a launch of one block is not queued at all,
 * which saves the two hand-offs to and from a pool thread; of a larger
 * launch the caller wakes pool threads for the blocks beyond the first
 * (one broadcast when that is every idle thread but at most one, else
 * one signal each),
 * claims blocks of its own launch until none is left, then waits for
 * the blocks pool threads still run: briefly yielding, then blocked.
 * Every block that would have had a pool thread still gets one, so a
 * launch of up to the pool size still runs all its blocks at once (one
 * more runner, the caller, only adds concurrency), and a caller never
 * sleeps while a block of its own is unclaimed (docs/performance.md).
 *
 * Placement (simdev_config.engine_affinity): each pool thread restricts
 * itself to its pool's CPU set when it starts; a thread running a block
 * inline moves itself to that set first, except a replay's last node
 * run where its runner is (sd_pool_run_unplaced; sd_graph.c, runs_here).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
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

void sd_pool_init(struct sd_pool *p, const char *name, uint32_t thread_count, const struct sd_cpus *cpus)
{
    memset(p, 0, sizeof(*p));
    snprintf(p->name, sizeof(p->name), "%.15s", name);
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
    (void)pthread_setname_np(pthread_self(), p->name);
    cpus_apply(&p->cpus);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->head == NULL && !p->stop) {
            p->idle++;
            pthread_cond_wait(&p->work_cv, &p->mu);
            p->idle--;
        }
        if (p->head == NULL)
            break;
        uint32_t block;
        struct sd_launch *l = claim(p, &block);
        pthread_mutex_unlock(&p->mu);
        current_launch = l;
        l->fn(block, l->block_dim, l->args);
        current_launch = NULL;
        pthread_mutex_lock(&p->mu);
        /* Under p->mu: the caller, even one that saw the count while
         * yielding, takes p->mu before its launch leaves the stack. */
        if (atomic_fetch_add_explicit(&l->done_blocks, 1, memory_order_release) + 1 == l->block_dim)
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

/* Where the calling (stream worker or graph runner) thread last placed
 * itself to run a block inline, and the CPUs it had before. */
static _Thread_local struct sd_cpus inline_cpus;
static _Thread_local int inline_placed;
static _Thread_local cpu_set_t own_cpus;
static _Thread_local int own_cpus_known;

/* A synchronizing host thread that runs a replay itself is a guest
 * (sd_stream_help): it runs blocks where it is, as its affinity is the
 * user's, not simdev's, and counts as placed on the engine it began
 * beside (NULL: none). */
static _Thread_local int guest;
static _Thread_local const struct sd_pool *guest_beside;

void sd_engine_guest_begin(const struct sd_pool *beside)
{
    guest = 1;
    guest_beside = beside;
}

int sd_engine_guest(void)
{
    return guest;
}

void sd_engine_guest_end(void)
{
    guest = 0;
    guest_beside = NULL;
}

#ifdef SIMPLER_VERIFY
_Atomic uint64_t sd_test_moves;
#endif

/* Runs block `block` of `l` on the calling thread, placed on the pool's
 * CPUs (a syscall only when that differs from the last inline block),
 * or where it is for a guest. */
void sd_engine_place(const struct sd_pool *p)
{
    if (p->cpus.count != 0 && !guest && (!inline_placed || memcmp(&inline_cpus, &p->cpus, sizeof(p->cpus)) != 0)) {
#ifdef SIMPLER_VERIFY
        atomic_fetch_add(&sd_test_moves, 1);
#endif
        if (!own_cpus_known)
            own_cpus_known = pthread_getaffinity_np(pthread_self(), sizeof(own_cpus), &own_cpus) == 0;
        cpus_apply(&p->cpus);
        inline_cpus = p->cpus;
        inline_placed = 1;
    }
}

static void run_inline(struct sd_pool *p, struct sd_launch *l, uint32_t block)
{
    sd_engine_place(p);
    struct sd_launch *outer = current_launch;
    current_launch = l;
    l->fn(block, l->block_dim, l->args);
    current_launch = outer;
}

int sd_pool_run_unplaced(struct sd_pool *p, simdev_kernel_fn fn, const void *args)
{
    (void)p;
    struct sd_launch l = {.fn = fn, .args = args, .block_dim = 1};
    atomic_init(&l.fault, 0);
    atomic_init(&l.done_blocks, 0);
    struct sd_launch *outer = current_launch;
    current_launch = &l;
    fn(0, 1, args);
    current_launch = outer;
    return atomic_load(&l.fault);
}

int sd_engine_runs_here(const struct sd_pool *p)
{
    int cpu = sched_getcpu();
    return p->cpus.count != 0 && cpu >= 0 && cpu < SD_CPU_WORDS * 64 &&
           (p->cpus.bits[cpu / 64] >> (cpu % 64) & 1u) != 0;
}

int sd_engine_placed_on(const struct sd_pool *p)
{
    if (guest)
        return guest_beside != NULL && memcmp(&guest_beside->cpus, &p->cpus, sizeof(p->cpus)) == 0;
    return inline_placed && memcmp(&inline_cpus, &p->cpus, sizeof(p->cpus)) == 0;
}

void sd_engine_unplace(void)
{
    if (!inline_placed || guest)
        return;
    if (own_cpus_known) {
#ifdef SIMPLER_VERIFY
        atomic_fetch_add(&sd_test_moves, 1);
#endif
        (void)pthread_setaffinity_np(pthread_self(), sizeof(own_cpus), &own_cpus);
    }
    inline_placed = 0;
}

/* Under p->mu: the next unclaimed block of `l` (queued in p), taking
 * `l` off the queue with its last block; UINT32_MAX when none is left. */
static uint32_t claim_own(struct sd_pool *p, struct sd_launch *l)
{
    if (l->next_block == l->block_dim)
        return UINT32_MAX;
    uint32_t block = l->next_block++;
    if (l->next_block == l->block_dim) {
        struct sd_launch *prev = NULL;
        for (struct sd_launch *it = p->head; it != l; it = it->next)
            prev = it;
        if (prev == NULL)
            p->head = l->next;
        else
            prev->next = l->next;
        if (p->tail == l)
            p->tail = prev;
    }
    return block;
}

/* Waits for the pool threads' blocks of `l`: yields up to SD_POOL_YIELDS
 * times, then blocks; returns with p->mu held. */
#define SD_POOL_YIELDS 32
static void wait_blocks(struct sd_pool *p, struct sd_launch *l)
{
    for (int i = 0; i < SD_POOL_YIELDS; i++) {
        if (atomic_load_explicit(&l->done_blocks, memory_order_acquire) == l->block_dim)
            break;
        sched_yield();
    }
    pthread_mutex_lock(&p->mu);
    while (atomic_load_explicit(&l->done_blocks, memory_order_relaxed) < l->block_dim)
        pthread_cond_wait(&p->done_cv, &p->mu);
}

int sd_pool_run(struct sd_pool *p, simdev_kernel_fn fn, uint32_t block_dim, const void *args)
{
    struct sd_launch l = {.fn = fn, .args = args, .block_dim = block_dim};
    atomic_init(&l.fault, 0);
    atomic_init(&l.done_blocks, 0);
    if (block_dim == 1) {
        run_inline(p, &l, 0);
        return atomic_load(&l.fault);
    }
    pthread_mutex_lock(&p->mu);
    if (p->tail != NULL)
        p->tail->next = &l;
    else
        p->head = &l;
    p->tail = &l;
    /* One pool thread per block beyond the caller's. A thread woken
     * without work goes back to waiting, which costs a hand-off, while
     * each signal is a system call of the caller's: so one broadcast
     * when the blocks leave at most one idle thread without work (the
     * kernel-mode executor's 6 blocks: the caller runs one, 5 of 6 idle
     * threads), else one signal per block (docs/performance.md). */
    uint32_t want = block_dim - 1 < p->thread_count ? block_dim - 1 : p->thread_count;
    int all = want + 1 >= p->idle && p->idle > 1;
    uint32_t block = claim_own(p, &l), mine = 0;
    /* Signalled after the unlock: a woken thread then finds p->mu free
     * instead of blocking on it once more. */
    pthread_mutex_unlock(&p->mu);
    if (all)
        pthread_cond_broadcast(&p->work_cv);
    else
        for (uint32_t i = 0; i < want; i++)
            pthread_cond_signal(&p->work_cv);
    for (; block != UINT32_MAX; mine++) {
        run_inline(p, &l, block);
        pthread_mutex_lock(&p->mu);
        block = claim_own(p, &l);
        pthread_mutex_unlock(&p->mu);
    }
    atomic_fetch_add_explicit(&l.done_blocks, mine, memory_order_relaxed);
    wait_blocks(p, &l);
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
