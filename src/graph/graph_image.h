/*
 * graph_image — the built graph as one contiguous, position-independent
 * blob of plain data (offsets, never pointers), little endian. The device
 * side validates it with graph_image_check before consuming it.
 *
 * Layout (canonical packing; every offset is fixed by the counts):
 *   header   96 bytes                      at 0
 *   staged   staged_count x 32 bytes       at staged_offset = 96
 *   views    view_count   x 56 bytes       at view_offset
 *   tasks    task_count   x 32 bytes       at task_offset
 *   args     arg_count    x 32 bytes       at arg_offset
 *   fan-out  edge_count   x u32            at fanout_offset
 *   end                                    image_bytes
 * Tasks carry fan-in counts, not predecessor lists: the device needs the
 * counts to seed and the successor lists to release. A tensor argument
 * names its shape (dtype, dims, strides) by index in the view table,
 * which holds each distinct shape once: most graphs use a handful.
 * docs/graph.md has the byte tables.
 */
#ifndef SIMPLER_GRAPH_IMAGE_H
#define SIMPLER_GRAPH_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "simpler/task_args.h"

#define GRAPH_IMAGE_MAGIC 0x48504753u /* "SGPH" read as little-endian bytes */
#define GRAPH_IMAGE_VERSION 4u
/* A task's func_id is below this (a callable's children have func_ids below 1024). */
#define GRAPH_FUNC_ID_LIMIT 1024

/* graph_image_arg.kind */
#define GRAPH_ARG_TENSOR 1
#define GRAPH_ARG_SCALAR 2
/* graph_image_arg.addr_kind: how the device turns addr into an address. */
#define GRAPH_ADDR_DEVICE 1 /* a caller device address, used as it is */
#define GRAPH_ADDR_HEAP 2   /* an offset into the graph heap */
#define GRAPH_ADDR_STAGED 3 /* an offset into the retained temp region */
/* graph_image_staged.flags */
#define GRAPH_STAGED_READ 1u    /* copy host -> device before the graph runs */
#define GRAPH_STAGED_WRITTEN 2u /* copy device -> host after it */

typedef struct graph_image_header {
    uint32_t magic;
    uint32_t version;
    uint32_t header_bytes;  /* sizeof(graph_image_header) */
    uint32_t view_count;
    uint64_t image_bytes;   /* the whole blob */
    uint64_t heap_bytes;    /* graph heap the intermediates need, 1024 multiple */
    uint64_t temp_bytes;    /* retained temp the staged tensors need, 1024 multiple */
    uint32_t task_count;
    uint32_t arg_count;
    uint32_t edge_count;
    uint32_t staged_count;
    uint32_t task_offset;
    uint32_t arg_offset;
    uint32_t fanout_offset;
    uint32_t view_offset;
    uint32_t staged_offset;
    uint32_t reserved1;
    uint32_t chain_heads[2]; /* by core type (SIMPLER_CORE_TYPE_*): its tasks less its chain links */
    uint64_t reserved;
} graph_image_header;

/* A caller HOST tensor copied into the retained temp region. */
typedef struct graph_image_staged {
    uint32_t caller_index;  /* index into the call's tensors, increasing */
    uint32_t flags;         /* GRAPH_STAGED_* */
    uint64_t temp_offset;   /* 1024-aligned */
    uint64_t bytes;         /* the caller tensor's buffer_bytes */
    uint64_t reserved;
} graph_image_staged;

typedef struct graph_image_task {
    int32_t func_id;
    uint32_t core_type;     /* SIMPLER_CORE_TYPE_AIC / _AIV */
    uint32_t arg_begin;     /* args of task i follow those of task i-1 */
    uint32_t arg_count;
    uint32_t fanin_begin;   /* fan-in counts of the tasks before this one, summed */
    uint32_t fanin_count;   /* predecessors: tasks naming this one a successor */
    uint32_t fanout_begin;  /* successors, increasing, all > this id */
    uint32_t fanout_count;
} graph_image_task;

/* The shape of a tensor view, shared by every argument naming it. */
typedef struct graph_image_view {
    uint8_t dtype;          /* SIMPLER_DTYPE_* */
    uint8_t reserved[3];
    uint32_t ndims;         /* 1..5 */
    uint64_t extent;        /* elements from the first to the last, inclusive */
    uint32_t shapes[SIMPLER_MAX_TENSOR_DIMS];
    uint32_t strides[SIMPLER_MAX_TENSOR_DIMS];
} graph_image_view;

