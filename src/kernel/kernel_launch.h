/*
 * kernel_launch — the steps simpler_kernel_mode_launch shares with the
 * argument-slot entries (kernel_arg_slots.c): the checks, the host build
 * against the frozen capacity, the packet's serialization and the
 * chain's enqueue. Every step runs under the context lock and allocates,
 * frees, synchronizes, creates and capture-queries nothing.
 */
#ifndef SIMPLER_KERNEL_KERNEL_LAUNCH_H
#define SIMPLER_KERNEL_KERNEL_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "context/context.h"
#include "graph/graph_build.h"
#include "kernel/kernel_state.h"
#include "platform/platform_launch_ops.h"

/* One call's resident callable and built graph. */
typedef struct launch_call {
    const loaded_callable *callable;
    kernel_slot_record *slot;
    uint64_t generation;
    const graph *g;
    size_t image_bytes;
    size_t staged_bytes;
} launch_call;

/* Kernel context, ReadyEnqueued (after observing the sticky device
 * word), args and stream non-NULL, id resident, counts matching its
 * signature. 0 or the documented status; nothing changes. */
int kernel_launch_check(simpler_context *ctx, int32_t id, const ChipStorageTaskArgs *args, void *caller,
                        launch_call *call);

/* The stream-switch rule: the same caller stream as the last chain needs
 * no query; another one is refused (-1002) while the last SerialTail is
 * pending. */
int kernel_stream_switch_check(const platform_launch_ops *ops, simpler_context *ctx, kernel_state *ks,
                               platform_stream *caller);

/* Builds the graph in the context's scratch, runs `graph_check` on it
 * (may be NULL; its nonzero status is returned) and checks every region
 * against the frozen capacity (-1004). */
int kernel_launch_build(simpler_context *ctx, kernel_state *ks, const ChipStorageTaskArgs *args, launch_call *call,
                        int (*graph_check)(const launch_call *call));

/* Serializes the argument block (descriptor, invocation header, graph
 * packet, image, staged HOST bytes; device/kernel_packet.h) at `dst`
 * (8-aligned, packet_capacity bytes). Returns its size. */
size_t kernel_packet_write(const simpler_context *ctx, const kernel_state *ks, int32_t id, const launch_call *call,
                           const ChipStorageTaskArgs *args, void *dst);

/* Enqueues one execution's chain on `caller`: sched_fn with the
 * sched_bytes at ks->packet, the status check, the HOST copy-backs of
 * `call` (none when call is NULL) and SerialTail. Returns 0, or the
 * mapped device status (-1008); a failure after the first enqueue
 * poisons the context. */
int kernel_chain_enqueue(simpler_context *ctx, kernel_state *ks, const platform_launch_ops *ops,
                         platform_kernel_fn sched_fn, size_t sched_bytes, const launch_call *call,
                         const ChipStorageTaskArgs *args, platform_stream *caller);

#endif
