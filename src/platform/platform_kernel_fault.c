/* Kernel-side fault reporting over simdev. */
#include "platform/platform_kernel_fault.h"

#include "simpler/simdev.h"

_Static_assert(PLATFORM_KERNEL_FAULT_CODE == SIMDEV_ERROR_KERNEL_FAULT, "the fault code is simdev's");

int platform_kernel_report_fault(int code)
{
    return simdev_kernel_report_fault(code);
}
