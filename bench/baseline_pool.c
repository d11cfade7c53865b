/* The mutex+condvar DAG pool of baseline_pool.h. */
#include "baseline_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

#define WORKERS_MAX 64u

struct baseline_pool {
    pthread_mutex_t mu;
    pthread_cond_t work_cv;   /* a task was queued, or stop */
    pthread_cond_t done_cv;   /* the run's last task finished */
    pthread_t threads[WORKERS_MAX];
    unsigned worker_count;
    int stop;
    /* The run in progress, under mu. */
    const struct dag *dag;
    baseline_task_fn fn;
    void *user;
    uint32_t *remaining;      /* fan-in left per task */
    uint32_t *queue;          /* ready FIFO; each task enters once */
    uint32_t head, tail, done;
};

/* Under mu: releases the successors of `task`, queues the ready ones and
 * wakes a worker for each but the first, which the caller takes. */
static void release_successors(struct baseline_pool *p, uint32_t task)
{
    const struct dag *d = p->dag;
    unsigned ready = 0;
    for (uint32_t e = d->succ_start[task]; e < d->succ_start[task + 1]; e++) {
        uint32_t s = d->succ[e];
        if (--p->remaining[s] == 0) {
            p->queue[p->tail++] = s;
            if (ready++ > 0)
                pthread_cond_signal(&p->work_cv);
        }
    }
    if (++p->done == d->task_count)
        pthread_cond_signal(&p->done_cv);
}

static void *worker_main(void *arg)
{
    struct baseline_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->head == p->tail && !p->stop)
            pthread_cond_wait(&p->work_cv, &p->mu);
        if (p->stop)
            break;
        uint32_t task = p->queue[p->head++];
        baseline_task_fn fn = p->fn;
        void *user = p->user;
        pthread_mutex_unlock(&p->mu);
        fn(task, user);
        pthread_mutex_lock(&p->mu);
        release_successors(p, task);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void workers_stop(struct baseline_pool *p, unsigned started)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < started; i++)
        pthread_join(p->threads[i], NULL);
}

struct baseline_pool *baseline_pool_create(unsigned worker_count)
{
    if (worker_count < 1 || worker_count > WORKERS_MAX)
        return NULL;
    struct baseline_pool *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    for (unsigned i = 0; i < worker_count; i++) {
        if (pthread_create(&p->threads[i], NULL, worker_main, p) != 0) {
            workers_stop(p, i);
            p->worker_count = 0;
            baseline_pool_destroy(p);
            return NULL;
        }
    }
    p->worker_count = worker_count;
    return p;
}

void baseline_pool_destroy(struct baseline_pool *p)
{
    if (p == NULL)
        return;
    if (p->worker_count > 0)
        workers_stop(p, p->worker_count);
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->done_cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

int baseline_pool_run(struct baseline_pool *p, const struct dag *d, baseline_task_fn fn, void *user,
                      uint64_t *elapsed_ns)
{
    uint32_t *remaining = malloc((size_t)d->task_count * sizeof(*remaining));
    uint32_t *queue = malloc((size_t)d->task_count * sizeof(*queue));
    if (remaining == NULL || queue == NULL) {
        free(remaining);
        free(queue);
        return -1;
    }
    memcpy(remaining, d->fanin, (size_t)d->task_count * sizeof(*remaining));
    uint64_t t0 = bench_now_ns();
    pthread_mutex_lock(&p->mu);
    p->head = p->tail = p->done = 0;
    p->dag = d;
    p->fn = fn;
    p->user = user;
    p->remaining = remaining;
    p->queue = queue;
    for (uint32_t i = 0; i < d->task_count; i++)
        if (remaining[i] == 0)
            p->queue[p->tail++] = i;
    pthread_cond_broadcast(&p->work_cv);
    while (p->done < d->task_count)
        pthread_cond_wait(&p->done_cv, &p->mu);
    p->dag = NULL;
    p->remaining = NULL;
    p->queue = NULL;
    pthread_mutex_unlock(&p->mu);
    *elapsed_ns = bench_now_ns() - t0;
    free(remaining);
    free(queue);
    return 0;
}
