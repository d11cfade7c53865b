/* The paged_attention example end to end in program mode: online softmax
 * over KV blocks found through a block table the kernels read on the
 * device, DEVICE and HOST tensors, against a plain-softmax golden in
 * double precision (examples/paged_attention), rtol = atol = 1e-3. */
#include <math.h>

#include "../../../examples/paged_attention/paged_attention_golden.h"
#include "example_test.h"

static void pa_default_case_matches_plain_softmax_with_device_tensors(void **state)
{
    example_case c;
    (void)state;
    pa_case_default(&c);
    example_case_check("paged_attention", &c, EXAMPLE_DEVICE, 0);
    example_case_check("paged_attention", &c, EXAMPLE_DEVICE, 9);
}

static void pa_default_case_matches_plain_softmax_with_host_tensors(void **state)
{
    example_case c;
    (void)state;
    pa_case_default(&c);
    example_case_check("paged_attention", &c, EXAMPLE_HOST, 0);
    example_case_check("paged_attention", &c, EXAMPLE_HOST, 10);
}

/* Batches of different lengths: a partial block, exactly one block, a
 * single token, and a full table. */
static void pa_batches_of_different_lengths_match(void **state)
{
    static const uint32_t lens[4] = {50, 16, 1, 64};
    example_case c;
    (void)state;
    pa_case_make(&c, 4, 2, 16, 16, 8, 4, lens);
    example_case_check("paged_attention", &c, EXAMPLE_DEVICE, 1);
    example_case_check("paged_attention", &c, EXAMPLE_HOST, 2);
}

/* Other head counts, head dims and block sizes. */
static void pa_other_geometries_match(void **state)
{
    static const uint32_t lens[2] = {33, 70};
    example_case c;
    (void)state;
    pa_case_make(&c, 2, 8, 32, 8, 12, 9, lens);
    example_case_check("paged_attention", &c, EXAMPLE_DEVICE, 3);
    pa_case_make(&c, 1, 1, 4, 32, 3, 3, lens);
    example_case_check("paged_attention", &c, EXAMPLE_HOST, 4);
}

/* The smallest physical block id the table row does not name. */
static int32_t block_not_in(const int32_t *row, uint32_t width)
{
    for (int32_t pb = 0;; pb++) {
        int used = 0;
        for (uint32_t j = 0; j < width; j++)
            used |= row[j] == pb;
        if (!used)
            return pb;
    }
}

/* Changing only the block table on the device changes the result to the
 * new golden: the table is read by the kernels at run time, not baked
 * into the graph by the orchestration. */
static void pa_block_table_is_read_on_the_device(void **state)
{
    example_case c;
    (void)state;
    pa_case_default(&c);
    example_fixture *f = example_fixture_open("paged_attention");
    example_run *r = example_run_create(f, &c, EXAMPLE_DEVICE);
    example_run_checked(f, &c, r, 0);
    uint64_t n = example_spec_elements(&c.tensors[PA_ARG_OUT]);
    float *before = malloc(n * sizeof(float));
    assert_non_null(before);
    memcpy(before, example_run_output(&c, r), n * sizeof(float));

    /* Point logical block 0 at a physical block the table did not use
     * (attention is order-free, so a mere swap would change nothing). */
    int32_t *table = r->b.host[PA_ARG_BLOCK_TABLE];
    int32_t unused = block_not_in(table, PA_DEFAULT_TABLE_WIDTH);
    assert_true(unused < (int32_t)PA_DEFAULT_BLOCKS);
    table[0] = unused;
    c.reference(&c, r->b.host, r->b.expected);
    assert_int_equal(copy_to_device_ctx(f->ctx, r->b.dev[PA_ARG_BLOCK_TABLE], table,
                                        example_spec_bytes(&c.tensors[PA_ARG_BLOCK_TABLE])),
                     0);
    assert_int_equal(simpler_run(f->ctx, EXAMPLE_TEST_ID, r->args, NULL), 0);
    example_check_result res = {0, 0, 0, 0.0};
    assert_int_equal(example_output_check(f->ctx, &c, &r->b, &res), 0);
    assert_int_equal(res.mismatches, 0);
    example_check_result moved = example_compare(before, r->b.expected, n, c.rtol, c.atol);
    assert_true(moved.mismatches > 0);
    free(before);
    example_run_destroy(f, r);
    example_fixture_close(f);
}

/* Per batch: QK, SF and PV per logical block, then one normalize. */
static void pa_graph_has_three_tasks_per_block_and_one_normalize(void **state)
{
    static const uint32_t lens[2] = {50, 17};
    example_case c;
    SimplerGraphRequirements req;
    (void)state;
    pa_case_default(&c);
    assert_int_equal(example_requirements("paged_attention", &c, &req), 0);
    assert_int_equal(req.task_count, 4 * 3 + 1);
    pa_case_make(&c, 2, 4, 16, 16, 8, 4, lens);
    assert_int_equal(example_requirements("paged_attention", &c, &req), 0);
    assert_int_equal(req.task_count, (4 * 3 + 1) + (2 * 3 + 1));
}

static void pa_rejects_a_context_longer_than_its_table(void **state)
{
    static const uint32_t lens[1] = {4 * 16 + 1};
    example_case c;
    SimplerGraphRequirements req;
    (void)state;
    pa_case_make(&c, 1, 4, 16, 16, 8, 4, lens);
    assert_int_equal(example_requirements("paged_attention", &c, &req), EXAMPLE_ERR_BAD_ARGS);
    /* A length in an unused batch slot is malformed too. */
    pa_case_default(&c);
    c.scalars[PA_SCALAR_CONTEXT_LEN + 1] = 5;
    assert_int_equal(example_requirements("paged_attention", &c, &req), EXAMPLE_ERR_BAD_ARGS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pa_default_case_matches_plain_softmax_with_device_tensors),
        cmocka_unit_test(pa_default_case_matches_plain_softmax_with_host_tensors),
        cmocka_unit_test(pa_batches_of_different_lengths_match),
        cmocka_unit_test(pa_other_geometries_match),
        cmocka_unit_test(pa_block_table_is_read_on_the_device),
        cmocka_unit_test(pa_graph_has_three_tasks_per_block_and_one_normalize),
        cmocka_unit_test(pa_rejects_a_context_longer_than_its_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
