/*
 * context — the helpers every context entry point shares: handle checks,
 * the lock, the execution-mode latch, device-status bookkeeping and the
 * test hook that swaps the platform table.
 */
#ifndef SIMPLER_CONTEXT_CONTEXT_H
#define SIMPLER_CONTEXT_CONTEXT_H

#include "context/context_internal.h"

/* The context behind a handle (NULL for NULL), locked. Every entry point
 * starts with it and ends with context_unlock, which also restores the
 * calling thread's current device if context_select_device changed it. */
simpler_context *context_lock(DeviceContextHandle handle);
void context_unlock(simpler_context *ctx);

/* Latches the mode whose table is `mode` (program_mode_ops or
 * kernel_mode_ops), installing the table. Returns 0 when the context had
 * no mode (now `mode`) or already held it (a no-op);
 * PTO_RUNTIME_ERR_INVALID_STATE when it holds the other mode (unchanged).
 * Caller holds the lock. */
int context_latch(simpler_context *ctx, const context_mode_ops *mode);

/* The latch's answer; every kernel guard asks this, never compares modes. */
int context_is_kernel(const simpler_context *ctx);
int context_is_program(const simpler_context *ctx);

/* The latched mode's state when the context holds `mode`
 * (CONTEXT_MODE_*), else NULL. */
void *context_mode_state(const simpler_context *ctx, int mode);

/* Maps a device code to a status (platform_status) and keeps a failing
 * code as the context's last device error, logging the call that failed. */
int context_device_status(simpler_context *ctx, const char *what, int device_code);

/* Nonzero while the context has a device and resources on it (the mode
 * table's answer; 0 before any latch). */
int context_holds_resources(const simpler_context *ctx);

/* Selects the context's device on the calling thread (simdev's current
 * device is per thread), first noting the thread's current device, which
 * context_unlock restores: an entry point never leaves its caller
 * switched to the context's device. Returns 0 or the mapped status. */
int context_select_device(simpler_context *ctx);

/* CallConfig.aicore_count (0 = all) split over AIC and AIV, the one rule
 * of both modes: in the device's proportion, keeping one core of each
 * type the device has whenever the count allows (one AIC core first),
 * each type capped by the device's cores and both by DEVICE_CORE_MAX. */
void context_cores_split(const simpler_context *ctx, uint32_t aicore_count, uint32_t *aic, uint32_t *aiv);

/* Test hook: makes the context call the device through `ops` (NULL
 * restores platform_ops_simdev()). Only while nothing is created (before
 * init, or after a program context's finalize: a closed kernel context
 * still holds its device); returns -1003 otherwise, -1005 for NULL ctx.
 * `ops` must outlive the context's use of it. */
int context_set_platform_ops(DeviceContextHandle handle, const platform_ops *ops);

/* The last device error slot (0 = none), for tests. */
int context_last_device_error(DeviceContextHandle handle);

#endif
