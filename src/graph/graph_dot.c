/*
 * simpler_graph_dot — the user's task graph as Graphviz DOT, built on the
 * host exactly as a run would build it (the sizer's window growth), with
 * the TensorMap asked to record why each edge exists. Host only: no
 * context, no device memory.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "callable/loader.h"
#include "common/error.h"
#include "common/file_out.h"
#include "graph/graph_build.h"
#include "graph/graph_kernels.h"
#include "graph/tensor_map.h"
#include "simpler/runtime_c_api.h"

#define DOT_WINDOW_FIRST 1024u

/* A scratch of `window` tasks that records edge kinds. */
static int kind_scratch(uint32_t window, graph_scratch **out)
{
    graph_limits limits;
    graph_scratch *s = NULL;
    int rc = graph_limits_for_window(window, UINT64_MAX, UINT64_MAX, &limits);
    rc = rc ? rc : graph_scratch_create(&limits, &s);
    rc = rc ? rc : graph_scratch_record_kinds(s);
    if (rc != 0) {
        graph_scratch_destroy(s);
        return simpler_fail(rc, "graph dot: host memory for a %u-task build ran out", window);
    }
    *out = s;
    return 0;
}

/* Builds on a scratch twice as large while the build runs out of room;
 * on success *scratch holds the graph (the caller destroys it). */
static int build(const loaded_callable *lc, const ChipStorageTaskArgs *args, graph_scratch **scratch,
                 const graph **g)
{
    uint32_t window = DOT_WINDOW_FIRST;
    for (;;) {
        int rc = kind_scratch(window, scratch);
        if (rc != 0)
            return rc;
        rc = graph_build_from_checked(*scratch, (SimplerOrchEntryFn)lc->orch_entry, args, g);
        if (!graph_build_outgrew_window(*scratch, rc) || window >= GRAPH_TASK_WINDOW_MAX)
            return rc;
        simpler_error_clear(); /* recovered by a bigger window */
        graph_scratch_destroy(*scratch);
        *scratch = NULL;
        window = window > GRAPH_TASK_WINDOW_MAX / 2 ? GRAPH_TASK_WINDOW_MAX : window * 2;
    }
}

/* "RAW", "WAR+WAW", ...: the kinds of one edge. */
static void kind_label(uint8_t kinds, char *out, size_t size)
{
    static const struct {
        uint8_t bit;
        const char *name;
    } names[] = {{TENSOR_MAP_DEP_RAW, "RAW"}, {TENSOR_MAP_DEP_WAR, "WAR"}, {TENSOR_MAP_DEP_WAW, "WAW"}};
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (kinds & names[i].bit)
            snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] != '\0' ? "+" : "", names[i].name);
    }
}

static int write_dot(FILE *f, const loaded_callable *lc, const graph *g)
{
    int bad = fputs("digraph simpler {\n  node [shape=box, fontname=\"monospace\"];\n", f) < 0;
    for (uint32_t i = 0; i < g->task_count && !bad; i++) {
        const graph_image_task *t = &g->tasks[i];
        const callable_kernel *k = callable_kernel_find(lc, t->func_id);
        char name[SIMPLER_CALLABLE_KERNEL_NAME_BYTES + 16];
        if (k != NULL && k->name[0] != '\0')
            snprintf(name, sizeof name, "%s", k->name);
        else
            snprintf(name, sizeof name, "func %d", t->func_id);
        bad = fprintf(f, "  t%u [label=\"t%u %s\\nfunc_id %d %s\"];\n", i, i, name, t->func_id,
                      t->core_type == SIMPLER_CORE_TYPE_AIC ? "AIC" : "AIV") < 0;
    }
    for (uint32_t i = 0; i < g->task_count && !bad; i++) {
        const graph_image_task *t = &g->tasks[i];
        for (uint32_t e = 0; e < t->fanin_count && !bad; e++) {
            char label[16];
            kind_label(g->fanin_kind[t->fanin_begin + e], label, sizeof label);
            bad = fprintf(f, "  t%u -> t%u [label=\"%s\"];\n", g->fanin[t->fanin_begin + e], i, label) < 0;
        }
    }
    if (!bad)
        bad = fputs("}\n", f) < 0;
    return bad || ferror(f) ? -1 : 0;
}

/* Writes the file whole, or leaves what was at `path` (common/file_out.h). */
static int write_file(const char *path, const loaded_callable *lc, const graph *g)
{
    file_out o;
    file_out_step step = file_out_open(&o, path);
    if (step == FILE_OUT_CREATE_BESIDE)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "path \"%s\": cannot create \"%s\" beside it: %s", path,
                            o.tmp, strerror(errno));
    if (step != FILE_OUT_OK)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "path \"%s\": cannot %s it: %s", path,
                            step == FILE_OUT_READ_ONLY ? "write" : "create", strerror(errno));
    int bad = write_dot(o.f, lc, g);
    step = file_out_close(&o, bad == 0);
    if (step == FILE_OUT_REPLACE)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "path \"%s\": cannot replace it: %s", path,
                            strerror(errno));
    if (step != FILE_OUT_OK)
        return simpler_fail(PTO_RUNTIME_ERR_INTERNAL, "path \"%s\": writing the graph failed", path);
    return 0;
}

SIMPLER_API int simpler_graph_dot(const void *callable, size_t callable_size, const ChipStorageTaskArgs *args,
                                  const char *path)
{
    simpler_error_clear();
    if (callable == NULL || args == NULL || path == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "%s: NULL",
                            callable == NULL ? "callable" : args == NULL ? "args" : "path");
    int rc = graph_call_args_check(args);
    if (rc != 0)
        return rc;
    loaded_callable *lc = NULL;
    rc = callable_load(callable, callable_size, NULL, &lc);
    if (rc != 0)
        return rc;
    if (lc->signature_count != 0 &&
        (args->tensor_count != (int32_t)lc->tensor_count || args->scalar_count != (int32_t)lc->scalar_count)) {
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                          "args: %d tensors and %d scalars, but the callable's signature takes %u and %u",
                          args->tensor_count, args->scalar_count, lc->tensor_count, lc->scalar_count);
        goto err_unload;
    }
    graph_scratch *scratch = NULL;
    const graph *g = NULL;
    rc = build(lc, args, &scratch, &g);
    rc = rc ? rc : graph_kernels_check(lc, g, GRAPH_CORES_ANY, GRAPH_CORES_ANY);
    rc = rc ? rc : write_file(path, lc, g);
    graph_scratch_destroy(scratch);
err_unload:
    callable_unload(lc);
    return rc;
}
