/* The command line's clock (tool_clock.h). */
#define _POSIX_C_SOURCE 200809L
#include "tool_clock.h"

#include <time.h>

uint64_t tool_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
