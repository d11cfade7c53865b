/*
 * device_slot — the handshake between the scheduler and one core, on
 * that core's slot (device_handshake.h).
 *
 * The scheduler posts tasks (device_slot_post) and, at the end, tells the
 * core to leave (device_slot_quit; the host's half-chain dismissals use
 * it too). The core waits for either (device_slot_wait): a bounded spin,
 * then a futex sleep on the slot's `bell`.
 *
 * `bell` only ever grows: a core reads it, announces its sleep, re-checks
 * posted and state, and blocks while bell still holds what it read. A
 * waker stores its news first, then (if the core may sleep) bumps bell
 * and wakes. A bumped bell never returns to a value a core could have
 * read, so a wake-up that lands between the core's re-check and its
 * futex wait still makes the wait return (a word toggled back and forth
 * would not: two wake-ups in that window would restore the value read).
 */
#ifndef SIMPLER_DEVICE_SLOT_H
#define SIMPLER_DEVICE_SLOT_H

#include <stdint.h>

#include "device/device_handshake.h"
#include "platform/platform_ops.h"

/* Scheduler: publishes ring entries up to `posted` (written before) and
 * wakes the core if it reads as asleep. The store is not fenced against
 * that read, so a core going to sleep at that moment may miss it: see
 * device_slot_rouse. */
void device_slot_post(device_core_slot *slot, uint32_t posted);

/* Scheduler, after a sequentially consistent fence, for a core it has
 * posted work the core has not finished: wakes the core if it is
 * asleep. After the fence every post is visible to the core, and a
 * core that slept without seeing one had set its flag before the fence
 * (it sets the flag, then re-reads posted, both seq_cst), so the flag
 * reads as set here. */
void device_slot_rouse(device_core_slot *slot);

/* Tells the core to leave and wakes it if it may be asleep (like a
 * post: no bell, no syscall, for a core awake or not yet started). */
void device_slot_quit(device_core_slot *slot);

/* Whether the core was told to leave: any state but serve (IDLE) is
 * read as QUIT, so a garbage slot can only make a core leave. */
int device_slot_quitting(device_core_slot *slot);

/* Core: returns the posted count once it differs from `done`, or `done`
 * if the core must leave. Polls with a pause at most `polls` times (up
 * to DEVICE_SPIN_POLLS) before it first sleeps, DEVICE_SPIN_POLLS after
 * every wake-up; each time, then yields between polls for up to
 * `yield_ns` (0: none) before it sleeps. */
uint32_t device_slot_wait(device_core_slot *slot, uint32_t done, uint32_t polls, uint32_t yield_ns);

/* Core, before its first wait of an execution (the executor passes
 * DEVICE_CORE_START_YIELD_NS): returns once a task was posted, the core
 * was told to leave, `*dispatching` became nonzero (the scheduler has
 * validated and posted its first tasks), or `budget_ns` passed. Yields
 * the CPU between polls from the first (no pause phase: on simdev the
 * cores of a launch arrive on a shared CPU); never blocks. Returns 1 when the
 * scheduler announced dispatch with nothing posted here (this core has
 * no work coming at once: it may skip the pause phase), else 0. */
int device_slot_await_start(device_core_slot *slot, _Atomic uint32_t *dispatching, uint32_t budget_ns);

/* Tells every core of the execution described by `d` to leave. */
void device_slots_quit(const device_run_desc *d);

/* The host's rescue of a half-enqueued chain: tells every core slot of
 * `d` to quit and rings its bell through the platform (mem_signal), so
 * an executor left waiting for a scheduler that never comes returns.
 * The caller has let the chain's scheduler stream finish, so no
 * scheduler writes the slots meanwhile. Returns 0 or the first failing
 * call's device code (the other slots are still told). */
int device_slots_dismiss(const platform_ops *ops, const device_run_desc *d);

#endif
