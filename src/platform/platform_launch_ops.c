/* Deriving the restricted launch table from a full platform table. */
#include "platform/platform_launch_ops.h"

#include <stddef.h>

/* The struct is a user pointer followed by exactly the listed entries: an
 * extra member (a synchronize, an allocate...) changes its size and stops
 * the build here. */
_Static_assert(sizeof(platform_launch_ops) ==
                   sizeof(void *) + PLATFORM_LAUNCH_OPS_ENTRY_COUNT * sizeof(int (*)(void *)),
               "platform_launch_ops holds only the allowed entries");
_Static_assert(offsetof(platform_launch_ops, event_query) ==
                   sizeof(void *) + (PLATFORM_LAUNCH_OPS_ENTRY_COUNT - 1) * sizeof(int (*)(void *)),
               "event_query is the last entry");

const char *const platform_launch_ops_entry_names[PLATFORM_LAUNCH_OPS_ENTRY_COUNT] = {
    "memcpy_async", "memset_async", "event_record", "stream_wait_event", "launch_kernel", "event_query",
};

void platform_launch_ops_derive(const platform_ops *ops, platform_launch_ops *out)
{
    out->user = ops->user;
    out->memcpy_async = ops->memcpy_async;
    out->memset_async = ops->memset_async;
    out->event_record = ops->event_record;
    out->stream_wait_event = ops->stream_wait_event;
    out->launch_kernel = ops->launch_kernel;
    out->event_query = ops->event_query;
}
