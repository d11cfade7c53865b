/* The matmul_add example's orchestration: an alternating matmul (AIC) /
 * bias add (AIV) chain of L layers over each of up to MATMUL_ADD_CHUNKS
 * row chunks. Chunks are independent; within one, every task depends on
 * the one before. Intermediates live on the graph heap, one [M, K]
 * tensor per layer and stage; the last add writes y directly. */
#include "../common/example_tensor.h"
#include "matmul_add_layout.h"
#include "simpler/orchestration.h"

int matmul_add_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args);

static int tensor_ok(const ChipTensor *t, uint32_t ndims)
{
    return t->dtype == SIMPLER_DTYPE_FLOAT32 && t->ndims == ndims && simpler_tensor_is_dense(t);
}

static int args_check(const ChipStorageTaskArgs *args)
{
    if (args->tensor_count != MATMUL_ADD_TENSOR_COUNT)
        return EXAMPLE_ERR_BAD_ARGS;
    const ChipTensor *x = &args->tensors[MATMUL_ADD_ARG_X], *w = &args->tensors[MATMUL_ADD_ARG_W];
    const ChipTensor *bias = &args->tensors[MATMUL_ADD_ARG_BIAS], *y = &args->tensors[MATMUL_ADD_ARG_Y];
    if (!tensor_ok(x, 2) || !tensor_ok(w, 3) || !tensor_ok(bias, 2) || !tensor_ok(y, 2))
        return EXAMPLE_ERR_BAD_ARGS;
    uint32_t m = x->shapes[0], k = x->shapes[1], layers = w->shapes[0];
    if (m == 0 || m > MATMUL_ADD_MAX_ROWS || k == 0 || k > MATMUL_ADD_MAX_K || layers == 0 ||
        layers > MATMUL_ADD_MAX_LAYERS)
        return EXAMPLE_ERR_BAD_ARGS;
    if (w->shapes[1] != k || w->shapes[2] != k || bias->shapes[0] != layers || bias->shapes[1] != k ||
        y->shapes[0] != m || y->shapes[1] != k)
        return EXAMPLE_ERR_BAD_ARGS;
    return 0;
}

static void task_submit(SimplerOrch *orch, int32_t func, uint32_t core, const ChipTensor *in0,
                        const ChipTensor *in1, const ChipTensor *out, int existing)
{
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, in0);
    simpler_orch_add_input(orch, in1);
    if (existing)
        simpler_orch_add_output_existing(orch, out);
    else
        simpler_orch_add_output(orch, out);
    simpler_orch_submit(orch, func, core);
}

int matmul_add_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    int rc = args_check(args);
    if (rc != 0)
        return rc;
    const ChipTensor *x = &args->tensors[MATMUL_ADD_ARG_X], *w = &args->tensors[MATMUL_ADD_ARG_W];
    const ChipTensor *bias = &args->tensors[MATMUL_ADD_ARG_BIAS], *y = &args->tensors[MATMUL_ADD_ARG_Y];
    uint32_t m = x->shapes[0], layers = w->shapes[0];
    ChipTensor mm[MATMUL_ADD_MAX_LAYERS], act[MATMUL_ADD_MAX_LAYERS];
    for (uint32_t l = 0; l < layers; l++) {
        /* The runtime keeps the first failure and fails the build with it. */
        simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 2, x->shapes, &mm[l]);
        if (l + 1 < layers)
            simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 2, x->shapes, &act[l]);
    }
    uint32_t chunks = m < MATMUL_ADD_CHUNKS ? m : MATMUL_ADD_CHUNKS;
    for (uint32_t c = 0; c < chunks; c++) {
        uint32_t r0 = m * c / chunks, rows = m * (c + 1) / chunks - r0;
        ChipTensor h = simpler_tensor_view_rows(x, r0, rows);
        for (uint32_t l = 0; l < layers; l++) {
            int last = l + 1 == layers;
            ChipTensor wl = simpler_tensor_view_index(w, l), bl = simpler_tensor_view_index(bias, l);
            ChipTensor mmc = simpler_tensor_view_rows(&mm[l], r0, rows);
            ChipTensor out = simpler_tensor_view_rows(last ? y : &act[l], r0, rows);
            task_submit(orch, MATMUL_ADD_FUNC_MATMUL, SIMPLER_CORE_TYPE_AIC, &h, &wl, &mmc, 0);
            task_submit(orch, MATMUL_ADD_FUNC_ADD, SIMPLER_CORE_TYPE_AIV, &mmc, &bl, &out, last);
            h = out;
        }
    }
    return 0;
}
