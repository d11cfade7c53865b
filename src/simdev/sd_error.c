/* The one table of simdev status codes and their stable names. */
#include <stddef.h>

#include "simpler/simdev.h"

struct code_name {
    int code;
    const char *name;
};

#define CODE(c) {c, #c}
static const struct code_name table[] = {
    CODE(SIMDEV_SUCCESS),
    CODE(SIMDEV_ERROR_INVALID_PARAM),
    CODE(SIMDEV_ERROR_INVALID_DEVICE),
    CODE(SIMDEV_ERROR_INVALID_HANDLE),
    CODE(SIMDEV_ERROR_CAPTURE_DEPENDENCY),
    CODE(SIMDEV_ERROR_STREAM_UNJOINED),
    CODE(SIMDEV_ERROR_STREAM_CAPTURED),
    CODE(SIMDEV_ERROR_EVENT_CAPTURED),
    CODE(SIMDEV_ERROR_CAPTURE_MODE_NOT_SUPPORT),
    CODE(SIMDEV_ERROR_STREAM_CAPTURE_CONFLICT),
    CODE(SIMDEV_ERROR_STREAM_CAPTURE_UNMATCHED),
    CODE(SIMDEV_ERROR_STREAM_CAPTURE_WRONG_THREAD),
    CODE(SIMDEV_ERROR_REPEAT_INITIALIZE),
    CODE(SIMDEV_ERROR_NOT_READY),
    CODE(SIMDEV_ERROR_MEMORY_ALLOCATION),
    CODE(SIMDEV_ERROR_KERNEL_FAULT),
    CODE(SIMDEV_ERROR_STREAM_CAPTURE_INVALIDATED),
};
#undef CODE

const char *simdev_error_name(int code)
{
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (table[i].code == code)
            return table[i].name;
    return "SIMDEV_ERROR_UNKNOWN";
}
