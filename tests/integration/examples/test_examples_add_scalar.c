/* The add_scalar example end to end in program mode: y = x + s with the
 * scalar's float32 bits in scalar 0, DEVICE and HOST tensors, against its
 * golden (examples/add_scalar). */
#include "../../../examples/add_scalar/add_scalar_golden.h"
#include "example_test.h"

/* Seed 0 is x[i] = i % 127 and s = 1.25: every y is exact. */
static void add_scalar_output_is_x_plus_1_25(int device)
{
    example_case c;
    add_scalar_case_make(&c, ADD_SCALAR_DEFAULT_ELEMENTS);
    example_fixture *f = example_fixture_open("add_scalar");
    example_run *r = example_run_create(f, &c, device);
    example_run_checked(f, &c, r, 0);
    const float *y = example_run_output(&c, r);
    for (uint32_t i = 0; i < ADD_SCALAR_DEFAULT_ELEMENTS; i++)
        if (y[i] != (float)(i % 127) + 1.25f)
            fail_msg("y[%u] = %g, want %g", i, (double)y[i], (double)(i % 127) + 1.25);
    example_run_destroy(f, r);
    example_fixture_close(f);
}

static void add_scalar_device_tensors_add_the_scalar(void **state)
{
    (void)state;
    add_scalar_output_is_x_plus_1_25(EXAMPLE_DEVICE);
}

static void add_scalar_host_tensors_add_the_scalar(void **state)
{
    (void)state;
    add_scalar_output_is_x_plus_1_25(EXAMPLE_HOST);
}

static void add_scalar_random_inputs_match_golden_in_both_address_spaces(void **state)
{
    static const uint32_t sizes[] = {1, 2, 777, 65536};
    (void)state;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        example_case c;
        add_scalar_case_make(&c, sizes[i]);
        example_case_check("add_scalar", &c, EXAMPLE_DEVICE, 11 + i);
        example_case_check("add_scalar", &c, EXAMPLE_HOST, 21 + i);
    }
}

/* Two calls with different scalars and different buffers on one context:
 * each leaves exactly its own result (no cross-talk between calls). */
static void add_scalar_each_run_uses_its_own_scalar_and_addresses(void **state)
{
    example_case c1, c2;
    (void)state;
    add_scalar_case_make(&c1, 4096);
    add_scalar_case_make(&c2, 4096);
    example_fixture *f = example_fixture_open("add_scalar");
    example_run *r1 = example_run_create(f, &c1, EXAMPLE_DEVICE);
    example_run *r2 = example_run_create(f, &c2, EXAMPLE_DEVICE);
    example_run_checked(f, &c1, r1, 0);
    example_run_checked(f, &c2, r2, 5);
    assert_true(c1.scalars[0] != c2.scalars[0]);
    /* Run 1's device output is still its own after run 2. */
    example_check_result res = {0, 0, 0, 0.0};
    assert_int_equal(example_output_check(f->ctx, &c1, &r1->b, &res), 0);
    assert_int_equal(res.mismatches, 0);
    example_run_destroy(f, r2);
    example_run_destroy(f, r1);
    example_fixture_close(f);
}

static void add_scalar_graph_has_one_task_per_chunk(void **state)
{
    example_case c;
    SimplerGraphRequirements req;
    (void)state;
    add_scalar_case_make(&c, 1);
    assert_int_equal(example_requirements("add_scalar", &c, &req), 0);
    assert_int_equal(req.task_count, 1);
    add_scalar_case_make(&c, 4096);
    assert_int_equal(example_requirements("add_scalar", &c, &req), 0);
    assert_int_equal(req.task_count, ADD_SCALAR_CHUNKS);
}

static void add_scalar_rejects_a_float64_input(void **state)
{
    example_case c;
    SimplerGraphRequirements req;
    (void)state;
    add_scalar_case_make(&c, 64);
    c.tensors[ADD_SCALAR_ARG_X].dtype = SIMPLER_DTYPE_FLOAT64;
    assert_int_equal(example_requirements("add_scalar", &c, &req), EXAMPLE_ERR_BAD_ARGS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_scalar_device_tensors_add_the_scalar),
        cmocka_unit_test(add_scalar_host_tensors_add_the_scalar),
        cmocka_unit_test(add_scalar_random_inputs_match_golden_in_both_address_spaces),
        cmocka_unit_test(add_scalar_each_run_uses_its_own_scalar_and_addresses),
        cmocka_unit_test(add_scalar_graph_has_one_task_per_chunk),
        cmocka_unit_test(add_scalar_rejects_a_float64_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
