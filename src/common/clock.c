#define _POSIX_C_SOURCE 199309L
#include "common/clock.h"

#include <time.h>

#include "simpler/runtime_c_api.h"

uint64_t clock_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

SIMPLER_API uint64_t simpler_clock_ns(void)
{
    return clock_now_ns();
}
