/*
 * platform_status — turning device codes into runtime statuses.
 *
 * Platform entries return device codes (simdev numbering). The runtime's
 * callers see PTO_RUNTIME_ERR_* statuses: an allocation
 * failure is PTO_RUNTIME_ERR_OUT_OF_MEMORY, every other device failure is
 * PTO_RUNTIME_ERR_DEVICE. The device code itself is not lost: each context
 * keeps a "last device error" slot (an int, 0 = none), written by
 * platform_status_keep() whenever a device call of that context fails, so a
 * caller who got PTO_RUNTIME_ERR_DEVICE can learn which device code caused
 * it (the device code is logged and kept as the context's last device
 * error). The slot belongs to the context and is protected by the
 * context's own lock; these helpers take no lock.
 */
#ifndef SIMPLER_PLATFORM_STATUS_H
#define SIMPLER_PLATFORM_STATUS_H

#include <simpler/runtime_c_api.h>

/* The device codes the runtime itself produces or tests for, in the
 * platform's numbering (platform_status.c ties them to simdev's). */
#define PLATFORM_ERROR_INVALID_PARAM 107000
#define PLATFORM_ERROR_MEMORY_ALLOCATION 207001

/* 0 -> 0; SIMDEV_ERROR_MEMORY_ALLOCATION -> PTO_RUNTIME_ERR_OUT_OF_MEMORY;
 * any other nonzero code -> PTO_RUNTIME_ERR_DEVICE. Pure. */
int platform_status(int device_code);

/* The device's name for `device_code` (SIMDEV_ERROR_*); never NULL. */
const char *platform_error_name(int device_code);

/* As platform_status(), and when device_code is nonzero and
 * last_device_error is non-NULL, stores device_code there (the latest
 * failure wins; a success leaves the slot alone). */
int platform_status_keep(int *last_device_error, int device_code);

#endif
