/* tool_clock — durations of the library's one clock, simpler_clock_ns
 * (the clock trace timestamps use), as the `simpler` program prints them. */
#ifndef SIMPLER_TOOLS_TOOL_CLOCK_H
#define SIMPLER_TOOLS_TOOL_CLOCK_H

#include <stdint.h>

#include "simpler/runtime_c_api.h"

/* The microseconds and milliseconds between two simpler_clock_ns
 * readings. */
static inline double tool_clock_us_between(uint64_t t0, uint64_t t1)
{
    return (double)(t1 - t0) / 1e3;
}

static inline double tool_clock_ms_between(uint64_t t0, uint64_t t1)
{
    return (double)(t1 - t0) / 1e6;
}

#endif
