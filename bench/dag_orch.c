/* The orchestration of dag_orch.h. */
#include "dag_orch.h"

/* The view of `count` slots from `first` of the slot buffer. */
static ChipTensor slots_view(const ChipTensor *buffer, uint32_t first, uint32_t count)
{
    ChipTensor v = *buffer;
    v.start_offset = (uint64_t)first * DAG_ORCH_SLOT_ELEMS;
    v.shapes[0] = count * DAG_ORCH_SLOT_ELEMS;
    return v;
}

static int submit_task(SimplerOrch *orch, const ChipTensor *buffer, enum dag_shape shape, int32_t func, uint32_t i)
{
    struct dag_task task;
    dag_shape_task(shape, i, &task);
    int rc = simpler_orch_args_begin(orch);
    for (uint32_t k = 0; rc == 0 && k < task.input_count; k++) {
        ChipTensor in = slots_view(buffer, task.inputs[k].first_slot, task.inputs[k].slot_count);
        rc = simpler_orch_add_input(orch, &in);
    }
    ChipTensor out = slots_view(buffer, i, 1);
    if (rc == 0)
        rc = simpler_orch_add_output_existing(orch, &out);
    return rc != 0 ? rc : simpler_orch_submit(orch, func, SIMPLER_CORE_TYPE_AIV);
}

int bench_dag_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    if (args->tensor_count < 1 || args->scalar_count < 2 || args->scalars[0] >= DAG_SHAPE_COUNT ||
        (args->scalars[1] != DAG_ORCH_FUNC_EMPTY && args->scalars[1] != DAG_ORCH_FUNC_CHECK))
        return -1;
    enum dag_shape shape = (enum dag_shape)args->scalars[0];
    int32_t func = (int32_t)args->scalars[1];
    uint32_t count = dag_shape_task_count(shape);
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < count; i++)
        rc = submit_task(orch, &args->tensors[0], shape, func, i);
    return rc;
}
