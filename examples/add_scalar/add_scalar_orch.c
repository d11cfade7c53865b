/* The add_scalar example's orchestration: y = x + s, one AIV task per
 * chunk. The scalar is passed to the kernels unchanged (its bits). */
#include "../common/example_tensor.h"
#include "add_scalar_layout.h"
#include "simpler/orchestration.h"

int add_scalar_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args);

static int args_check(const ChipStorageTaskArgs *args)
{
    if (args->tensor_count != ADD_SCALAR_TENSOR_COUNT || args->scalar_count != ADD_SCALAR_SCALAR_COUNT)
        return EXAMPLE_ERR_BAD_ARGS;
    const ChipTensor *x = &args->tensors[ADD_SCALAR_ARG_X], *y = &args->tensors[ADD_SCALAR_ARG_Y];
    uint64_t n = simpler_tensor_elements(x);
    if (x->dtype != SIMPLER_DTYPE_FLOAT32 || y->dtype != SIMPLER_DTYPE_FLOAT32 || !simpler_tensor_is_dense(x) ||
        !simpler_tensor_is_dense(y) || simpler_tensor_elements(y) != n || n == 0 || n > ADD_SCALAR_MAX_ELEMENTS)
        return EXAMPLE_ERR_BAD_ARGS;
    return 0;
}

int add_scalar_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    int rc = args_check(args);
    if (rc != 0)
        return rc;
    const ChipTensor *x = &args->tensors[ADD_SCALAR_ARG_X], *y = &args->tensors[ADD_SCALAR_ARG_Y];
    uint64_t s_bits = args->scalars[ADD_SCALAR_SCALAR_S];
    uint32_t n = (uint32_t)simpler_tensor_elements(x);
    uint32_t chunks = n < ADD_SCALAR_CHUNKS ? n : ADD_SCALAR_CHUNKS;
    for (uint32_t c = 0; c < chunks; c++) {
        uint64_t lo = (uint64_t)n * c / chunks, hi = (uint64_t)n * (c + 1) / chunks;
        ChipTensor xc = simpler_tensor_view_flat(x, lo, (uint32_t)(hi - lo));
        ChipTensor yc = simpler_tensor_view_flat(y, lo, (uint32_t)(hi - lo));
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &xc);
        simpler_orch_add_output_existing(orch, &yc);
        simpler_orch_add_scalar(orch, s_bits);
        simpler_orch_submit(orch, ADD_SCALAR_FUNC, SIMPLER_CORE_TYPE_AIV);
    }
    return 0;
}
