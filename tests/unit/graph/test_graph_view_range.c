/*
 * The range arithmetic of graph_tensor.h: every dtype's size is a power
 * of two (graph_dtype_shift relies on it), and graph_view_fits, which
 * asks with a shift, answers as the plain multiply-and-compare would,
 * wrapping included.
 */
#include "support.h"

#include "graph/graph_tensor.h"

/* The question graph_view_fits answers, asked the long way: the end of
 * the view in bytes, (start + extent) * elem, computed without wrapping,
 * is at most buffer_bytes. */
static int fits_by_multiply(uint32_t elem, uint64_t extent, uint64_t start, uint64_t bytes)
{
    uint64_t end;
    if (__builtin_add_overflow(start, extent, &end) || __builtin_mul_overflow(end, (uint64_t)elem, &end))
        return 0;
    return end <= bytes;
}

static void every_dtype_size_is_its_shift(void **state)
{
    (void)state;
    for (uint32_t dtype = 1; dtype < SIMPLER_DTYPE_COUNT; dtype++) {
        uint32_t bytes = tensor_dtype_bytes(dtype);
        assert_true(bytes != 0);
        assert_int_equal(1u << graph_dtype_shift(dtype), bytes);
    }
    assert_int_equal(tensor_dtype_bytes(0), 0);
    assert_int_equal(tensor_dtype_bytes(SIMPLER_DTYPE_COUNT), 0);
}

/* Small numbers exhaustively, then the edges of 64 bits. */
static void fits_agrees_with_the_multiply(void **state)
{
    (void)state;
    for (uint32_t shift = 0; shift <= 3; shift++) {
        for (uint64_t bytes = 0; bytes < 40; bytes++)
            for (uint64_t start = 0; start < 12; start++)
                for (uint64_t extent = 0; extent < 12; extent++)
                    assert_int_equal(graph_view_fits(shift, extent, start, bytes),
                                     fits_by_multiply(1u << shift, extent, start, bytes));
    }
    const uint64_t edges[] = {0, 1, 2, 7, 8, 9, UINT64_MAX / 8 - 1, UINT64_MAX / 8, UINT64_MAX / 8 + 1,
                              UINT64_MAX / 2, UINT64_MAX / 2 + 1, UINT64_MAX - 8, UINT64_MAX - 1, UINT64_MAX};
    const size_t n = sizeof(edges) / sizeof(edges[0]);
    for (uint32_t shift = 0; shift <= 3; shift++)
        for (size_t b = 0; b < n; b++)
            for (size_t s = 0; s < n; s++)
                for (size_t e = 0; e < n; e++)
                    assert_int_equal(graph_view_fits(shift, edges[e], edges[s], edges[b]),
                                     fits_by_multiply(1u << shift, edges[e], edges[s], edges[b]));
}

/* graph_view_bytes: the byte range of a view that fits, nothing for one
 * that does not or for an unknown element size. */
static void view_bytes_gives_the_range_of_a_view_that_fits(void **state)
{
    (void)state;
    uint64_t first = 7, end = 7;
    assert_int_equal(graph_view_bytes(4, 16, 3, 76, &first, &end), 0);
    assert_int_equal(first, 12);
    assert_int_equal(end, 76);
    first = end = 7;
    assert_int_equal(graph_view_bytes(4, 16, 3, 75, &first, &end), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_view_bytes(4, UINT64_MAX, 1, UINT64_MAX, &first, &end), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_view_bytes(0, 1, 0, 64, &first, &end), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(first, 7);
    assert_int_equal(end, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_dtype_size_is_its_shift),
        cmocka_unit_test(fits_agrees_with_the_multiply),
        cmocka_unit_test(view_bytes_gives_the_range_of_a_view_that_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
