/* An orchestration's refused call fails the build with a reason naming
 * the task being described, the op, the argument's position and the
 * field with its value (docs/architecture.md, "Refusal reasons"). Each
 * orchestration below describes a valid task 0, then makes one mistake
 * in task 1. */
#include "graph_test_util.h"

#include <string.h>

#include "common/error.h"

enum mistake {
    BAD_DTYPE,
    BAD_TAG,
    OUTPUT_ON_CALLER_TENSOR,
    SUBMIT_WITHOUT_ARGS_BEGIN,
    SCALAR_WITHOUT_ARGS_BEGIN,
    CREATE_BAD_DTYPE,
    BAD_FUNC_ID,
    VIEW_PAST_BUFFER,
    HEAP_EXHAUSTED,
};

/* Task 0: reads caller tensor 0, writes a heap tensor. Task 1: the
 * mistake scalar 0 names. The entry keeps calling after a refusal, as a
 * careless orchestration would: only the first refusal is reported. */
static int orch_mistake(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint64_t which = 0;
    ChipTensor in, mid, bad;
    uint32_t shape = 8;
    if (simpler_orch_scalar(orch, 0, &which) != 0 || simpler_orch_tensor(orch, 0, &in) != 0)
        return 1;
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &mid);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &in);
    simpler_orch_add_output(orch, &mid);
    simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);

    if (which != SUBMIT_WITHOUT_ARGS_BEGIN && which != SCALAR_WITHOUT_ARGS_BEGIN)
        simpler_orch_args_begin(orch);
    bad = mid;
    switch (which) {
    case BAD_DTYPE:
        bad.dtype = 42;
        simpler_orch_add_input(orch, &mid);
        simpler_orch_add_input(orch, &bad);
        break;
    case BAD_TAG:
        orch->ops->add_tensor(orch, &mid, 9);
        break;
    case OUTPUT_ON_CALLER_TENSOR:
        simpler_orch_add_output(orch, &in);
        break;
    case SCALAR_WITHOUT_ARGS_BEGIN:
        simpler_orch_add_scalar(orch, 7);
        break;
    case CREATE_BAD_DTYPE:
        simpler_orch_tensor_create(orch, 42, 1, &shape, &bad);
        break;
    case VIEW_PAST_BUFFER:
        bad.shapes[0] = 9;
        simpler_orch_add_input(orch, &bad);
        break;
    case HEAP_EXHAUSTED: {
        uint32_t huge[2] = {1u << 20, 1u << 20};
        simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 2, huge, &bad);
        break;
    }
    default:
        break;
    }
    simpler_orch_submit(orch, which == BAD_FUNC_ID ? -1 : 3, SIMPLER_CORE_TYPE_AIV);
    /* A later mistake does not replace the first one's reason. */
    simpler_orch_submit(orch, 5000, SIMPLER_CORE_TYPE_AIV);
    (void)args;
    return 0;
}

/* Builds orch_mistake with `which` and checks the status and that the
 * reason contains `expected`. */
static void assert_mistake(enum mistake which, int status, const char *expected)
{
    graph_limits limits;
    graph_scratch *s = NULL;
    /* A 1 MiB graph heap, so that HEAP_EXHAUSTED runs out of it. */
    assert_int_equal(graph_limits_for_window(16, 1u << 20, 1u << 20, &limits), 0);
    assert_int_equal(graph_scratch_create(&limits, &s), 0);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    gt_args_add_tensor(args, DEV_A, 8, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_scalar(args, which);
    simpler_error_clear();
    assert_int_equal(graph_build_run(s, orch_mistake, args, &g), status);
    const char *why = simpler_last_error_message();
    if (strstr(why, expected) == NULL)
        fail_msg("mistake %d: reason \"%s\" does not contain \"%s\"", (int)which, why, expected);
    assert_null(strstr(why, "5000"));
    graph_scratch_destroy(s);
    free(args);
}

static void orch_reason_names_the_task_the_arg_and_the_dtype(void **state)
{
    (void)state;
    assert_mistake(BAD_DTYPE, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                   "orchestration: task 1: add_tensor (arg 1): tensor.dtype = 42: not a SIMPLER_DTYPE_*");
}

static void orch_reason_names_the_tag(void **state)
{
    (void)state;
    assert_mistake(BAD_TAG, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "orchestration: task 1: add_tensor (arg 0): tag = 9");
}

static void orch_reason_names_output_on_a_caller_tensor(void **state)
{
    (void)state;
    assert_mistake(OUTPUT_ON_CALLER_TENSOR, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                   "task 1: add_tensor (arg 0): tag = OUTPUT on a tensor of address_space 1");
}

static void orch_reason_names_a_call_out_of_order(void **state)
{
    (void)state;
    assert_mistake(SUBMIT_WITHOUT_ARGS_BEGIN, PTO_RUNTIME_ERR_INVALID_STATE,
                   "orchestration: task 1: submit: func_id 3: no args_begin");
    assert_mistake(SCALAR_WITHOUT_ARGS_BEGIN, PTO_RUNTIME_ERR_INVALID_STATE,
                   "orchestration: task 1: add_scalar (arg 0): no args_begin");
}

static void orch_reason_names_tensor_create_and_submit_fields(void **state)
{
    (void)state;
    assert_mistake(CREATE_BAD_DTYPE, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                   "orchestration: task 1: tensor_create: dtype = 42");
    assert_mistake(BAD_FUNC_ID, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "orchestration: task 1: submit: func_id = -1");
    assert_mistake(VIEW_PAST_BUFFER, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                   "task 1: add_tensor (arg 0): tensor.buffer_bytes = 32");
    assert_mistake(HEAP_EXHAUSTED, PTO_RUNTIME_ERR_CAPACITY_EXCEEDED, "task 1: tensor_create: 4398046511104 bytes");
}

/* An orchestration may probe the call's arguments: a reader's refusal
 * does not fail the build, so a build that succeeds leaves no reason. */
static int orch_probe(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    ChipTensor t;
    uint64_t v;
    (void)args;
    if (simpler_orch_tensor(orch, 99, &t) == 0 || simpler_orch_scalar(orch, 99, &v) == 0)
        return 1;
    return 0;
}

static void orch_reader_refusal_leaves_no_reason(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(16);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    simpler_error_clear();
    assert_int_equal(graph_build_run(s, orch_probe, args, &g), 0);
    assert_string_equal(simpler_last_error_message(), "");
    graph_scratch_destroy(s);
    free(args);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(orch_reason_names_the_task_the_arg_and_the_dtype),
        cmocka_unit_test(orch_reason_names_the_tag),
        cmocka_unit_test(orch_reason_names_output_on_a_caller_tensor),
        cmocka_unit_test(orch_reason_names_a_call_out_of_order),
        cmocka_unit_test(orch_reason_names_tensor_create_and_submit_fields),
        cmocka_unit_test(orch_reader_refusal_leaves_no_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
