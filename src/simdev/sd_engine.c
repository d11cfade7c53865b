/*
 * Engine pools: persistent worker threads that run kernel blocks.
 *
 * A launch is queued whole; each idle thread claims the next block index of
 * the oldest launch. All blocks of a launch up to the pool size therefore
 * run at the same time (persistent kernels whose blocks poll each other
 * rely on it), and the rest run as threads free up, in waves. The launch
 * lives on the caller's stack: sd_pool_run returns when its last block
 * finished, so the pool needs no allocation per launch.
 */
#include <string.h>

#include "simdev/sd_internal.h"

/* The launch whose block the calling engine thread is running, for
 * simdev_kernel_report_fault. */
static _Thread_local struct sd_launch *current_launch;

void sd_pool_init(struct sd_pool *p, uint32_t thread_count)
{
    memset(p, 0, sizeof(*p));
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

int sd_pool_run(struct sd_pool *p, simdev_kernel_fn fn, uint32_t block_dim, const void *args)
{
    struct sd_launch l = {.fn = fn, .args = args, .block_dim = block_dim};
    atomic_init(&l.fault, 0);
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
