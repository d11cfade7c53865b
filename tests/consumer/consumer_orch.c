/* The consumer's orchestration (consumer.h): two dependent tasks per
 * chunk. It runs on the host and only describes tasks. */
#include "consumer.h"
#include "simpler/orchestration.h"

int consumer_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args);

static int dense_f32(const ChipTensor *t, uint32_t n)
{
    return t->ndims == 1 && t->dtype == SIMPLER_DTYPE_FLOAT32 && t->strides[0] == 1 && t->shapes[0] == n;
}

/* Elements [lo, lo + n) of a 1-D tensor, as a view of the same buffer. */
static ChipTensor chunk(const ChipTensor *t, uint32_t lo, uint32_t n)
{
    ChipTensor v = *t;
    v.start_offset += lo;
    v.shapes[0] = n;
    return v;
}

int consumer_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    if (args->tensor_count != CONSUMER_TENSORS || args->scalar_count != CONSUMER_SCALARS)
        return CONSUMER_ERR_BAD_ARGS;
    const ChipTensor *x = &args->tensors[CONSUMER_ARG_X], *y = &args->tensors[CONSUMER_ARG_Y];
    const ChipTensor *z = &args->tensors[CONSUMER_ARG_Z];
    uint32_t n = x->shapes[0];
    if (n < CONSUMER_CHUNKS || !dense_f32(x, n) || !dense_f32(y, n) || !dense_f32(z, n))
        return CONSUMER_ERR_BAD_ARGS;
    uint64_t s = args->scalars[0];
    for (uint32_t c = 0; c < CONSUMER_CHUNKS; c++) {
        uint32_t lo = n / CONSUMER_CHUNKS * c;
        uint32_t len = c + 1 == CONSUMER_CHUNKS ? n - lo : n / CONSUMER_CHUNKS;
        ChipTensor xc = chunk(x, lo, len), yc = chunk(y, lo, len), zc = chunk(z, lo, len), t;
        simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &len, &t);
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &xc);
        simpler_orch_add_input(orch, &yc);
        simpler_orch_add_output(orch, &t);
        simpler_orch_submit(orch, CONSUMER_FUNC_SUM, SIMPLER_CORE_TYPE_AIV);
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &t);
        simpler_orch_add_output_existing(orch, &zc);
        simpler_orch_add_scalar(orch, s);
        /* The first failing call is kept and fails the build. */
        simpler_orch_submit(orch, CONSUMER_FUNC_SCALE, SIMPLER_CORE_TYPE_AIC);
    }
    return 0;
}
