/*
 * graph_status — the status values src/graph returns: the public
 * PTO_RUNTIME_ERR_* codes of SPEC §2.1 under short local names.
 */
#ifndef SIMPLER_GRAPH_STATUS_H
#define SIMPLER_GRAPH_STATUS_H

#include "simpler/runtime_c_api.h"

#define GRAPH_OK PTO_RUNTIME_SUCCESS
#define GRAPH_ERR_INTERNAL PTO_RUNTIME_ERR_INTERNAL
#define GRAPH_ERR_INVALID_STATE PTO_RUNTIME_ERR_INVALID_STATE
#define GRAPH_ERR_CAPACITY_EXCEEDED PTO_RUNTIME_ERR_CAPACITY_EXCEEDED
#define GRAPH_ERR_INVALID_ARGUMENT PTO_RUNTIME_ERR_INVALID_ARGUMENT
#define GRAPH_ERR_OUT_OF_MEMORY PTO_RUNTIME_ERR_OUT_OF_MEMORY

/* Cheap invariant checks, on in every build (CONVENTIONS: the O(n)
 * validators are the optional tier, not these). A failure logs the
 * condition and aborts. */
#define GRAPH_ASSERT(cond)                                                  \
    do {                                                                    \
        if (!(cond))                                                        \
            graph_assert_fail(#cond, __FILE__, __LINE__);                   \
    } while (0)
_Noreturn void graph_assert_fail(const char *cond, const char *file, int line);

/* An orchestration entry may report its own failure with a code in
 * [SIMPLER_DEVICE_ERROR_MIN, SIMPLER_DEVICE_ERROR_MAX]; the build returns
 * it as it is. Any other nonzero return is GRAPH_ERR_INVALID_ARGUMENT. */
static inline int graph_status_of_entry(int entry_rc)
{
    if (entry_rc >= SIMPLER_DEVICE_ERROR_MIN && entry_rc <= SIMPLER_DEVICE_ERROR_MAX)
        return entry_rc;
    return entry_rc == 0 ? GRAPH_OK : GRAPH_ERR_INVALID_ARGUMENT;
}

#endif
