/* The refusal-reason contract, checked after any simpler call: a call
 * that returned 0 leaves "" as the reason, and one that refused leaves a
 * one-line reason (docs/architecture.md, "Refusal reasons"). */
#ifndef SIMPLER_TEST_REASON_CHECK_H
#define SIMPLER_TEST_REASON_CHECK_H

#include <string.h>

#include "support.h"

#include "simpler/runtime_c_api.h"

static inline void assert_reason_fits_status(int rc)
{
    const char *why = simpler_last_error_message();
    if (rc == 0 && why[0] != '\0')
        fail_msg("the call succeeded but left the reason \"%s\"", why);
    if (rc != 0 && why[0] == '\0')
        fail_msg("status %d (%s) without a reason", rc, simpler_strerror(rc));
    if (strchr(why, '\n') != NULL)
        fail_msg("the reason \"%s\" is not one line", why);
}

#endif
