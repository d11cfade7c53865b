/* Futex blocking for the device kernels' handshake. */
#define _GNU_SOURCE
#include "device/device_wait.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void device_wait_block(_Atomic uint32_t *word, uint32_t expected)
{
    /* EAGAIN (the word already changed) and EINTR both mean: re-check. */
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void device_wait_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}
