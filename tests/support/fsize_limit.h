/* A file size limit for tests of failed writes: with RLIMIT_FSIZE
 * lowered and SIGXFSZ ignored, a write past the limit fails with EFBIG
 * instead of killing the process. */
#ifndef SIMPLER_TEST_FSIZE_LIMIT_H
#define SIMPLER_TEST_FSIZE_LIMIT_H

#include <signal.h>
#include <sys/resource.h>

typedef struct fsize_limit {
    struct rlimit old;
    void (*old_handler)(int);
} fsize_limit;

/* Lowers the limit to `bytes`; 0, or -1 (nothing changed). */
static inline int fsize_limit_begin(fsize_limit *l, rlim_t bytes)
{
    if (getrlimit(RLIMIT_FSIZE, &l->old) != 0)
        return -1;
    struct rlimit small = l->old;
    small.rlim_cur = bytes;
    l->old_handler = signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &small) != 0) {
        signal(SIGXFSZ, l->old_handler);
        return -1;
    }
    return 0;
}

/* Restores the limit and the signal's handler. */
static inline void fsize_limit_end(fsize_limit *l)
{
    (void)setrlimit(RLIMIT_FSIZE, &l->old);
    signal(SIGXFSZ, l->old_handler);
}

#endif
