/*
 * kernel_trace — exports the trace records of a kernel context's last
 * execution (SPEC §8). Kernel mode sizes the trace buffer once at init
 * (CONFIGURE trace_records, or CallConfig.trace), so it never re-bases;
 * every execution overwrites it. Internal: the CLI links the static
 * library and calls it after synchronizing its stream.
 */
#ifndef SIMPLER_CONTEXT_KERNEL_TRACE_H
#define SIMPLER_CONTEXT_KERNEL_TRACE_H

#include "simpler/runtime_c_api.h"

/* Writes Chrome/Perfetto JSON of the last execution's records to `path`.
 * The caller has quiesced every stream that ran a launch. Returns 0;
 * -1005 for NULL; -1003 for a context not in KERNEL mode, not
 * initialized or without a trace buffer; -1007/-1008 when reading or
 * writing fails. */
int kernel_trace_export(DeviceContextHandle ctx, const char *path);

#endif
