/*
 * trace_device — the one reader of a device trace buffer
 * (device/trace_record.h): copies the header and the records to the host
 * through the platform, decodes them into trace_event, and writes the
 * JSON file (trace_export.h). Both modes export through it.
 */
#ifndef SIMPLER_TRACE_TRACE_DEVICE_H
#define SIMPLER_TRACE_TRACE_DEVICE_H

#include <stddef.h>

#include "platform/platform_ops.h"

/* Exports the records of the last execution traced into the device
 * buffer at `base` (`bytes` long, as committed) to `path`, with
 * `device_id` as the trace's process id. The count read is
 * min(record_count, capacity, what `bytes` holds), and 0 when the header
 * carries no trace magic (nothing traced yet). The caller has quiesced
 * every stream that ran a traced execution; the copies are synchronous
 * (memcpy_sync), so not during a capture. A failing device call's code
 * is kept in *last_device_error (platform_status_keep).
 * Returns 0; -1005 for NULL arguments, a buffer shorter than its header,
 * or a path that cannot be created or written (logged; no partial file
 * is left); -1007 when host memory runs out; -1008 (or -1007) when a
 * copy fails. */
int trace_device_export(const platform_ops *ops, const void *base, size_t bytes, const char *path, int device_id,
                        int *last_device_error);

#endif
