/* Device code to runtime status mapping. */
#include "platform/platform_status.h"

#include <simpler/simdev.h>

_Static_assert(PLATFORM_ERROR_INVALID_PARAM == SIMDEV_ERROR_INVALID_PARAM, "the platform numbering is simdev's");
_Static_assert(PLATFORM_ERROR_MEMORY_ALLOCATION == SIMDEV_ERROR_MEMORY_ALLOCATION,
               "the platform numbering is simdev's");

/* reason: the callers' (context_device_status names the call and the
 * code; the memory module names the region) */
int platform_status(int device_code)
{
    if (device_code == SIMDEV_SUCCESS)
        return 0;
    if (device_code == SIMDEV_ERROR_MEMORY_ALLOCATION)
        return PTO_RUNTIME_ERR_OUT_OF_MEMORY; /* reason: the caller's */
    return PTO_RUNTIME_ERR_DEVICE;            /* reason: the caller's */
}

const char *platform_error_name(int device_code)
{
    return simdev_error_name(device_code);
}

int platform_status_keep(int *last_device_error, int device_code)
{
    if (device_code != SIMDEV_SUCCESS && last_device_error != NULL)
        *last_device_error = device_code;
    return platform_status(device_code);
}
