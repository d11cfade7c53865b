#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "simpler/runtime_c_api.h"

static _Thread_local char reason[SIMPLER_ERROR_REASON_BYTES];

int simpler_fail(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    /* The status table's name is the text before the first ':'. */
    const char *text = simpler_strerror(status);
    const char *colon = strchr(text, ':');
    int name_len = colon != NULL ? (int)(colon - text) : (int)strlen(text);
    simpler_log(SIMPLER_LOG_WARN, "%.*s: %s", name_len, text, reason);
    return status;
}

void simpler_error_clear(void)
{
    reason[0] = '\0';
}

const char *simpler_last_error_message(void)
{
    return reason;
}
