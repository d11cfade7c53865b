/*
 * SimplerGraphSizer — host sizing with the callable loaded once: each
 * measure builds the graph on the handle's scratch and reports what each
 * device region would need. No context, no device memory.
 */
#include <stddef.h>

#include "callable/loader.h"
#include "common/error.h"
#include "common/host_alloc.h"
#include "graph/graph_build.h"
#include "graph/graph_kernels.h"
#include "graph/requirements.h"
#include "simpler/runtime_c_api.h"

/* The window a sizer starts with when its creator asks for the default;
 * measure doubles it while a build runs out of room, up to
 * GRAPH_TASK_WINDOW_MAX. */
#define SIZER_WINDOW_DEFAULT 1024u

struct SimplerGraphSizer {
    loaded_callable *lc;
    graph_scratch *scratch;
    uint32_t window; /* the task window `scratch` was made for */
};

static int scratch_for_window(uint32_t window, graph_scratch **out)
{
    graph_limits limits;
    int rc = graph_limits_for_window(window, UINT64_MAX, UINT64_MAX, &limits);
    return rc != 0 ? rc : graph_scratch_create(&limits, out);
}

SIMPLER_API int simpler_graph_sizer_create(const void *callable, size_t callable_size, uint32_t task_window,
                                           SimplerGraphSizer **out)
{
    simpler_error_clear();
    loaded_callable *lc = NULL;
    SimplerGraphSizer *sizer;
    uint32_t window = task_window != 0 ? task_window : SIZER_WINDOW_DEFAULT;
    if (callable == NULL || out == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "%s: NULL", callable == NULL ? "callable" : "out");
    if (window > GRAPH_TASK_WINDOW_MAX)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "task_window = %u: at most %u", window,
                            (unsigned)GRAPH_TASK_WINDOW_MAX);
    int rc = callable_load(callable, callable_size, NULL, &lc);
    if (rc != 0)
        return rc;
    sizer = host_calloc(1, sizeof(*sizer));
    if (sizer == NULL) {
        rc = simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "host allocation of the sizer handle failed");
        goto err_unload;
    }
    rc = scratch_for_window(window, &sizer->scratch);
    if (rc != 0)
        goto err_free_sizer;
    sizer->lc = lc;
    sizer->window = window;
    *out = sizer;
    return 0;

err_free_sizer:
    host_free(sizer);
err_unload:
    callable_unload(lc);
    return rc;
}

SIMPLER_API void simpler_graph_sizer_destroy(SimplerGraphSizer *sizer)
{
    /* No clear: destroying cannot fail, and simpler_graph_requirements
     * destroys its sizer after a refused measure whose reason stands. */
    if (sizer == NULL)
        return;
    graph_scratch_destroy(sizer->scratch);
    callable_unload(sizer->lc);
    host_free(sizer);
}

/* Builds on *scratch (made for *window tasks), replacing it with scratch
 * for twice the window while the build runs out of room. The scratch the
 * caller passed in is never freed here: what replaced it is handed back
 * in *scratch and *window, on success and on failure alike. */
static int build_growing(const loaded_callable *lc, const ChipStorageTaskArgs *args, graph_scratch **scratch,
                         uint32_t *window, const graph **g)
{
    graph_scratch *first = *scratch;
    for (;;) {
        int rc = graph_build_from_checked(*scratch, (SimplerOrchEntryFn)lc->orch_entry, args, g);
        if (!graph_build_outgrew_window(*scratch, rc) || *window >= GRAPH_TASK_WINDOW_MAX)
            return rc;
        graph_scratch *bigger = NULL;
        simpler_error_clear(); /* recovered by a bigger window */
        uint32_t next = *window > GRAPH_TASK_WINDOW_MAX / 2 ? GRAPH_TASK_WINDOW_MAX : *window * 2;
        int grown = scratch_for_window(next, &bigger);
        if (grown != 0)
            return grown;
        if (*scratch != first)
            graph_scratch_destroy(*scratch);
        *scratch = bigger;
        *window = next;
    }
}

SIMPLER_API int simpler_graph_sizer_measure(SimplerGraphSizer *sizer, const ChipStorageTaskArgs *args,
                                            SimplerGraphRequirements *out)
{
    simpler_error_clear();
    SimplerGraphRequirements req;
    const graph *g = NULL;
    if (sizer == NULL || args == NULL || out == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "%s: NULL",
                            sizer == NULL ? "sizer" : args == NULL ? "args" : "out");
    int rc = graph_call_args_check(args);
    if (rc != 0)
        return rc;
    /* An image that records a signature fixes the call's counts. */
    const loaded_callable *lc = sizer->lc;
    if (lc->signature_count != 0 &&
        (args->tensor_count != (int32_t)lc->tensor_count || args->scalar_count != (int32_t)lc->scalar_count))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "args: %d tensors and %d scalars, but the callable's signature takes %u and %u",
                            args->tensor_count, args->scalar_count, lc->tensor_count, lc->scalar_count);

    graph_scratch *scratch = sizer->scratch;
    uint32_t window = sizer->window;
    rc = build_growing(lc, args, &scratch, &window, &g);
    rc = rc ? rc : graph_kernels_check(lc, g, GRAPH_CORES_ANY, GRAPH_CORES_ANY);
    rc = rc ? rc : graph_requirements_of(g, &req);
    /* A grown scratch is kept only by a measure that succeeds, so a
     * failed one leaves the handle as it was. */
    if (rc != 0) {
        if (scratch != sizer->scratch)
            graph_scratch_destroy(scratch);
        return rc;
    }
    if (scratch != sizer->scratch) {
        graph_scratch_destroy(sizer->scratch);
        sizer->scratch = scratch;
        sizer->window = window;
    }
    *out = req;
    return 0;
}
