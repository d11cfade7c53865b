/*
 * platform_launch_ops — the restricted vocabulary of the kernel-mode launch
 * path.
 *
 * A kernel-mode launch may only enqueue work on streams: it must never
 * allocate, free, synchronize, create or destroy a stream or event, or ask
 * whether a stream is capturing (any of those would break a captured
 * replay). This table holds exactly the entries a launch may use, so a
 * forbidden call cannot even be written on that path: the enqueue entries
 * (memcpy_async, memset_async, event_record, stream_wait_event,
 * launch_kernel) and event_query, which launch uses only for the
 * stream-switch rule (a different caller stream while the previous
 * launch's SerialTail is pending is refused).
 *
 * Entries behave as the platform_ops entries they are copied from.
 */
#ifndef SIMPLER_PLATFORM_LAUNCH_OPS_H
#define SIMPLER_PLATFORM_LAUNCH_OPS_H

#include "platform/platform_ops.h"

typedef struct platform_launch_ops {
    void *user; /* the source table's user pointer */
    int (*memcpy_async)(void *user, void *dst, const void *src, size_t size, platform_stream *stream);
    int (*memset_async)(void *user, void *dev_ptr, int value, size_t size, platform_stream *stream);
    int (*event_record)(void *user, platform_event *event, platform_stream *stream);
    int (*stream_wait_event)(void *user, platform_stream *stream, platform_event *event);
    int (*launch_kernel)(void *user, platform_stream *stream, int engine, platform_kernel_fn fn,
                         uint32_t block_dim, const void *args, size_t args_size);
    int (*event_query)(void *user, platform_event *event);
} platform_launch_ops;

/* The number of entries above, and their names in declaration order (for
 * tests and diagnostics). A static assertion ties the count to the size of
 * the struct, so adding an entry without updating this list fails to
 * compile. */
#define PLATFORM_LAUNCH_OPS_ENTRY_COUNT 6
extern const char *const platform_launch_ops_entry_names[PLATFORM_LAUNCH_OPS_ENTRY_COUNT];

/* Fills *out from `ops` (both non-NULL): the same user pointer and the same
 * six function pointers. Nothing else of `ops` is reachable from *out.
 * `ops`'s user state must outlive *out. */
void platform_launch_ops_derive(const platform_ops *ops, platform_launch_ops *out);

#endif
