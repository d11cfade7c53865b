/* The matmul_add example end to end in program mode: L layers of
 * y = h @ w[l] + bias[l] over independent row chunks, DEVICE and HOST
 * tensors, against a plain-C golden (examples/matmul_add). */
#include "../../../examples/matmul_add/matmul_add_golden.h"
#include "example_test.h"

static void matmul_add_device_tensors_match_golden(void **state)
{
    example_case c;
    (void)state;
    matmul_add_case_make(&c, MATMUL_ADD_DEFAULT_ROWS, MATMUL_ADD_DEFAULT_K, MATMUL_ADD_DEFAULT_LAYERS);
    example_case_check("matmul_add", &c, EXAMPLE_DEVICE, 0);
    example_case_check("matmul_add", &c, EXAMPLE_DEVICE, 3);
}

static void matmul_add_host_tensors_match_golden(void **state)
{
    example_case c;
    (void)state;
    matmul_add_case_make(&c, MATMUL_ADD_DEFAULT_ROWS, MATMUL_ADD_DEFAULT_K, MATMUL_ADD_DEFAULT_LAYERS);
    example_case_check("matmul_add", &c, EXAMPLE_HOST, 0);
    example_case_check("matmul_add", &c, EXAMPLE_HOST, 4);
}

/* Row counts below and off the chunk count, one layer, rectangular K. */
static void matmul_add_odd_shapes_match_golden(void **state)
{
    static const uint32_t shapes[][3] = {{1, 8, 1}, {5, 8, 2}, {37, 32, 4}, {128, 4, 6}};
    (void)state;
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        example_case c;
        matmul_add_case_make(&c, shapes[i][0], shapes[i][1], shapes[i][2]);
        example_case_check("matmul_add", &c, i % 2 ? EXAMPLE_HOST : EXAMPLE_DEVICE, 30 + i);
    }
}

/* A matmul and an add per layer per chunk. */
static void matmul_add_graph_alternates_matmul_and_add(void **state)
{
    example_case c;
    SimplerGraphRequirements req;
    (void)state;
    matmul_add_case_make(&c, MATMUL_ADD_DEFAULT_ROWS, MATMUL_ADD_DEFAULT_K, MATMUL_ADD_DEFAULT_LAYERS);
    assert_int_equal(example_requirements("matmul_add", &c, &req), 0);
    assert_int_equal(req.task_count, MATMUL_ADD_CHUNKS * MATMUL_ADD_DEFAULT_LAYERS * 2);
    matmul_add_case_make(&c, 2, 8, 5);
    assert_int_equal(example_requirements("matmul_add", &c, &req), 0);
    assert_int_equal(req.task_count, 2 * 5 * 2);
}

static void matmul_add_rejects_weights_of_another_width(void **state)
{
    example_case c;
    SimplerGraphRequirements req;
    (void)state;
    matmul_add_case_make(&c, 16, 8, 2);
    c.tensors[MATMUL_ADD_ARG_W].shapes[2] = 4;
    assert_int_equal(example_requirements("matmul_add", &c, &req), EXAMPLE_ERR_BAD_ARGS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matmul_add_device_tensors_match_golden),
        cmocka_unit_test(matmul_add_host_tensors_match_golden),
        cmocka_unit_test(matmul_add_odd_shapes_match_golden),
        cmocka_unit_test(matmul_add_graph_alternates_matmul_and_add),
        cmocka_unit_test(matmul_add_rejects_weights_of_another_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
