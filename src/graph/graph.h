/*
 * graph — a graph built on the host, as the builder leaves it in its
 * scratch: tasks in submission order, their arguments, their predecessor
 * lists, the staged HOST tensors and the heap and temp bytes used. Records
 * use the graph image's types, so writing the image is a copy plus the
 * fan-out lists.
 */
#ifndef SIMPLER_GRAPH_GRAPH_H
#define SIMPLER_GRAPH_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph_image.h"
#include "simpler/task_args.h"

typedef struct graph {
    graph_image_task *tasks;   /* fanout_count: successors so far; fanout_begin: 0, or set by graph_image_write_parts */
    uint32_t task_count;
    uint32_t arg_count;
    graph_image_arg *args;
    graph_image_view *views;   /* the shapes args name, each once as far as the build noticed */
    uint32_t view_count;
    uint32_t *fanin;           /* predecessors of task i at tasks[i].fanin_begin */
    uint8_t *fanin_kind;       /* NULL, or TENSOR_MAP_DEP_* bits of each fanin entry
                                  (graph_scratch_record_kinds) */
    uint32_t edge_count;
    uint32_t staged_count;
    graph_image_staged staged[SIMPLER_MAX_TENSOR_ARGS];
    uint64_t heap_bytes;       /* graph heap used, a multiple of 1024 */
    uint64_t temp_bytes;       /* retained temp used, a multiple of 1024 */
    /* Bit func_id * 2 + core_type is set when some task runs that kernel
     * on that core type, so graph_kernels_check looks each pair up once. */
    uint64_t kernel_uses[GRAPH_FUNC_ID_LIMIT * 2 / 64];
} graph;

/* Bytes of the image of `g`; 0 if it would not fit the format. */
size_t graph_image_size(const graph *g);

/* Writes the image of `g` into `size` bytes at `buf` (8-byte aligned).
 * Returns 0, or PTO_RUNTIME_ERR_INVALID_ARGUMENT when size differs from
 * graph_image_size(g) (nothing written). Allocates nothing. */
int graph_image_write(const graph *g, void *buf, size_t size);

/* The image of `g` in four runs, for an upload that copies each to its
 * offset instead of copying the task and argument records twice:
 * writes the header, staged and view sections (the header's task_offset
 * bytes, which head_bytes must equal) at `head` (8-byte aligned) and the
 * fan-out section (edge_count u32) at `fanout`, and fills the fan-out
 * fields of g's own task records, so that g->tasks and g->args are the
 * task and argument sections as they stand. The image is then head at 0,
 * g->tasks at task_offset, g->args at arg_offset and fanout at
 * fanout_offset (the header's offsets), byte for byte what
 * graph_image_write writes. Returns 0, or PTO_RUNTIME_ERR_INVALID_ARGUMENT
 * (nothing written) for NULL or misaligned buffers, a head_bytes that
 * differs, or a graph the format cannot hold. Allocates nothing. */
int graph_image_write_parts(const graph *g, void *head, size_t head_bytes, uint32_t *fanout);

#endif