/* One argument of a task, in the order the orchestration added them. */
typedef struct graph_image_arg {
    uint8_t kind;           /* GRAPH_ARG_* */
    uint8_t tag;            /* SIMPLER_TAG_* (tensors), 0 (scalars) */
    uint8_t addr_kind;      /* GRAPH_ADDR_* (tensors), 0 (scalars) */
    uint8_t staged_index;   /* GRAPH_ADDR_STAGED: its staged entry (< 256); else 0 */
    uint32_t view;          /* tensors: index into the views; scalars 0 */
    uint64_t addr;          /* buffer start in its addr_kind; scalar value */
    uint64_t buffer_bytes;  /* tensors; scalars 0 */
    uint64_t start_offset;  /* elements; scalars 0 */
} graph_image_arg;

_Static_assert(sizeof(graph_image_header) == 96, "graph image header layout");
_Static_assert(offsetof(graph_image_header, task_count) == 40, "graph image header layout");
_Static_assert(offsetof(graph_image_header, fanout_offset) == 64, "graph image header layout");
_Static_assert(offsetof(graph_image_header, staged_offset) == 72, "graph image header layout");
_Static_assert(offsetof(graph_image_header, chain_heads) == 80, "graph image header layout");
_Static_assert(sizeof(graph_image_staged) == 32, "graph image staged layout");
_Static_assert(sizeof(graph_image_task) == 32, "graph image task layout");
_Static_assert(sizeof(graph_image_view) == 56, "graph image view layout");
_Static_assert(offsetof(graph_image_view, shapes) == 16, "graph image view layout");
_Static_assert(sizeof(graph_image_arg) == 32, "graph image arg layout");
_Static_assert(offsetof(graph_image_arg, addr) == 8, "graph image arg layout");
_Static_assert(SIMPLER_MAX_TENSOR_ARGS <= 256, "a staged index fits a byte");

/* The chain rule, the one definition of it: task `p` and its successor
 * `n` are linked when `n` is p's only successor, p is n's only
 * predecessor, and both run on the same core type. The scheduler runs a
 * link's successor on the core right behind its predecessor.
 *
 * Links split a core type's tasks into paths that run one task after
 * another, so no more of a type's tasks can ever run at once than it has
 * paths: its tasks less its links, the chain heads the image writer
 * counts into the header (chain_heads) and graph_image_check recounts. */
static inline int graph_image_chain_link(const graph_image_task *p, const graph_image_task *n)
{
    return p->fanout_count == 1 && n->fanin_count == 1 && n->core_type == p->core_type;
}

/* The task linked behind task `id` (graph_image_chain_link), + 1; 0 for
 * none. `tasks` and `fanout` are an image's tables; `id`'s fan-out entry
 * must lie inside them (a checked image, or one checked up to `id`). */
static inline uint32_t graph_image_chain_next(const graph_image_task *tasks, const uint32_t *fanout, uint32_t id)
{
    const graph_image_task *t = &tasks[id];
    if (t->fanout_count != 1)
        return 0;
    uint32_t next = fanout[t->fanout_begin];
    return graph_image_chain_link(t, &tasks[next]) ? next + 1 : 0;
}

/* The canonical size and section offsets for the given counts. Returns 0,
 * or PTO_RUNTIME_ERR_INVALID_ARGUMENT when an offset would not fit 32 bits. */
int graph_image_layout(uint32_t task_count, uint32_t arg_count, uint32_t edge_count, uint32_t staged_count,
                       uint32_t view_count, graph_image_header *out);

/* Validates `size` bytes at `image` (8-byte aligned): header fields,
 * canonical layout, every record's ranges and reserved words (views no
 * more than arguments, each view's extent recomputed), fan-out
 * lists that only go from lower to higher task ids (acyclic by
 * construction) without repeats, every fan-in count equal to the
 * number of tasks naming the task a successor, and the header's chain
 * heads equal to the count graph_image_chain_next gives. Reads the image only; uses
 * `scratch` (scratch_count u32, one per task) to count. On 0, scratch[i]
 * holds graph_image_chain_next for task i (the scheduler seeds from it);
 * otherwise its contents are unspecified. An image of more than scratch_count tasks is
 * refused. Returns 0 or PTO_RUNTIME_ERR_INVALID_ARGUMENT (-1005). O(size). */
int graph_image_check(const void *image, size_t size, uint32_t *scratch, uint32_t scratch_count);

#endif
