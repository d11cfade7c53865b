/*
 * device_wait — bounded spinning, then blocking, on a 32-bit word in
 * device memory (simdev device memory is host memory, so a Linux futex
 * works on it). The machine has fewer CPUs than device threads, so no
 * waiter spins without bound. A waiter polls in three phases:
 *
 *   1. DEVICE_SPIN_POLLS polls with a pause instruction (a partner that
 *      is running answers within a few hundred nanoseconds), or
 *      DEVICE_CORE_SHARED_POLLS for a core among others;
 *   2. polls separated by sched_yield() for a bounded time (a partner
 *      that is runnable but has no CPU gets ours, and neither side pays
 *      for a futex wake-up, which on a virtual machine costs tens of
 *      microseconds per hand-off);
 *   3. blocking on the futex until the partner wakes it.
 *
 * The scheduler, the partner of every hand-off, uses phase 2
 * (DEVICE_SPIN_YIELD_NS), so it stays awake while cores work and answers
 * a core that just finished during the core's phase 1. A core uses it
 * (DEVICE_CORE_YIELD_NS) when its execution started other cores too, so
 * it is there when another core's work releases its task. docs/device.md
 * has the measurements.
 */
#ifndef SIMPLER_DEVICE_WAIT_H
#define SIMPLER_DEVICE_WAIT_H

#include <stdatomic.h>
#include <stdint.h>

/* Phase 1: pause polls, a few microseconds. Shorter loops made cores
 * fall asleep between the tasks of a wide graph; much longer ones made
 * a chain far slower where a long pause loop may get the vCPU
 * descheduled. */
#define DEVICE_SPIN_POLLS 512u
/* Phase 1 of a core among others (a launch that started other cores
 * too): they share the AICore CPU with each other and with the thread
 * that started them, so a core's pause loop holds the CPU the core
 * whose work releases its next task may need, until the loop ends (512
 * pauses are about 15 us on the build VM's AMD EPYC). A short loop
 * still catches an answer from the other CPU; then the core yields. */
#define DEVICE_CORE_SHARED_POLLS 32u
/* Phase 2 bound of the scheduler. It must exceed the futex wake-up
 * latency, or two partners that hand work back and forth fall asleep at
 * every hand-off; short enough that an idle waiter soon frees its CPU. */
#define DEVICE_SPIN_YIELD_NS 200000u
/* Phase 2 bound of a core among others (device_executor.c; a lone core
 * has none). A core that slept while another core ran the tasks it
 * waits for (a chain that changes core type) was woken on a vCPU gone
 * idle, a cross-vCPU wake-up per post, and every core asleep at the end
 * had to be woken again to leave. Engine affinity
 * keeps the yielding cores off the scheduler's CPU; without it, idle
 * cores that yielded took turns with the scheduler and slowed W3
 * several times. */
#define DEVICE_CORE_YIELD_NS 200000u

/* A core waiting for its first task while the scheduler still validates
 * the image yields instead of sleeping, for at most this long: a core
 * asleep when the first task is posted costs a wake-up of a vCPU that
 * went idle (a sizeable part of a short run), and during validation the cores' CPUs have nothing else to run. */
#define DEVICE_CORE_START_YIELD_NS 2000000u

/* The state of one wait: DEVICE_SPIN_INIT(yield_ns) with its phase 2
 * budget (0: none). */
typedef struct device_spin {
    uint32_t polls;
    uint32_t yield_ns;       /* phase 2 budget */
    uint64_t yield_until_ns; /* 0 until phase 2 began */
} device_spin;
#define DEVICE_SPIN_INIT(yield_budget_ns) {0, (yield_budget_ns), 0}

/* One step of a wait: pauses or yields and returns 1 (poll again), or
 * returns 0 once the budget is spent (block now). */
int device_spin_step(device_spin *spin);

/* CLOCK_MONOTONIC in nanoseconds (trace records, run timings). */
uint64_t device_now_ns(void);

/* Blocks while *word == expected; may return early (spuriously or on a
 * wake); callers re-check their condition. */
void device_wait_block(_Atomic uint32_t *word, uint32_t expected);
#ifdef SIMPLER_VERIFY
/* Tests only: when set, called just before every futex wait, so a test
 * can make a waker act between a waiter's last check and its wait. */
extern void (*device_wait_before_block)(_Atomic uint32_t *word, uint32_t expected);
#endif

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
