/* The scheduler <-> core handshake on one slot (device_slot.h). */
#include "device/device_slot.h"

#include "device/device_wait.h"

static void ring_bell(device_core_slot *slot)
{
    atomic_fetch_add(&slot->bell, 1);
    device_wait_wake(&slot->bell);
}

void device_slot_post(device_core_slot *slot, uint32_t posted)
{
    /* A release store, and no fence before the flag is read: a
     * sequentially consistent store (xchg on x86) held the scheduler
     * until the line came back from the core, which reads it between
     * tasks, about as long as its whole completion handling.
     * The flag may then be read before the core's, which sets it just
     * as this store is on its way, and the core sleeps holding this
     * work; the scheduler finds it with device_slot_rouse once a wait
     * of its passes the pause polls without a completion, and before
     * it blocks. */
    atomic_store_explicit(&slot->posted, posted, memory_order_release);
    if (atomic_load_explicit(&slot->sleeping, memory_order_relaxed))
        ring_bell(slot);
}

void device_slot_rouse(device_core_slot *slot)
{
    if (atomic_load_explicit(&slot->sleeping, memory_order_relaxed))
        ring_bell(slot);
}

void device_slot_quit(device_core_slot *slot)
{
    /* QUIT before the flag, as a post: a core that had not set its flag
     * when we read it re-checks state after setting it and leaves. */
    atomic_store(&slot->state, DEVICE_SLOT_QUIT);
    if (atomic_load(&slot->sleeping))
        ring_bell(slot);
}

void device_slots_quit(const device_run_desc *d)
{
    for (uint32_t c = 0; c < d->aic_count + d->aiv_count; c++)
        device_slot_quit(device_core_slot_at(d, c));
}

int device_slots_dismiss(const platform_ops *ops, const device_run_desc *d)
{
    int first = 0;
    for (uint32_t c = 0; c < d->aic_count + d->aiv_count; c++) {
        device_core_slot *slot = device_core_slot_at(d, c);
        uint32_t bell = 0;
        int rc = ops->mem_signal(ops->user, (void *)&slot->state, DEVICE_SLOT_QUIT);
        rc = rc ? rc : ops->mem_peek(ops->user, &bell, (const void *)&slot->bell, sizeof(bell));
        rc = rc ? rc : ops->mem_signal(ops->user, (void *)&slot->bell, bell + 1);
        if (first == 0)
            first = rc;
    }
    return first;
}

int device_slot_quitting(device_core_slot *slot)
{
    return atomic_load_explicit(&slot->state, memory_order_acquire) != DEVICE_SLOT_IDLE;
}

uint32_t device_slot_wait(device_core_slot *slot, uint32_t done, uint32_t polls, uint32_t yield_ns)
{
    device_spin spin = DEVICE_SPIN_INIT(yield_ns);
    spin.polls = polls < DEVICE_SPIN_POLLS ? DEVICE_SPIN_POLLS - polls : 0;
    for (;;) {
        uint32_t posted = atomic_load_explicit(&slot->posted, memory_order_acquire);
        if (posted != done)
            return posted;
        if (device_slot_quitting(slot))
            return done;
        if (device_spin_step(&spin))
            continue;
        /* bell first, then the flag, then the re-check: any news stored
         * after the re-check comes with a bell past `bell`. */
        uint32_t bell = atomic_load(&slot->bell);
        atomic_store(&slot->sleeping, 1);
        if (atomic_load(&slot->posted) == done && atomic_load(&slot->state) == DEVICE_SLOT_IDLE)
            device_wait_block(&slot->bell, bell);
        atomic_store(&slot->sleeping, 0);
        spin = (device_spin)DEVICE_SPIN_INIT(yield_ns);
    }
}

int device_slot_await_start(device_core_slot *slot, _Atomic uint32_t *dispatching, uint32_t budget_ns)
{
    device_spin spin = DEVICE_SPIN_INIT(budget_ns);
    /* Yield from the first poll: a pause loop here kept the cores of the
     * launch not yet running off a shared CPU (docs/device.md). */
    spin.polls = DEVICE_SPIN_POLLS;
    for (;;) {
        if (atomic_load_explicit(&slot->posted, memory_order_relaxed) != 0 || device_slot_quitting(slot))
            return 0;
        /* Acquire: the scheduler's first posts come before its release
         * of `dispatching`, so the re-read below sees any made here. */
        if (atomic_load_explicit(dispatching, memory_order_acquire) != 0)
            return atomic_load_explicit(&slot->posted, memory_order_relaxed) == 0;
        if (!device_spin_step(&spin))
            return 0;
    }
}
