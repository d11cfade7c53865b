/* The tutorial's orchestration: out = x * y + x, as two tasks per chunk.
 * The multiply writes an intermediate t that lives in the graph heap;
 * the add reads it, so the runtime orders the add after the multiply
 * (a read after write on t's bytes). Chunks touch disjoint bytes, so they
 * run in parallel. */
#include "simpler/orchestration.h"
#include "simpler/tensor_view.h"
#include "tutorial_layout.h"

int tutorial_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args);

static int args_ok(const ChipStorageTaskArgs *args)
{
    if (args->tensor_count != TUTORIAL_TENSOR_COUNT || args->scalar_count != 0)
        return 0;
    uint64_t n = simpler_tensor_elements(&args->tensors[0]);
    for (int i = 0; i < TUTORIAL_TENSOR_COUNT; i++) {
        const ChipTensor *t = &args->tensors[i];
        if (t->dtype != SIMPLER_DTYPE_FLOAT32 || t->ndims != 1 || !simpler_tensor_is_dense(t) ||
            simpler_tensor_elements(t) != n)
            return 0;
    }
    return n > 0 && n <= TUTORIAL_MAX_ELEMENTS;
}

/* One task: func(a, b) -> out; `out` is a fresh intermediate or an
 * existing caller tensor. */
static void task(SimplerOrch *orch, int32_t func, const ChipTensor *a, const ChipTensor *b, const ChipTensor *out,
                 int existing)
{
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, a);
    simpler_orch_add_input(orch, b);
    if (existing)
        simpler_orch_add_output_existing(orch, out);
    else
        simpler_orch_add_output(orch, out);
    simpler_orch_submit(orch, func, SIMPLER_CORE_TYPE_AIV);
}

int tutorial_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    if (!args_ok(args))
        return TUTORIAL_ERR_BAD_ARGS;
    const ChipTensor *x = &args->tensors[TUTORIAL_ARG_X];
    const ChipTensor *y = &args->tensors[TUTORIAL_ARG_Y];
    const ChipTensor *out = &args->tensors[TUTORIAL_ARG_OUT];
    uint32_t n = (uint32_t)simpler_tensor_elements(x);
    ChipTensor t;
    /* A failure here is kept by the runtime and fails the whole build. */
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &t);
    uint32_t chunks = n < TUTORIAL_CHUNKS ? n : TUTORIAL_CHUNKS;
    for (uint32_t c = 0; c < chunks; c++) {
        uint64_t lo = (uint64_t)n * c / chunks, hi = (uint64_t)n * (c + 1) / chunks;
        uint32_t len = (uint32_t)(hi - lo);
        ChipTensor xc = simpler_tensor_view_flat(x, lo, len), yc = simpler_tensor_view_flat(y, lo, len);
        ChipTensor tc = simpler_tensor_view_flat(&t, lo, len), oc = simpler_tensor_view_flat(out, lo, len);
        task(orch, TUTORIAL_FUNC_MUL, &xc, &yc, &tc, 0);
        task(orch, TUTORIAL_FUNC_ADD, &tc, &xc, &oc, 1);
    }
    return 0;
}
