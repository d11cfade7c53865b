/*
 * clock — the one monotonic clock inside libsimpler: simdev's bounded
 * waits, the device kernels' trace and run timings (device_now_ns) and
 * program mode's phase times all read it, and simpler_clock_ns hands it
 * to users (bench, tools).
 */
#ifndef SIMPLER_COMMON_CLOCK_H
#define SIMPLER_COMMON_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t clock_now_ns(void);

#endif
