/*
 * context_streams — the context's streams and the five chain events,
 * created and released as one unit by both modes.
 */
#ifndef SIMPLER_CONTEXT_CONTEXT_STREAMS_H
#define SIMPLER_CONTEXT_CONTEXT_STREAMS_H

#include "context/context_internal.h"

/* Creates the AICPU and AICORE streams, the CALLER stream when
 * `with_caller` (program mode), and the five events, on the current
 * device. Returns 0; -1007/-1008 when a creation fails, after destroying
 * what it created (every slot NULL again). If that unwind itself fails,
 * the handles it could not destroy stay in their slots for
 * context_streams_release to retry. */
int context_streams_create(simpler_context *ctx, int with_caller);

/* Destroys every event, then every stream, nulling each slot it destroys.
 * Returns 0, or the first failure's status; the slots that failed keep
 * their handles so a retry redoes only what remains. */
int context_streams_release(simpler_context *ctx);

#endif
