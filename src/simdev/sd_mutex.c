/* Mutexes that spin briefly before they block (sd_internal.h). */
#define _GNU_SOURCE
#include <pthread.h>

#include "simdev/sd_internal.h"

void sd_mutex_init_brief_spin(pthread_mutex_t *mu)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
    (void)pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    pthread_mutex_init(mu, &attr);
    pthread_mutexattr_destroy(&attr);
}
