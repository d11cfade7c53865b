/* Futex blocking for the device kernels' handshake. */
#define _GNU_SOURCE
#include "device/device_wait.h"

#include "common/clock.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

uint64_t device_now_ns(void)
{
    return clock_now_ns();
}

int device_spin_step(device_spin *spin)
{
    if (spin->polls < DEVICE_SPIN_POLLS) {
        spin->polls++;
        device_wait_relax();
        return 1;
    }
    if (spin->yield_ns == 0)
        return 0;
    uint64_t now = device_now_ns();
    if (spin->yield_until_ns == 0)
        spin->yield_until_ns = now + spin->yield_ns;
    if (now >= spin->yield_until_ns)
        return 0;
    sched_yield();
    return 1;
}

#ifdef SIMPLER_VERIFY
void (*device_wait_before_block)(_Atomic uint32_t *word, uint32_t expected);
#endif

void device_wait_block(_Atomic uint32_t *word, uint32_t expected)
{
#ifdef SIMPLER_VERIFY
    if (device_wait_before_block != NULL)
        device_wait_before_block(word, expected);
#endif
    /* EAGAIN (the word already changed) and EINTR both mean: re-check. */
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void device_wait_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}
