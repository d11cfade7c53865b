/*
 * program_run — the steps of one program-mode simpler_run after
 * validation, each in its own file. Callers hold the context lock and
 * have selected the context's device.
 */
#ifndef SIMPLER_PROGRAM_PROGRAM_RUN_H
#define SIMPLER_PROGRAM_PROGRAM_RUN_H

#include "common/clock.h"
#include "program/program.h"
#include "device/device_kernel_table.h"
#include "device/device_run_desc.h"
#include "graph/graph.h"
#include "graph/requirements.h"
#include "simpler/task_args.h"

/* Builds the graph of `entry` on `args` in the context's scratch, sized
 * for at least `task_window` tasks and doubled (up to
 * PROGRAM_REGROW_WINDOW_MAX) while the build runs out of room. Returns 0
 * and sets *out, or the build's status (-1005, -1004 past the largest
 * window, -1007, or the orchestration's own -1..-999). */
int program_build(simpler_context *ctx, SimplerOrchEntryFn entry, const ChipStorageTaskArgs *args,
                  uint32_t task_window, const graph **out);

/* Writes the image of `g` (graph_image_write_parts): its head and
 * fan-out lists into the context's host image buffer (grown as needed),
 * the fan-out fields into g's task records; sets *bytes to the whole
 * image's size. Returns 0, -1007, or -1000 (logged) when the graph does
 * not fit the image format. */
int program_image_write(simpler_context *ctx, const graph *g, size_t *bytes);

/* Copies the image program_image_write wrote for `g` to the definition
 * region at `definition_base`: the host buffer's head, g's task and
 * argument records and the host buffer's fan-out lists, each to its
 * offset. Returns 0 or the copy's status (-1007/-1008). */
int program_image_upload(simpler_context *ctx, const graph *g, uint64_t definition_base);

/* Makes the trace buffer hold `task_count` records (re-based when
 * smaller). Returns 0 or the allocation's status. */
int program_trace_reserve(simpler_context *ctx, uint32_t task_count);

/* Fills the run descriptor from the committed capacity. Returns 0 or
 * -1000 (logged) when a region cannot hold what the graph needs. */
/* The AIC and AIV cores a run with `config` gets (CallConfig.aicore_count
 * split in the device's proportion). */
void program_cores_split(const simpler_context *ctx, const CallConfig *config, uint32_t *aic, uint32_t *aiv);

int program_desc_fill(simpler_context *ctx, const SimplerGraphRequirements *req, const device_kernel_table *table,
                      const CallConfig *config, size_t image_bytes, device_run_desc *desc);

/* Copies the HOST tensors the graph reads into the retained temp buffer,
 * and (stage_out) those it writes back to the caller's memory. Return 0 or
 * the copy's status. */
int program_stage_in(simpler_context *ctx, const graph *g, const ChipStorageTaskArgs *args);
int program_stage_out(simpler_context *ctx, const graph *g, const ChipStorageTaskArgs *args);

/* Uploads g's image (program_image_upload), runs the chain on the context's streams, waits and
 * reads the status word. Returns 0, the device status (-1..-999), or
 * -1007/-1008 when a device call failed (the context's streams are left
 * idle and usable either way). */
int program_execute(simpler_context *ctx, const graph *g, const device_run_desc *desc);

/* Logs the host spans of the run that just finished (trace_host.h):
 * build [start, built], upload, launch and wait from the execute's marks,
 * copy back [waited, finished]. */
void program_trace_spans(simpler_context *ctx, uint64_t start, uint64_t built, uint64_t finished);

/* Exports the trace of the run that just finished (the device records,
 * the image in desc's definition region, callable `id`'s kernel names and
 * the host spans) to "<config->output_prefix>trace.json". Returns 0 or
 * the failing step's status. */
int program_trace_export(simpler_context *ctx, const CallConfig *config, const device_run_desc *desc, int32_t id);

/* Before a traced run: the trace file "<output_prefix>trace.json" can be
 * written (its directory exists and is writable; an existing file there
 * is a writable regular file). Returns 0, or PTO_RUNTIME_ERR_INVALID_ARGUMENT
 * with a reason naming the path. Reads only. */
int program_trace_path_check(const CallConfig *config);

#endif
