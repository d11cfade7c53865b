/*
 * device_wait — bounded spinning, then blocking, on a 32-bit word in
 * device memory (simdev device memory is host memory, so a Linux futex
 * works on it). The machine has fewer CPUs than device threads, so no
 * waiter spins without bound: DEVICE_SPIN_LIMIT polls, then the futex.
 */
#ifndef SIMPLER_DEVICE_WAIT_H
#define SIMPLER_DEVICE_WAIT_H

#include <stdatomic.h>
#include <stdint.h>

/* Polls before a waiter blocks: long enough to catch a partner that
 * answers within a few microseconds, short enough that a waiter on a
 * busy CPU gives the CPU back quickly. */
#define DEVICE_SPIN_LIMIT 512u

/* Blocks while *word == expected; may return early (spuriously or on a
 * wake); callers re-check their condition. */
void device_wait_block(_Atomic uint32_t *word, uint32_t expected);
/* Wakes every thread blocked on `word`. */
void device_wait_wake(_Atomic uint32_t *word);

/* One polite poll iteration. */
static inline void device_wait_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
