/* The vector example end to end in program mode: f = (a+b+1)(a+b+2) with
 * DEVICE and HOST tensors, against its golden (examples/vector). */
#include "../../../examples/vector/vector_golden.h"
#include "example_test.h"

static void vector_output_is_42_everywhere(int device)
{
    example_case c;
    vector_case_make(&c, VECTOR_DEFAULT_ELEMENTS);
    example_fixture *f = example_fixture_open("vector");
    example_run *r = example_run_create(f, &c, device);
    example_run_checked(f, &c, r, 0);
    const float *out = example_run_output(&c, r);
    for (uint32_t i = 0; i < VECTOR_DEFAULT_ELEMENTS; i++)
        if (out[i] != 42.0f)
            fail_msg("f[%u] = %g, want 42", i, (double)out[i]);
    example_run_destroy(f, r);
    example_fixture_close(f);
}

static void vector_device_tensors_give_42_everywhere(void **state)
{
    (void)state;
    vector_output_is_42_everywhere(EXAMPLE_DEVICE);
}

static void vector_host_tensors_give_42_everywhere(void **state)
{
    (void)state;
    vector_output_is_42_everywhere(EXAMPLE_HOST);
}

/* Sizes below, at and off the chunk count, 1-D and 2-D layouts. */
static void vector_random_inputs_match_golden_in_both_address_spaces(void **state)
{
    static const uint32_t sizes[] = {1, 3, 4, 1000, 128 * 3};
    (void)state;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        example_case c;
        vector_case_make(&c, sizes[i]);
        example_case_check("vector", &c, EXAMPLE_DEVICE, 1 + i);
        example_case_check("vector", &c, EXAMPLE_HOST, 100 + i);
    }
}

static void vector_one_million_elements_match_golden(void **state)
{
    example_case c;
    (void)state;
    vector_case_make(&c, VECTOR_MAX_ELEMENTS);
    example_case_check("vector", &c, EXAMPLE_DEVICE, 7);
}

/* Each run reads the inputs copied in just before it (outputs are reset
 * to -999 first, so a stale result cannot pass). */
static void vector_repeated_runs_take_fresh_inputs(void **state)
{
    example_case c;
    (void)state;
    vector_case_make(&c, 4096);
    example_fixture *f = example_fixture_open("vector");
    example_run *r = example_run_create(f, &c, EXAMPLE_DEVICE);
    for (uint64_t seed = 1; seed <= 3; seed++)
        example_run_checked(f, &c, r, seed);
    example_run_checked(f, &c, r, 0);
    assert_true(example_run_output(&c, r)[4095] == 42.0f);
    example_run_destroy(f, r);
    example_fixture_close(f);
}

/* Four tasks per chunk (add, two scalar adds, multiply), up to four
 * chunks. */
static void vector_graph_has_four_tasks_per_chunk(void **state)
{
    static const uint32_t sizes[] = {1, 3, 4, 16384};
    static const uint64_t tasks[] = {4, 12, 16, 16};
    (void)state;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        example_case c;
        SimplerGraphRequirements req;
        vector_case_make(&c, sizes[i]);
        assert_int_equal(example_requirements("vector", &c, &req), 0);
        assert_int_equal(req.task_count, tasks[i]);
        /* Three float32 intermediates of n elements, each 1024-aligned. */
        assert_true(req.gm_heap_bytes >= 3ull * sizes[i] * sizeof(float));
    }
}

static void vector_rejects_tensors_of_different_shapes(void **state)
{
    example_case c;
    SimplerGraphRequirements req;
    (void)state;
    vector_case_make(&c, 1000);
    c.tensors[VECTOR_ARG_B].shapes[0] = 999;
    assert_int_equal(example_requirements("vector", &c, &req), EXAMPLE_ERR_BAD_ARGS);
    vector_case_make(&c, 1000);
    c.tensors[VECTOR_ARG_F].dtype = SIMPLER_DTYPE_INT32;
    assert_int_equal(example_requirements("vector", &c, &req), EXAMPLE_ERR_BAD_ARGS);
}

static void vector_rejects_more_than_one_million_elements(void **state)
{
    example_case c;
    SimplerGraphRequirements req;
    (void)state;
    vector_case_make(&c, VECTOR_MAX_ELEMENTS + 128);
    assert_int_equal(example_requirements("vector", &c, &req), EXAMPLE_ERR_BAD_ARGS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vector_device_tensors_give_42_everywhere),
        cmocka_unit_test(vector_host_tensors_give_42_everywhere),
        cmocka_unit_test(vector_random_inputs_match_golden_in_both_address_spaces),
        cmocka_unit_test(vector_one_million_elements_match_golden),
        cmocka_unit_test(vector_repeated_runs_take_fresh_inputs),
        cmocka_unit_test(vector_graph_has_four_tasks_per_chunk),
        cmocka_unit_test(vector_rejects_tensors_of_different_shapes),
        cmocka_unit_test(vector_rejects_more_than_one_million_elements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
