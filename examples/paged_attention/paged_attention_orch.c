/* The paged_attention example's orchestration (one KV head, online
 * softmax). Per batch b it allocates the running max m_b [H], sum l_b
 * [H] and accumulator o_b [H, D]; per logical block j the scores s, the
 * probabilities p [H, BS] and the rescale factor alpha [H]. QK tasks of
 * one batch are independent; SF and PV tasks chain through m, l and o;
 * FN waits for the last PV. The first block's SF and PV write their
 * running state as OUTPUT (there is nothing to read yet), later ones as
 * INOUT. */
#include "../common/example_tensor.h"
#include "paged_attention_layout.h"
#include "simpler/orchestration.h"

int paged_attention_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args);

typedef struct pa_dims {
    uint32_t batch, heads, head_dim, blocks, block_size, table_width;
} pa_dims;

static int tensor_ok(const ChipTensor *t, uint8_t dtype)
{
    return t->dtype == dtype && t->ndims == (t->dtype == SIMPLER_DTYPE_INT32 ? 2u : 3u) && simpler_tensor_is_dense(t);
}

static int args_check(const ChipStorageTaskArgs *args, pa_dims *d)
{
    if (args->tensor_count != PA_TENSOR_COUNT)
        return EXAMPLE_ERR_BAD_ARGS;
    const ChipTensor *q = &args->tensors[PA_ARG_QUERY], *k = &args->tensors[PA_ARG_KEY_CACHE];
    const ChipTensor *v = &args->tensors[PA_ARG_VALUE_CACHE], *bt = &args->tensors[PA_ARG_BLOCK_TABLE];
    const ChipTensor *out = &args->tensors[PA_ARG_OUT];
    if (!tensor_ok(q, SIMPLER_DTYPE_FLOAT32) || !tensor_ok(k, SIMPLER_DTYPE_FLOAT32) ||
        !tensor_ok(v, SIMPLER_DTYPE_FLOAT32) || !tensor_ok(bt, SIMPLER_DTYPE_INT32) ||
        !tensor_ok(out, SIMPLER_DTYPE_FLOAT32))
        return EXAMPLE_ERR_BAD_ARGS;
    pa_dims x = {q->shapes[0], q->shapes[1], q->shapes[2], k->shapes[0], k->shapes[1], bt->shapes[1]};
    if (x.batch == 0 || x.heads == 0 || x.head_dim == 0 || x.blocks == 0 || x.block_size == 0 ||
        x.table_width == 0)
        return EXAMPLE_ERR_BAD_ARGS;
    if (x.batch > PA_MAX_BATCH || x.heads > PA_MAX_HEADS || x.head_dim > PA_MAX_HEAD_DIM ||
        x.block_size > PA_MAX_BLOCK_SIZE || x.table_width > PA_MAX_BLOCKS_PER_SEQ)
        return EXAMPLE_ERR_BAD_ARGS;
    for (uint32_t i = 0; i < 3; i++)
        if (v->shapes[i] != k->shapes[i] || out->shapes[i] != q->shapes[i])
            return EXAMPLE_ERR_BAD_ARGS;
    if (k->shapes[2] != x.head_dim || bt->shapes[0] != x.batch ||
        args->scalar_count != PA_SCALAR_COUNT)
        return EXAMPLE_ERR_BAD_ARGS;
    for (uint32_t b = 0; b < PA_MAX_BATCH; b++) {
        uint64_t len = args->scalars[PA_SCALAR_CONTEXT_LEN + b];
        int used = b < x.batch;
        if (used != (len != 0) || len > (uint64_t)x.table_width * x.block_size)
            return EXAMPLE_ERR_BAD_ARGS;
    }
    *d = x;
    return 0;
}

static void add_state(SimplerOrch *orch, const ChipTensor *t, int first)
{
    if (first)
        simpler_orch_add_output(orch, t);
    else
        simpler_orch_add_inout(orch, t);
}

/* The four kinds of task for logical block j of one batch. */
static void block_tasks(SimplerOrch *orch, const ChipStorageTaskArgs *args, const pa_dims *d, uint32_t b,
                        uint32_t j, const ChipTensor *state)
{
    const ChipTensor *m = &state[0], *l = &state[1], *o = &state[2];
    uint64_t len = args->scalars[PA_SCALAR_CONTEXT_LEN + b];
    uint64_t valid = len - (uint64_t)j * d->block_size;
    valid = valid < d->block_size ? valid : d->block_size;
    uint32_t sb[2] = {d->heads, d->block_size};
    ChipTensor q = simpler_tensor_view_index(&args->tensors[PA_ARG_QUERY], b);
    ChipTensor row = simpler_tensor_view_index(&args->tensors[PA_ARG_BLOCK_TABLE], b);
    ChipTensor entry = simpler_tensor_view_flat(&row, j, 1);
    ChipTensor s, p, alpha;
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 2, sb, &s);
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 2, sb, &p);
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &d->heads, &alpha);

    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &q);
    simpler_orch_add_input(orch, &args->tensors[PA_ARG_KEY_CACHE]);
    simpler_orch_add_input(orch, &entry);
    simpler_orch_add_output(orch, &s);
    simpler_orch_add_scalar(orch, args->scalars[PA_SCALAR_SCALE]);
    simpler_orch_submit(orch, PA_FUNC_QK, SIMPLER_CORE_TYPE_AIC);

    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &s);
    add_state(orch, m, j == 0);
    add_state(orch, l, j == 0);
    simpler_orch_add_output(orch, &p);
    simpler_orch_add_output(orch, &alpha);
    simpler_orch_add_scalar(orch, valid);
    simpler_orch_add_scalar(orch, j == 0);
    simpler_orch_submit(orch, PA_FUNC_SF, SIMPLER_CORE_TYPE_AIV);

    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &p);
    simpler_orch_add_input(orch, &args->tensors[PA_ARG_VALUE_CACHE]);
    simpler_orch_add_input(orch, &entry);
    simpler_orch_add_input(orch, &alpha);
    add_state(orch, o, j == 0);
    simpler_orch_add_scalar(orch, valid);
    simpler_orch_add_scalar(orch, j == 0);
    simpler_orch_submit(orch, PA_FUNC_PV, SIMPLER_CORE_TYPE_AIC);
}

int paged_attention_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    pa_dims d;
    int rc = args_check(args, &d);
    if (rc != 0)
        return rc;
    uint32_t od[2] = {d.heads, d.head_dim};
    for (uint32_t b = 0; b < d.batch; b++) {
        ChipTensor state[3]; /* m, l, o */
        simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &d.heads, &state[0]);
        simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &d.heads, &state[1]);
        simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 2, od, &state[2]);
        uint64_t len = args->scalars[PA_SCALAR_CONTEXT_LEN + b];
        uint32_t nblocks = (uint32_t)((len + d.block_size - 1) / d.block_size);
        for (uint32_t j = 0; j < nblocks; j++)
            block_tasks(orch, args, &d, b, j, state);
        ChipTensor out = simpler_tensor_view_index(&args->tensors[PA_ARG_OUT], b);
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &state[2]);
        simpler_orch_add_input(orch, &state[1]);
        simpler_orch_add_output_existing(orch, &out);
        simpler_orch_submit(orch, PA_FUNC_FN, SIMPLER_CORE_TYPE_AIV);
    }
    return 0;
}
