/*
 * context_streams — the context's two engine streams and kernel mode's
 * five chain events, created and released as one unit by both modes.
 */
#ifndef SIMPLER_CONTEXT_CONTEXT_STREAMS_H
#define SIMPLER_CONTEXT_CONTEXT_STREAMS_H

#include "context/context_internal.h"

/* Creates the AICPU and AICORE streams on the current device, and the
 * five chain events when `with_events` (kernel mode; program mode orders
 * its two streams by synchronizing them, so its chain records none, and
 * it has no CALLER stream: kernel mode borrows its caller's). Returns 0; -1007/-1008 when a creation fails, after destroying
 * what it created (every slot NULL again). If that unwind itself fails,
 * the handles it could not destroy stay in their slots for
 * context_streams_release to retry. */
int context_streams_create(simpler_context *ctx, int with_events);

/* Destroys every event, then every stream, nulling each slot it destroys.
 * Returns 0, or the first failure's status; the slots that failed keep
 * their handles so a retry redoes only what remains. */
int context_streams_release(simpler_context *ctx);

#endif
