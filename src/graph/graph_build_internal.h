/*
 * graph_build_internal — the scratch a build runs on, shared by
 * graph_scratch.c (lifetime), graph_build.c (a run) and graph_orch.c (the
 * ops an orchestration calls).
 */
#ifndef SIMPLER_GRAPH_BUILD_INTERNAL_H
#define SIMPLER_GRAPH_BUILD_INTERNAL_H

#include "graph/graph_build.h"
#include "graph/tensor_map.h"

#include <stddef.h>

/* Slots of the cache that finds an argument's view among those already
 * in the graph (direct mapped: a view whose slot was taken by another is
 * stored again, which costs image bytes, never correctness). */
#define GRAPH_VIEW_CACHE 256u

/* The tensor bytes one argument of the open task touches, worked out
 * when it is added, so that submit feeds the TensorMap without looking at
 * the argument again. */
typedef struct graph_access {
    uint64_t lo, hi;
    uint32_t space;   /* TensorMap address space */
    uint32_t mode;    /* GRAPH_ACCESS_* bits; 0 for NO_DEP and scalars */
} graph_access;
#define GRAPH_ACCESS_READ 1u
#define GRAPH_ACCESS_WRITE 2u

/* The bytes of a ChipTensor that describe its view (ndims, dtype,
 * address_space, reserved0, shapes, strides) and the first reserved word,
 * read as the four 16-byte words from start_offset on, with start_offset
 * masked out: an argument whose words equal the last checked one's has
 * the same, already checked view (and that reserved word zero). Whole
 * 16-byte words at 16-byte offsets, so that each load is served by one
 * store of a tensor written as 16-byte words (tensor_create, a struct
 * copy): a load across two stores stalls until both reach the cache. */
#define GRAPH_VIEW_KEY_OFFSET offsetof(ChipTensor, start_offset)
#define GRAPH_VIEW_KEY_WORDS 4
_Static_assert(offsetof(ChipTensor, start_offset) == 16 && offsetof(ChipTensor, ndims) == 24 &&
                   offsetof(ChipTensor, reserved) == 72 && sizeof(ChipTensor) == 128,
               "the view key is the 16-byte words at 16..80 less start_offset; reserved then runs to 128");

/* Two words loaded, compared or stored at once (gcc and clang vector
 * extensions); may alias anything and assumes no alignment. */
typedef uint64_t graph_u64x2 __attribute__((vector_size(16), may_alias, aligned(1)));

/* A tensor view_make checked and named: everything add_view needs to
 * append it at another start without looking at a ChipTensor again. */
typedef struct graph_view_handle {
    graph_image_arg rec;    /* the argument: kind, addr_kind, staged_index, addr, buffer_bytes */
    graph_image_view view;  /* its view, added to g.views at its first use */
    uint64_t max_start;     /* whole elements in the buffer less view.extent: the last start inside it */
    uint64_t extent_bytes;  /* view.extent << shift */
    uint32_t tags;          /* bit t set: SIMPLER_TAG t fits its address space */
    uint32_t view_plus1;    /* 1 + its index in g.views, or 0 while not there */
    uint32_t shift;         /* log2 of the dtype's bytes */
    uint32_t space;         /* TensorMap address space */
    uint32_t unused[2];     /* to 128 bytes */
} graph_view_handle;
/* 128 bytes: submit_views finds a handle by its number with one shift. */
_Static_assert(sizeof(graph_view_handle) == 128, "graph_view_handle is 128 bytes");

/* The last shape tensor_create checked: a function of dtype, ndims and
 * shapes alone, so it stays valid across builds. key is dtype << 8 |
 * ndims (0: none yet; ndims is at least 1). */
typedef struct graph_create_shape {
    uint64_t bytes, padded;                   /* buffer_bytes; the heap bytes it takes */
    uint64_t w[6];                            /* the tensor's bytes 24..72 (ndims to strides) */
    uint32_t key;
    uint32_t shapes[SIMPLER_MAX_TENSOR_DIMS]; /* the first ndims; 0 past them */
} graph_create_shape;

