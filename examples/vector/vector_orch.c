/* The vector example's orchestration: f = (a+b+1) * (a+b+2).
 *
 * Each of up to VECTOR_CHUNKS chunks is four tasks: t = a+b (AIV add),
 * u = t+1 and v = t+2 (scalar adds, independent of each other), f = u*v.
 * t, u and v are graph-heap intermediates; the chunks are views into
 * them, so chunks never depend on each other. */
#include "../common/example_tensor.h"
#include "simpler/orchestration.h"
#include "vector_layout.h"

int vector_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args);

static int same_shape(const ChipTensor *x, const ChipTensor *y)
{
    if (x->ndims != y->ndims || x->dtype != y->dtype)
        return 0;
    for (uint32_t d = 0; d < x->ndims; d++)
        if (x->shapes[d] != y->shapes[d])
            return 0;
    return 1;
}

static int args_check(const ChipStorageTaskArgs *args)
{
    if (args->tensor_count != VECTOR_TENSOR_COUNT)
        return EXAMPLE_ERR_BAD_ARGS;
    const ChipTensor *a = &args->tensors[VECTOR_ARG_A];
    for (int i = 0; i < VECTOR_TENSOR_COUNT; i++)
        if (!same_shape(a, &args->tensors[i]) || !simpler_tensor_is_dense(&args->tensors[i]))
            return EXAMPLE_ERR_BAD_ARGS;
    uint64_t n = simpler_tensor_elements(a);
    if (a->dtype != SIMPLER_DTYPE_FLOAT32 || n == 0 || n > VECTOR_MAX_ELEMENTS)
        return EXAMPLE_ERR_BAD_ARGS;
    return 0;
}

static void task_binary(SimplerOrch *orch, int32_t func, const ChipTensor *x, const ChipTensor *y,
                        const ChipTensor *out, int existing)
{
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, x);
    simpler_orch_add_input(orch, y);
    if (existing)
        simpler_orch_add_output_existing(orch, out);
    else
        simpler_orch_add_output(orch, out);
    simpler_orch_submit(orch, func, SIMPLER_CORE_TYPE_AIV);
}

static void task_add_scalar(SimplerOrch *orch, const ChipTensor *x, float s, const ChipTensor *out)
{
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, x);
    simpler_orch_add_output(orch, out);
    simpler_orch_add_scalar(orch, simpler_f32_scalar(s));
    simpler_orch_submit(orch, VECTOR_FUNC_ADD_SCALAR, SIMPLER_CORE_TYPE_AIV);
}

int vector_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    int rc = args_check(args);
    if (rc != 0)
        return rc;
    const ChipTensor *a = &args->tensors[VECTOR_ARG_A];
    const ChipTensor *b = &args->tensors[VECTOR_ARG_B];
    const ChipTensor *f = &args->tensors[VECTOR_ARG_F];
    uint32_t n = (uint32_t)simpler_tensor_elements(a);
    ChipTensor t, u, v;
    /* The runtime keeps the first failure and fails the build with it. */
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &t);
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &u);
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &n, &v);
    uint32_t chunks = n < VECTOR_CHUNKS ? n : VECTOR_CHUNKS;
    for (uint32_t c = 0; c < chunks; c++) {
        uint64_t lo = (uint64_t)n * c / chunks, hi = (uint64_t)n * (c + 1) / chunks;
        uint32_t len = (uint32_t)(hi - lo);
        ChipTensor ac = simpler_tensor_view_flat(a, lo, len), bc = simpler_tensor_view_flat(b, lo, len);
        ChipTensor fc = simpler_tensor_view_flat(f, lo, len);
        ChipTensor tc = simpler_tensor_view_flat(&t, lo, len), uc = simpler_tensor_view_flat(&u, lo, len);
        ChipTensor vc = simpler_tensor_view_flat(&v, lo, len);
        task_binary(orch, VECTOR_FUNC_ADD, &ac, &bc, &tc, 0);
        task_add_scalar(orch, &tc, 1.0f, &uc);
        task_add_scalar(orch, &tc, 2.0f, &vc);
        task_binary(orch, VECTOR_FUNC_MUL, &uc, &vc, &fc, 1);
    }
    return 0;
}
