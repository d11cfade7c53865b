/* The CPUs simdev's engine placement gave an engine's pool threads, as a
 * cpu_set_t (tests that move the calling thread beside an engine). Needs
 * _GNU_SOURCE before the first include. */
#ifndef SIMPLER_TEST_SIMDEV_ENGINE_CPUS_H
#define SIMPLER_TEST_SIMDEV_ENGINE_CPUS_H

#include <sched.h>

#include "simdev/sd_internal.h"

static inline void simdev_engine_cpus(int device, int engine, cpu_set_t *set)
{
    CPU_ZERO(set);
    const struct sd_pool *p = &sd_g.dev[device].pools[engine];
    for (int cpu = 0; cpu < CPU_SETSIZE && cpu < SD_CPU_WORDS * 64; cpu++)
        if (p->cpus.bits[cpu / 64] >> (cpu % 64) & 1u)
            CPU_SET(cpu, set);
}

#endif
