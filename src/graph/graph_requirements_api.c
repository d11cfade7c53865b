/*
 * simpler_graph_requirements — one-shot host sizing: a SimplerGraphSizer
 * created, used once and destroyed, so the sizing has one implementation
 * (graph_sizer.c). Everything acquired is released before returning.
 */
#include <stddef.h>

#include "common/error.h"
#include "graph/graph_build.h"
#include "simpler/runtime_c_api.h"

SIMPLER_API int simpler_graph_requirements(const void *callable, size_t callable_size,
                                           const ChipStorageTaskArgs *args, SimplerGraphRequirements *out)
{
    simpler_error_clear();
    SimplerGraphSizer *sizer = NULL;
    if (callable == NULL || args == NULL || out == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "%s: NULL",
                            callable == NULL ? "callable" : args == NULL ? "args" : "out");
    /* Malformed args are refused before anything is loaded. */
    int rc = graph_call_args_check(args);
    if (rc != 0)
        return rc;
    rc = simpler_graph_sizer_create(callable, callable_size, 0, &sizer);
    if (rc != 0)
        return rc;
    rc = simpler_graph_sizer_measure(sizer, args, out);
    simpler_graph_sizer_destroy(sizer);
    return rc;
}
