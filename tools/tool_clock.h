/* tool_clock — the one clock the `simpler` program times with. */
#ifndef SIMPLER_TOOLS_TOOL_CLOCK_H
#define SIMPLER_TOOLS_TOOL_CLOCK_H

#include <stdint.h>

/* Nanoseconds on the monotonic clock (CLOCK_MONOTONIC), from an
 * arbitrary origin: only differences mean anything. Thread-safe. */
uint64_t tool_clock_ns(void);

/* The microseconds and milliseconds between two tool_clock_ns readings. */
static inline double tool_clock_us_between(uint64_t t0, uint64_t t1)
{
    return (double)(t1 - t0) / 1e3;
}

static inline double tool_clock_ms_between(uint64_t t0, uint64_t t1)
{
    return (double)(t1 - t0) / 1e6;
}

#endif
