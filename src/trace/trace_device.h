/*
 * trace_device — the one reader of a device trace buffer
 * (device/trace_record.h): copies the header and the records to the host
 * through the platform, decodes them into trace_event, reads the executed
 * graph image back from the definition region for the dependencies (the
 * successor lists the host build wrote), names each task's kernel through
 * the mode's resolver, adds the host spans that lead to this execution,
 * and writes the JSON file (trace_export.h). Both modes export through it.
 */
#ifndef SIMPLER_TRACE_TRACE_DEVICE_H
#define SIMPLER_TRACE_TRACE_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "platform/platform_ops.h"
#include "trace/trace_host.h"

/* The kernel name of func_id in the callable whose kernel table lives at
 * kernels_addr with `generation` (the device header's stamps), or NULL
 * when no resident callable matches or it names none. */
typedef const char *(*trace_device_name_fn)(void *user, uint64_t kernels_addr, uint64_t generation,
                                            int32_t func_id);

/* Where an execution's trace is and what the host adds to it. */
typedef struct trace_device_source {
    const void *trace_base;       /* the trace buffer, trace_bytes long as committed */
    size_t trace_bytes;
    const void *definition_base;  /* the definition region the image was restored to; NULL: no flows */
    size_t definition_bytes;
    int device_id;                /* the trace's process id */
    trace_device_name_fn kernel_name; /* NULL: "func N" */
    void *user;
    const trace_host_log *host;   /* NULL: no host spans */
} trace_device_source;

/* Exports the records of the last execution traced into the buffer to
 * `path`. The count read is min(record_count, capacity, what trace_bytes
 * holds), and 0 when the header carries no trace magic (nothing traced
 * yet). The image is read when the header stamps one that fits the
 * definition region; it gives the flows only when graph_image_check
 * accepts it and its task count is the header's (else the file says the
 * dependencies are unavailable). Host spans are added when `host` is
 * closed and leads to this execution (trace_host.h). The caller has
 * quiesced every stream that ran a traced execution; the copies are
 * synchronous (memcpy_sync), so not during a capture. A failing device
 * call's code is kept in *last_device_error (platform_status_keep).
 * Returns 0; -1005 for NULL arguments, a buffer shorter than its header,
 * or a path that cannot be created or written (with a reason; no partial
 * file is left); -1007 when host memory runs out; -1008 (or -1007) when
 * a copy fails. */
int trace_device_export_source(const platform_ops *ops, const trace_device_source *src, const char *path,
                               int *last_device_error);

/* trace_device_export_source with the buffer only: no image, names or
 * host spans. */
int trace_device_export(const platform_ops *ops, const void *base, size_t bytes, const char *path, int device_id,
                        int *last_device_error);

#endif
