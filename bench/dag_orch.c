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

/* View handles of the slot buffer by slot count: one per distinct width
 * (1 first, then the fan's join), each checked once per build. */
struct slot_views {
    const ChipTensor *buffer;
    uint32_t count[2];
    uint32_t handle[2];
    uint32_t made;
};

static int slots_handle(SimplerOrch *orch, struct slot_views *v, uint32_t count, uint32_t *handle)
{
    for (uint32_t k = 0; k < v->made; k++)
        if (v->count[k] == count) {
            *handle = v->handle[k];
            return 0;
        }
    if (v->made == 2)
        return -1;
    ChipTensor t = slots_view(v->buffer, 0, count);
    int rc = simpler_orch_view_make(orch, &t, &v->handle[v->made]);
    if (rc != 0)
        return rc;
    v->count[v->made] = count;
    *handle = v->handle[v->made++];
    return 0;
}

/* One task in one call: its input windows, then its output slot. */
static int submit_task(SimplerOrch *orch, struct slot_views *views, enum dag_shape shape, int32_t func, uint32_t i)
{
    struct dag_task task;
    SimplerOrchViewArg arg[DAG_INPUTS_MAX + 1];
    dag_shape_task(shape, i, &task);
    for (uint32_t k = 0; k < task.input_count; k++) {
        uint32_t slots = task.inputs[k].slot_count;
        int rc = slots == 1 ? 0 : slots_handle(orch, views, slots, &arg[k].view);
        if (rc != 0)
            return rc;
        if (slots == 1)
            arg[k].view = views->handle[0];
        arg[k].start_offset = (uint64_t)task.inputs[k].first_slot * DAG_ORCH_SLOT_ELEMS;
        arg[k].tag = SIMPLER_TAG_INPUT;
    }
    arg[task.input_count] = (SimplerOrchViewArg){.start_offset = (uint64_t)i * DAG_ORCH_SLOT_ELEMS,
                                                 .view = views->handle[0],
                                                 .tag = SIMPLER_TAG_OUTPUT_EXISTING};
    return simpler_orch_submit_views(orch, func, SIMPLER_CORE_TYPE_AIV, arg, task.input_count + 1);
}

int bench_dag_orchestration(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    if (args->tensor_count < 1 || args->scalar_count < 2 || args->scalars[0] >= DAG_SHAPE_COUNT ||
        (args->scalars[1] != DAG_ORCH_FUNC_EMPTY && args->scalars[1] != DAG_ORCH_FUNC_CHECK))
        return -1;
    enum dag_shape shape = (enum dag_shape)args->scalars[0];
    int32_t func = (int32_t)args->scalars[1];
    uint32_t count = dag_shape_task_count(shape);
    struct slot_views views = {.buffer = &args->tensors[0], .made = 0};
    uint32_t one;
    /* The one-slot window first: handle[0], which every task writes. */
    int rc = slots_handle(orch, &views, 1, &one);
    for (uint32_t i = 0; rc == 0 && i < count; i++)
        rc = submit_task(orch, &views, shape, func, i);
    return rc;
}
