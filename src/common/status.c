/* simpler_strerror: names and messages generated from the one status table
 * in runtime_c_api.h. */
#include "simpler/runtime_c_api.h"

#define STATUS_STRING_ENTRY(name, value, message) {value, #name ": " message},

static const struct {
    int code;
    const char *text;
} status_strings[] = {SIMPLER_STATUS_TABLE(STATUS_STRING_ENTRY)};

const char *simpler_strerror(int code)
{
    for (size_t i = 0; i < sizeof status_strings / sizeof status_strings[0]; i++) {
        if (status_strings[i].code == code)
            return status_strings[i].text;
    }
    if (code >= SIMPLER_DEVICE_ERROR_MIN && code <= SIMPLER_DEVICE_ERROR_MAX)
        return "PTO_DEVICE_ERROR: error latched on the device or returned by the orchestration";
    return "PTO_RUNTIME_ERR_UNKNOWN: unknown status code";
}
