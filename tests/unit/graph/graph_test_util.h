/* Helpers shared by the graph suites: tensors without libsimpler's
 * tensor helpers, call arguments, and a scratch with roomy limits. */
#ifndef SIMPLER_TEST_GRAPH_UTIL_H
#define SIMPLER_TEST_GRAPH_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "diamond_orch.h"
#include "fixture_tensor.h"
#include "support.h"

#include "graph/graph_build.h"
#include "graph/graph_image.h"
#include "graph/graph_status.h"
#include "simpler/orchestration.h"

/* Appends fixture_tensor(addr, n, space) to the call's tensors. */
static inline void gt_args_add_tensor(ChipStorageTaskArgs *a, uint64_t addr, uint32_t n, uint8_t space)
{
    a->tensors[a->tensor_count++] = fixture_tensor(addr, n, space);
}

static inline void gt_args_add_scalar(ChipStorageTaskArgs *a, uint64_t v)
{
    a->scalars[a->scalar_count++] = v;
}

static inline graph_scratch *gt_scratch(uint32_t window)
{
    graph_limits limits;
    graph_scratch *s = NULL;
    assert_int_equal(graph_limits_for_window(window, UINT64_MAX, UINT64_MAX, &limits), 0);
    assert_int_equal(graph_scratch_create(&limits, &s), 0);
    return s;
}

/* The image of `g` in a fresh 8-aligned buffer; free() it. */
static inline void *gt_image(const graph *g, size_t *size)
{
    *size = graph_image_size(g);
    assert_true(*size >= sizeof(graph_image_header));
    void *img = aligned_alloc(64, (*size + 63) / 64 * 64);
    assert_non_null(img);
    assert_int_equal(graph_image_write(g, img, *size), 0);
    return img;
}

/* graph_image_check with scratch for as many tasks as the header names
 * (the window's limit when the header is too short to say). */
static inline int gt_check(const void *img, size_t size)
{
    uint32_t tasks = GRAPH_TASK_WINDOW_MAX;
    if (img != NULL && size >= sizeof(graph_image_header)) {
        memcpy(&tasks, (const char *)img + offsetof(graph_image_header, task_count), sizeof(tasks));
        if (tasks > GRAPH_TASK_WINDOW_MAX)
            tasks = GRAPH_TASK_WINDOW_MAX;
    }
    uint32_t *scratch = malloc(((size_t)tasks + 1) * sizeof(*scratch));
    assert_non_null(scratch);
    int rc = graph_image_check(img, size, scratch, tasks);
    free(scratch);
    return rc;
}

/* Writes the image of `g` and checks that graph_image_check accepts it. */
static inline void gt_assert_image_valid(const graph *g)
{
    size_t size;
    void *img = gt_image(g, &size);
    assert_int_equal(gt_check(img, size), 0);
    free(img);
}

/* Predecessors of task i, as a bit mask over ids 0..63. */
static inline uint64_t gt_preds(const graph *g, uint32_t i)
{
    uint64_t m = 0;
    for (uint32_t k = 0; k < g->tasks[i].fanin_count; k++)
        m |= 1ull << g->fanin[g->tasks[i].fanin_begin + k];
    return m;
}

#define DEV_A 0x100000u
#define DEV_OUT 0x200000u

/* The diamond of diamond_orch.h with task e on AIC and task out on AIV.
 * Ten args: a c | c d | c e | d e out 7. */
static inline int orch_diamond(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    return diamond_orch_submit(orch, args, SIMPLER_CORE_TYPE_AIC, SIMPLER_CORE_TYPE_AIV);
}

static inline ChipStorageTaskArgs *diamond_args(uint8_t space_a, uint8_t space_out)
{
    ChipStorageTaskArgs *args = fixture_args_new();
    gt_args_add_tensor(args, DEV_A, 16, space_a);
    gt_args_add_tensor(args, DEV_OUT, 16, space_out);
    return args;
}

#endif
