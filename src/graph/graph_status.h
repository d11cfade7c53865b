/*
 * graph_status — the invariant assertion of src/graph and the status an
 * orchestration entry's return becomes. src/graph returns the public
 * PTO_RUNTIME_ERR_* codes under their own names.
 */
#ifndef SIMPLER_GRAPH_STATUS_H
#define SIMPLER_GRAPH_STATUS_H

#include "common/log.h"
#include "simpler/runtime_c_api.h"

/* Cheap invariant checks, on in every build (the O(n) validators that
 * SIMPLER_VERIFY compiles are the optional tier, not these). A failure logs the
 * condition and aborts. */
#define GRAPH_ASSERT(cond)                                                  \
    do {                                                                    \
        if (!(cond))                                                        \
            simpler_log_assert_fail("graph", #cond, __FILE__, __LINE__);    \
    } while (0)

/* An orchestration entry may report its own failure with a code in
 * [SIMPLER_DEVICE_ERROR_MIN, SIMPLER_DEVICE_ERROR_MAX]; the build returns
 * it as it is. Any other nonzero return is PTO_RUNTIME_ERR_INVALID_ARGUMENT. */
static inline int graph_status_of_entry(int entry_rc)
{
    if (entry_rc >= SIMPLER_DEVICE_ERROR_MIN && entry_rc <= SIMPLER_DEVICE_ERROR_MAX)
        return entry_rc;
    /* reason: the caller's (graph_build_from_checked names entry_rc) */
    return entry_rc == 0 ? 0 : PTO_RUNTIME_ERR_INVALID_ARGUMENT;
}

#endif
