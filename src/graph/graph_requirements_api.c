/*
 * simpler_graph_requirements — sizing on the host only: check the image,
 * load its orchestration, build the graph on scratch of growing task
 * windows, and report what each device region would need. No context,
 * no device memory; everything acquired is released before returning.
 */
#include <stddef.h>

#include "callable/callable_image.h"
#include "callable/loader.h"
#include "graph/graph_build.h"
#include "graph/graph_status.h"
#include "graph/requirements.h"
#include "simpler/runtime_c_api.h"

/* The first window tried; doubled while the build runs out of room, up to
 * GRAPH_TASK_WINDOW_MAX. */
#define SIZING_WINDOW_FIRST 1024u

/* Every task must name a kernel of the callable on that kernel's core. */
static int check_kernels(const loaded_callable *lc, const graph *g)
{
    for (uint32_t i = 0; i < g->task_count; i++) {
        const callable_kernel *k = callable_kernel_find(lc, g->tasks[i].func_id);
        if (k == NULL || k->core_type != g->tasks[i].core_type)
            return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    }
    return 0;
}

static int build_and_measure(const loaded_callable *lc, const ChipStorageTaskArgs *args,
                             SimplerGraphRequirements *req)
{
    int rc = PTO_RUNTIME_ERR_CAPACITY_EXCEEDED;
    for (uint32_t window = SIZING_WINDOW_FIRST; rc == PTO_RUNTIME_ERR_CAPACITY_EXCEEDED; window *= 2) {
        graph_limits limits;
        graph_scratch *scratch = NULL;
        const graph *g = NULL;
        if (window > GRAPH_TASK_WINDOW_MAX)
            return PTO_RUNTIME_ERR_CAPACITY_EXCEEDED;
        (void)graph_limits_for_window(window, UINT64_MAX, UINT64_MAX, &limits);
        rc = graph_scratch_create(&limits, &scratch);
        if (rc != 0)
            return rc;
        rc = graph_build_run(scratch, (SimplerOrchEntryFn)lc->orch_entry, args, &g);
        if (rc == 0)
            rc = check_kernels(lc, g);
        if (rc == 0)
            rc = graph_requirements_of(g, req);
        graph_scratch_destroy(scratch);
    }
    return rc;
}

SIMPLER_API int simpler_graph_requirements(const void *callable, size_t callable_size,
                                           const ChipStorageTaskArgs *args, SimplerGraphRequirements *out)
{
    callable_view view;
    loaded_callable *lc = NULL;
    SimplerGraphRequirements req;
    if (callable == NULL || args == NULL || out == NULL)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    int rc = callable_image_check(callable, callable_size, &view);
    if (rc != 0)
        return rc;
    rc = graph_call_args_check(args);
    if (rc != 0)
        return rc;
    /* An image that records a signature fixes the call's counts. */
    if (view.signature_count != 0 && (args->tensor_count != (int32_t)view.tensor_count ||
                                      args->scalar_count != (int32_t)view.scalar_count))
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    rc = callable_load(callable, callable_size, NULL, &lc);
    if (rc != 0)
        return rc;
    rc = build_and_measure(lc, args, &req);
    callable_unload(lc);
    if (rc != 0)
        return rc;
    *out = req;
    return 0;
}