struct graph_scratch {
    SimplerOrch orch;                /* first: the entry's handle is the scratch */
    graph_limits limits;
    graph g;
    tensor_map map;
    tensor_map_deps deps;
    const ChipStorageTaskArgs *call; /* the running build's arguments */
    int status;                      /* first failure of the running build */
    /* That failure was the heap, the staged bytes or the view handles:
     * a -1004 a larger task window does not cure. */
    int full_beyond_window;
    int open;                        /* args_begin seen, submit not yet */
    uint32_t open_count;             /* args of the open task, at g.args[g.arg_count] */
    uint32_t open_views;             /* g.view_count when the open task's list began */
    /* The open_count at which add_tensor refuses: 0 while no task is open
     * or once the build failed, else the fewer of SIMPLER_MAX_TASK_ARGS
     * and the argument records left. One compare for four checks. */
    uint32_t open_limit;
    uint32_t view_cache[GRAPH_VIEW_CACHE]; /* by view hash: 1 + index of a view in g.views, or 0 */
    /* The last view add_tensor checked: its key bytes, index and extent
     * (valid while last_view_valid; cleared with the views it names). */
    uint64_t last_key[2 * GRAPH_VIEW_KEY_WORDS] __attribute__((aligned(16)));
    int last_view_valid;
    uint32_t last_view;
    uint32_t last_shift;             /* log2 of the dtype's bytes */
    uint64_t last_extent;
    graph_create_shape last_create;  /* tensor_create's last checked shape */
    graph_access open_access[SIMPLER_MAX_TASK_ARGS]; /* the open task's, by argument */
    uint32_t handle_count;           /* view handles of the running build */
    graph_view_handle handles[SIMPLER_ORCH_VIEW_MAX];
    void *block;                     /* every array above lives in this allocation */
    uint8_t *kinds_block;            /* NULL, or deps.kinds then g.fanin_kind */
};

/* The ops table every scratch hands to orchestration entries. */
extern const SimplerOrchOps graph_orch_ops;

/* Records `rc` as the build's status if it is the first failure; returns rc. */
int graph_build_fail(graph_scratch *scratch, int rc);

/* graph_build_fail of a limit a larger task window does not grow (the
 * heap, the view handles): noted for graph_build_outgrew_window. */
static inline int graph_build_fail_beyond_window(graph_scratch *scratch, int rc)
{
    if (scratch->status == 0)
        scratch->full_beyond_window = 1;
    return graph_build_fail(scratch, rc);
}

/* Drops the open (unsubmitted) argument list, with the views only it
 * added, so the graph keeps at most one view per argument it holds. */
void graph_orch_discard_open(graph_scratch *scratch);

/* The submit op (graph_submit.c): derives the task's dependencies. */
int graph_orch_submit(SimplerOrch *orch, int32_t func_id, uint32_t core_type);
/* The submit_views op (graph_submit.c): args_begin, add_view per entry
 * and submit in one call. */
int graph_orch_submit_views(SimplerOrch *orch, int32_t func_id, uint32_t core_type, const SimplerOrchViewArg *args,
                            uint32_t count);
/* The index of view `v` in the graph's views, found through the view
 * cache or appended (the caller holds a free argument record, so there
 * is room). */
uint32_t graph_view_index(graph_scratch *scratch, const graph_image_view *v);

/* Handle h's view in the graph's views, added at its first use (and
 * again after graph_orch_discard_open dropped it); its argument record
 * then names it. The caller holds a free argument record. */
static inline __attribute__((always_inline)) void graph_handle_view_use(graph_scratch *scratch,
                                                                       graph_view_handle *h)
{
    if (h->view_plus1 == 0) {
        uint32_t index = graph_view_index(scratch, &h->view);
        h->view_plus1 = index + 1;
        h->rec.view = index;
    }
}

#endif
