/* The condition-variable ping-pong of handoff.h. */
#include "handoff.h"

#include <pthread.h>

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
