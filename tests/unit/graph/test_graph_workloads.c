/* Workload-shaped graphs build with exactly the expected edges, and their
 * images validate:
 *   W1  a chain of 10,000 tasks through heap intermediates;
 *   W2  a fan 1 -> 10,000 -> 1 over slices of one heap tensor and one
 *       caller tensor;
 *   W3  100 layers x 100 tasks, task j of layer l reading elements
 *       j-1..j+1 of layer l-1's buffer. */
#include "graph_test_util.h"

#define W_TASKS 10000u
#define W3_LAYERS 100u
#define W3_WIDTH 100u

static int orch_w1(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t shape = 16;
    ChipTensor prev = args->tensors[0], next;
    for (uint32_t i = 0; i < W_TASKS; i++) {
        simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &next);
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &prev);
        simpler_orch_add_output(orch, &next);
        simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
        prev = next;
    }
    return 0;
}

static int orch_w2(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t shape = W_TASKS;
    const ChipTensor *y = &args->tensors[1];
    ChipTensor x;
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &x);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &args->tensors[0]);
    simpler_orch_add_output(orch, &x);
    simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    for (uint32_t i = 0; i < W_TASKS; i++) {
        ChipTensor xi = fixture_tensor_slice(&x, i, 1), yi = fixture_tensor_slice(y, i, 1);
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &xi);
        simpler_orch_add_output_existing(orch, &yi);
        simpler_orch_submit(orch, 1, SIMPLER_CORE_TYPE_AIV);
    }
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, y);
    simpler_orch_add_output_existing(orch, &args->tensors[2]);
    return simpler_orch_submit(orch, 2, SIMPLER_CORE_TYPE_AIC);
}

static int orch_w3(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    for (uint32_t l = 0; l < W3_LAYERS; l++) {
        for (uint32_t j = 0; j < W3_WIDTH; j++) {
            uint32_t lo = j > 0 ? j - 1 : 0, hi = j + 1 < W3_WIDTH ? j + 1 : j;
            ChipTensor in = fixture_tensor_slice(&args->tensors[l], lo, hi - lo + 1);
            ChipTensor out = fixture_tensor_slice(&args->tensors[l + 1], j, 1);
            simpler_orch_args_begin(orch);
            simpler_orch_add_input(orch, &in);
            simpler_orch_add_output_existing(orch, &out);
            simpler_orch_submit(orch, (int32_t)(l % 2), SIMPLER_CORE_TYPE_AIV);
        }
    }
    return 0;
}

static const graph *build_checked(graph_scratch *s, SimplerOrchEntryFn entry, const ChipStorageTaskArgs *args)
{
    const graph *g = NULL;
    assert_int_equal(graph_build_run(s, entry, args, &g), 0);
    gt_assert_image_valid(g);
    return g;
}

static void graph_w1_chain_of_10000_has_9999_edges(void **state)
{
    graph_scratch *s = *state;
    ChipStorageTaskArgs *args = fixture_args_new();
    gt_args_add_tensor(args, DEV_A, 16, SIMPLER_ADDRESS_SPACE_DEVICE);
    const graph *g = build_checked(s, orch_w1, args);
    assert_int_equal(g->task_count, W_TASKS);
    assert_int_equal(g->edge_count, W_TASKS - 1);
    assert_int_equal(g->heap_bytes, (uint64_t)W_TASKS * 1024);
    for (uint32_t i = 1; i < W_TASKS; i++) {
        assert_int_equal(g->tasks[i].fanin_count, 1);
        assert_int_equal(g->fanin[g->tasks[i].fanin_begin], i - 1);
    }
    free(args);
}

static void graph_w2_fan_out_and_in_has_20000_edges(void **state)
{
    graph_scratch *s = *state;
    ChipStorageTaskArgs *args = fixture_args_new();
    gt_args_add_tensor(args, DEV_A, 16, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_tensor(args, DEV_OUT, W_TASKS, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_tensor(args, 0x900000u, 16, SIMPLER_ADDRESS_SPACE_DEVICE);
    const graph *g = build_checked(s, orch_w2, args);
    assert_int_equal(g->task_count, W_TASKS + 2);
    assert_int_equal(g->edge_count, 2 * W_TASKS);
    const graph_image_task *last = &g->tasks[W_TASKS + 1];
    assert_int_equal(last->fanin_count, W_TASKS);
    for (uint32_t k = 0; k < W_TASKS; k++)
        assert_int_equal(g->fanin[last->fanin_begin + k], k + 1);
    free(args);
}

static void graph_w3_layers_have_three_edges_per_inner_task(void **state)
{
    graph_scratch *s = *state;
    ChipStorageTaskArgs *args = fixture_args_new();
    for (uint32_t l = 0; l <= W3_LAYERS; l++)
        gt_args_add_tensor(args, 0x1000000u + (uint64_t)l * 0x10000u, W3_WIDTH, SIMPLER_ADDRESS_SPACE_DEVICE);
    const graph *g = build_checked(s, orch_w3, args);
    assert_int_equal(g->task_count, W3_LAYERS * W3_WIDTH);
    /* Layers 1..99: 100 tasks with 3 predecessors, less one at each edge. */
    assert_int_equal(g->edge_count, (W3_LAYERS - 1) * (3 * W3_WIDTH - 2));
    const graph_image_task *t = &g->tasks[5 * W3_WIDTH + 7];
    assert_int_equal(t->fanin_count, 3);
    assert_int_equal(g->fanin[t->fanin_begin], 4 * W3_WIDTH + 6);
    assert_int_equal(g->fanin[t->fanin_begin + 2], 4 * W3_WIDTH + 8);
    free(args);
}

static int setup(void **state)
{
    *state = gt_scratch(16384);
    return 0;
}

static int teardown(void **state)
{
    graph_scratch_destroy(*state);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(graph_w1_chain_of_10000_has_9999_edges),
        cmocka_unit_test(graph_w2_fan_out_and_in_has_20000_edges),
        cmocka_unit_test(graph_w3_layers_have_three_edges_per_inner_task),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
