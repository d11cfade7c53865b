/* Requirements of built graphs equal hand-computed numbers (formulas in
 * src/graph/requirements.h). */
#include "graph_test_util.h"

#include "graph/requirements.h"

static void graph_requirements_of_diamond_match_hand_computed(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(8);
    ChipStorageTaskArgs *args = diamond_args(SIMPLER_ADDRESS_SPACE_DEVICE, SIMPLER_ADDRESS_SPACE_DEVICE);
    const graph *g = NULL;
    SimplerGraphRequirements r;
    assert_int_equal(graph_build_run(s, orch_diamond, args, &g), 0);
    assert_int_equal(graph_requirements_of(g, &r), 0);
    assert_int_equal(r.task_count, 4);
    assert_int_equal(r.gm_heap_bytes, 3 * 1024);           /* c, d, e: 64 bytes each, 1024-aligned */
    assert_int_equal(r.graph_definition_bytes, 96 + 56 + 4 * 32 + 10 * 32 + 4 * 4); /* one view */;
    assert_int_equal(r.runtime_arena_bytes, 256 + 4 * 16 + 64 * 448);
    assert_int_equal(r.scheduler_state_bytes, 2 * (64 + 4 * 64));
    assert_int_equal(r.retained_temp_bytes, 0);
    graph_scratch_destroy(s);
    free(args);
}

static void graph_requirements_count_staged_host_tensors(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(8);
    ChipStorageTaskArgs *args = diamond_args(SIMPLER_ADDRESS_SPACE_HOST, SIMPLER_ADDRESS_SPACE_HOST);
    const graph *g = NULL;
    SimplerGraphRequirements r;
    assert_int_equal(graph_build_run(s, orch_diamond, args, &g), 0);
    assert_int_equal(graph_requirements_of(g, &r), 0);
    assert_int_equal(r.retained_temp_bytes, 2 * 1024);     /* two 64-byte copies, 1024-aligned */
    assert_int_equal(r.graph_definition_bytes, 96 + 2 * 32 + 56 + 4 * 32 + 10 * 32 + 4 * 4);
    graph_scratch_destroy(s);
    free(args);
}

static int orch_chain_of_n(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t shape = 300; /* 1200 bytes: two heap units each */
    ChipTensor prev, next;
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &prev);
    for (uint64_t i = 0; i < args->scalars[0]; i++) {
        simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &next);
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &prev);
        simpler_orch_add_output(orch, &next);
        simpler_orch_submit(orch, 3, SIMPLER_CORE_TYPE_AIC);
        prev = next;
    }
    return 0;
}

static void graph_requirements_scale_with_task_count(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(256);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    SimplerGraphRequirements r;
    gt_args_add_scalar(args, 100);
    assert_int_equal(graph_build_run(s, orch_chain_of_n, args, &g), 0);
    assert_int_equal(graph_requirements_of(g, &r), 0);
    assert_int_equal(r.task_count, 100);
    assert_int_equal(r.gm_heap_bytes, 101 * 2048);
    assert_int_equal(r.runtime_arena_bytes, 256 + 100 * 16 + 64 * 448);
    assert_int_equal(r.scheduler_state_bytes, 2 * (64 + 4 * 128)); /* 128 = next_pow2(100) */
    assert_int_equal(r.graph_definition_bytes, 96 + 56 + 100 * 32 + 200 * 32 + 99 * 4);
    graph_scratch_destroy(s);
    free(args);
}

static void graph_requirement_formulas_match_their_layout(void **state)
{
    (void)state;
    /* header 256 | 64 slots of 448 | 16 per task */
    assert_int_equal(graph_runtime_core_slot_offset(0), 256);
    assert_int_equal(graph_runtime_core_slot_offset(1), 256 + 448);
    assert_int_equal(graph_runtime_task_state_offset(0), 256 + 64 * 448);
    assert_int_equal(graph_runtime_task_state_offset(10), 256 + 64 * 448 + 160);
    assert_int_equal(graph_runtime_arena_bytes(0), 256 + 64 * 448);
    assert_int_equal(graph_runtime_arena_bytes(12), 256 + 64 * 448 + 12 * 16);
    assert_int_equal(graph_runtime_clear_bytes(6), 256 + 6 * 448);
    assert_int_equal(graph_ready_queue_slots(0), 64);
    assert_int_equal(graph_ready_queue_slots(64), 64);
    assert_int_equal(graph_ready_queue_slots(65), 128);
    assert_int_equal(graph_ready_queue_slots(GRAPH_TASK_WINDOW_MAX), GRAPH_TASK_WINDOW_MAX);
    assert_int_equal(graph_scheduler_state_bytes(1), 2 * (64 + 256));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(graph_requirements_of_diamond_match_hand_computed),
        cmocka_unit_test(graph_requirements_count_staged_host_tensors),
        cmocka_unit_test(graph_requirements_scale_with_task_count),
        cmocka_unit_test(graph_requirement_formulas_match_their_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
