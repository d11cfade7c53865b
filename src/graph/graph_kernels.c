/* graph_kernels_check (graph_kernels.h). */
#include "graph/graph_kernels.h"

#include "common/error.h"
#include "simpler/runtime_c_api.h"

static const char *core_name(uint32_t core_type)
{
    return core_type == SIMPLER_CORE_TYPE_AIC ? "AIC" : core_type == SIMPLER_CORE_TYPE_AIV ? "AIV" : "unknown";
}

/* Whether every (kernel, core type) pair the graph's tasks use is one
 * the callable has and the execution has cores for: one lookup per pair,
 * not per task. */
static int uses_fit(const loaded_callable *lc, const graph *g, uint32_t aic_count, uint32_t aiv_count)
{
    for (uint32_t w = 0; w < sizeof(g->kernel_uses) / sizeof(g->kernel_uses[0]); w++) {
        for (uint64_t bits = g->kernel_uses[w]; bits != 0; bits &= bits - 1) {
            uint32_t use = w * 64 + (uint32_t)__builtin_ctzll(bits), core_type = use % 2;
            const callable_kernel *k = callable_kernel_find(lc, (int32_t)(use / 2));
            if (k == NULL || k->core_type != core_type ||
                (core_type == SIMPLER_CORE_TYPE_AIC ? aic_count : aiv_count) == 0)
                return 0;
        }
    }
    return 1;
}

int graph_kernels_check(const loaded_callable *lc, const graph *g, uint32_t aic_count, uint32_t aiv_count)
{
    /* Sizing an empty graph is fine; running one is not (the device's
     * descriptor check wants a task). */
    if (g->task_count == 0 && (aic_count != GRAPH_CORES_ANY || aiv_count != GRAPH_CORES_ANY))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "the orchestration submitted no task: an execution runs at least one");
    if (uses_fit(lc, g, aic_count, aiv_count))
        return 0;
    /* Some pair does not fit: the walk over the tasks names the first
     * task that fails. */
    for (uint32_t i = 0; i < g->task_count; i++) {
        const graph_image_task *t = &g->tasks[i];
        const callable_kernel *k = callable_kernel_find(lc, t->func_id);
        if (k == NULL)
            return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                "task %u: func_id %d names no kernel of the callable", i, t->func_id);
        if (k->core_type != t->core_type)
            return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                "task %u: func_id %d is an %s kernel, the task asks for %s", i, t->func_id,
                                core_name(k->core_type), core_name(t->core_type));
        uint32_t cores = t->core_type == SIMPLER_CORE_TYPE_AIC ? aic_count : aiv_count;
        if (cores == 0)
            return simpler_fail(PTO_RUNTIME_ERR_UNSUPPORTED,
                                "task %u: func_id %d runs on %s cores, and this execution has none", i,
                                t->func_id, core_name(t->core_type));
    }
    return 0;
}
