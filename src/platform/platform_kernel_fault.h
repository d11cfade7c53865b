/*
 * platform_kernel_fault — how a device-side body fails its own launch.
 *
 * A kernel body (the device executor or scheduler) that detects an error
 * calls a platform_fault_fn with a nonzero device code; the launch then
 * fails and its stream reports the code on the next synchronize or query
 * (for simdev, simdev_kernel_report_fault). The runtime passes the
 * function to the device by value inside a run descriptor, so it must be
 * a plain function valid for the life of the process; tests substitute
 * their own.
 */
#ifndef SIMPLER_PLATFORM_KERNEL_FAULT_H
#define SIMPLER_PLATFORM_KERNEL_FAULT_H

/* Returns 0, or a device code when called outside a kernel body. */
typedef int (*platform_fault_fn)(int code);

/* The code device-side bodies report: simdev's SIMDEV_ERROR_KERNEL_FAULT,
 * which platform_status maps to a runtime status. */
#define PLATFORM_KERNEL_FAULT_CODE 507000

/* The simdev implementation: forwards to simdev_kernel_report_fault. */
int platform_kernel_report_fault(int code);

#endif
