/* include/simpler/tensor_view.h: the public views and element access
 * the examples use, checked against simpler_tensor_make's tensors. */
#include "support.h"

#include <string.h>

#include "simpler/runtime_c_api.h"
#include "simpler/tensor_view.h"

static float data[4 * 6];

static ChipTensor make(uint32_t ndims, const uint32_t *shapes)
{
    ChipTensor t;
    assert_int_equal(simpler_tensor_make(&t, data, SIMPLER_DTYPE_FLOAT32, ndims, shapes, SIMPLER_ADDRESS_SPACE_HOST),
                     0);
    return t;
}

static void tensor_view_elements_and_density_follow_the_strides(void **state)
{
    const uint32_t shapes[] = {4, 6};
    (void)state;
    ChipTensor t = make(2, shapes);
    assert_int_equal(simpler_tensor_elements(&t), 24);
    assert_true(simpler_tensor_is_dense(&t));
    t.strides[0] = 7; /* padded rows: no longer dense */
    assert_false(simpler_tensor_is_dense(&t));
    t.ndims = 0;
    assert_false(simpler_tensor_is_dense(&t));
    assert_int_equal(simpler_tensor_elements(&t), 1);
}

static void tensor_view_flat_rows_and_index_address_the_right_elements(void **state)
{
    const uint32_t shapes[] = {4, 6};
    (void)state;
    for (uint32_t i = 0; i < 24; i++)
        data[i] = (float)i;
    ChipTensor t = make(2, shapes);
    ChipTensor flat = simpler_tensor_view_flat(&t, 5, 7);
    assert_int_equal(flat.ndims, 1);
    assert_int_equal(flat.shapes[0], 7);
    assert_int_equal(flat.shapes[1], 0);
    assert_int_equal(flat.strides[1], 0);
    assert_true(simpler_tensor_f32(&flat)[0] == 5.0f);
    assert_true(simpler_tensor_f32(&flat)[6] == 11.0f);
    ChipTensor rows = simpler_tensor_view_rows(&t, 1, 2);
    assert_int_equal(rows.shapes[0], 2);
    assert_int_equal(rows.shapes[1], 6);
    assert_int_equal(simpler_tensor_elements(&rows), 12);
    assert_true(*simpler_tensor_at2_f32(&rows, 0, 0) == 6.0f);
    assert_true(*simpler_tensor_at2_f32(&rows, 1, 5) == 17.0f);
    ChipTensor row = simpler_tensor_view_index(&t, 3);
    assert_int_equal(row.ndims, 1);
    assert_int_equal(row.shapes[0], 6);
    assert_int_equal(row.shapes[1], 0);
    assert_true(simpler_tensor_is_dense(&row));
    assert_true(simpler_tensor_f32(&row)[2] == 20.0f);
    /* Views of views compose; the buffer never changes. */
    ChipTensor sub = simpler_tensor_view_flat(&row, 1, 2);
    assert_int_equal(sub.buffer_addr, t.buffer_addr);
    assert_int_equal(sub.buffer_bytes, t.buffer_bytes);
    assert_true(simpler_tensor_f32(&sub)[1] == 20.0f);
    int32_t ints[3] = {7, 8, 9};
    const uint32_t n = 3;
    ChipTensor it;
    assert_int_equal(simpler_tensor_make(&it, ints, SIMPLER_DTYPE_INT32, 1, &n, SIMPLER_ADDRESS_SPACE_HOST), 0);
    ChipTensor tail = simpler_tensor_view_flat(&it, 1, 2);
    assert_int_equal(simpler_tensor_i32(&tail)[1], 9);
}

static void tensor_view_block_ranges_cover_every_item_once(void **state)
{
    (void)state;
    for (uint32_t dim = 0; dim <= 7; dim++) {
        uint64_t next = 0;
        uint32_t blocks = dim == 0 ? 1 : dim;
        for (uint32_t b = 0; b < blocks; b++) {
            uint64_t lo, hi;
            simpler_block_range(23, b, dim, &lo, &hi);
            assert_int_equal(lo, next);
            assert_true(hi >= lo);
            next = hi;
        }
        assert_int_equal(next, 23);
    }
}

static void tensor_view_f32_scalars_round_trip_in_the_low_bits(void **state)
{
    (void)state;
    const float values[] = {0.0f, 1.25f, -8.5f, 3.0e38f};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        uint64_t bits = simpler_f32_scalar(values[i]);
        assert_int_equal(bits >> 32, 0);
        assert_true(simpler_scalar_f32(bits) == values[i]);
        assert_true(simpler_scalar_f32(bits | 0xffffffff00000000ull) == values[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tensor_view_elements_and_density_follow_the_strides),
        cmocka_unit_test(tensor_view_flat_rows_and_index_address_the_right_elements),
        cmocka_unit_test(tensor_view_block_ranges_cover_every_item_once),
        cmocka_unit_test(tensor_view_f32_scalars_round_trip_in_the_low_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
