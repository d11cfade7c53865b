/* simpler_tensor_make, simpler_dtype_size, simpler_call_config_default and
 * the shared validators (chip_tensor_check, task_args_check,
 * call_config_check): good inputs accepted, every bad input refused with
 * -1005 and no effect. */
#include <string.h>

#include "support.h"

#include "common/task_args_check.h"
#include "simpler/runtime_c_api.h"

#define INVALID PTO_RUNTIME_ERR_INVALID_ARGUMENT

static uint8_t buffer[4096];

static void tensor_make_fills_dense_row_major(void **state)
{
    (void)state;
    ChipTensor t;
    memset(&t, 0x77, sizeof t);
    const uint32_t shapes[3] = {2, 3, 4};
    assert_int_equal(simpler_tensor_make(&t, buffer, SIMPLER_DTYPE_FLOAT32, 3, shapes, SIMPLER_ADDRESS_SPACE_DEVICE), 0);
    assert_int_equal(t.buffer_addr, (uint64_t)(uintptr_t)buffer);
    assert_int_equal(t.buffer_bytes, 2 * 3 * 4 * 4);
    assert_int_equal(t.start_offset, 0);
    assert_int_equal(t.ndims, 3);
    assert_int_equal(t.dtype, SIMPLER_DTYPE_FLOAT32);
    assert_int_equal(t.address_space, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(t.strides[0], 12);
    assert_int_equal(t.strides[1], 4);
    assert_int_equal(t.strides[2], 1);
    assert_int_equal(t.shapes[3], 0);
    assert_int_equal(t.strides[4], 0);
    for (size_t i = 0; i < sizeof t.reserved; i++)
        assert_int_equal(t.reserved[i], 0);
    assert_int_equal(chip_tensor_check(&t), 0);
}

static void tensor_make_refuses_bad_input_without_effect(void **state)
{
    (void)state;
    const uint32_t good[5] = {2, 2, 2, 2, 2};
    const uint32_t zero_dim[2] = {4, 0};
    const uint32_t huge[5] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, 2, 2};
    struct {
        int null_t;
        uint8_t dtype;
        uint32_t ndims;
        const uint32_t *shapes;
        uint8_t space;
    } cases[] = {
        {1, SIMPLER_DTYPE_FLOAT32, 1, good, 0},     /* NULL tensor */
        {0, SIMPLER_DTYPE_FLOAT32, 1, NULL, 0},     /* NULL shapes */
        {0, 0, 1, good, 0},                         /* dtype 0 */
        {0, SIMPLER_DTYPE_COUNT, 1, good, 0},       /* dtype past the table */
        {0, SIMPLER_DTYPE_FLOAT32, 0, good, 0},     /* ndims 0 */
        {0, SIMPLER_DTYPE_FLOAT32, 6, good, 0},     /* ndims 6 */
        {0, SIMPLER_DTYPE_FLOAT32, 2, zero_dim, 0}, /* zero shape */
        {0, SIMPLER_DTYPE_FLOAT32, 1, good, 2},     /* unknown address space */
        {0, SIMPLER_DTYPE_INT64, 5, huge, 0},       /* element count overflows */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ChipTensor t, before;
        memset(&t, 0x5a, sizeof t);
        before = t;
        int rc = simpler_tensor_make(cases[i].null_t ? NULL : &t, buffer, cases[i].dtype, cases[i].ndims,
                                     cases[i].shapes, cases[i].space);
        assert_int_equal(rc, INVALID);
        assert_memory_equal(&t, &before, sizeof t);
    }
}

static void dtype_size_known_and_unknown(void **state)
{
    (void)state;
    assert_int_equal(simpler_dtype_size(SIMPLER_DTYPE_FLOAT32), 4);
    assert_int_equal(simpler_dtype_size(SIMPLER_DTYPE_FLOAT16), 2);
    assert_int_equal(simpler_dtype_size(SIMPLER_DTYPE_BFLOAT16), 2);
    assert_int_equal(simpler_dtype_size(SIMPLER_DTYPE_INT32), 4);
    assert_int_equal(simpler_dtype_size(SIMPLER_DTYPE_INT64), 8);
    assert_int_equal(simpler_dtype_size(SIMPLER_DTYPE_INT8), 1);
    assert_int_equal(simpler_dtype_size(SIMPLER_DTYPE_UINT8), 1);
    assert_int_equal(simpler_dtype_size(SIMPLER_DTYPE_INT16), 2);
    assert_int_equal(simpler_dtype_size(SIMPLER_DTYPE_FLOAT64), 8);
    assert_int_equal(simpler_dtype_size(0), 0);
    assert_int_equal(simpler_dtype_size(SIMPLER_DTYPE_COUNT), 0);
    assert_int_equal(simpler_dtype_size(255), 0);
}

static void call_config_default_is_valid(void **state)
{
    (void)state;
    CallConfig c;
    memset(&c, 0xee, sizeof c);
    assert_int_equal(simpler_call_config_default(&c), 0);
    assert_int_equal(c.struct_size, sizeof c);
    assert_int_equal(call_config_check(&c), 0);
    assert_int_equal(simpler_call_config_default(NULL), INVALID);
}

static void call_config_check_refuses_each_bad_field(void **state)
{
    (void)state;
    assert_int_equal(call_config_check(NULL), INVALID);
    for (int k = 0; k < 10; k++) {
        CallConfig c;
        simpler_call_config_default(&c);
        switch (k) {
        case 0: c.struct_size = sizeof c - 8; break;
        case 1: c.struct_size = sizeof c + 8; break;
        case 2: c.reserved0 = 1; break;
        case 3: c.reserved[3] = 1; break;
        case 4: memset(c.output_prefix, 'a', sizeof c.output_prefix); break;
        case 5: c.trace = 2; break;
        case 6: c.aicpu_thread_count = CALL_CONFIG_AICPU_THREADS_MAX + 1; break;
        case 7: c.aicore_count = CALL_CONFIG_AICORE_COUNT_MAX + 1; break;
        case 8: c.task_window = CALL_CONFIG_TASK_WINDOW_MAX + 1; break;
        case 9: c.heap_bytes = CALL_CONFIG_HEAP_BYTES_MAX + 1; break;
        }
        assert_int_equal(call_config_check(&c), INVALID);
    }
    CallConfig at_limits;
    simpler_call_config_default(&at_limits);
    at_limits.trace = 1;
    at_limits.aicpu_thread_count = CALL_CONFIG_AICPU_THREADS_MAX;
    at_limits.task_window = CALL_CONFIG_TASK_WINDOW_MAX;
    strcpy(at_limits.output_prefix, "trace/out");
    assert_int_equal(call_config_check(&at_limits), 0);
}

static void make_vector(ChipTensor *t)
{
    const uint32_t shape[1] = {16};
    assert_int_equal(simpler_tensor_make(t, buffer, SIMPLER_DTYPE_FLOAT32, 1, shape, SIMPLER_ADDRESS_SPACE_HOST), 0);
}

static void chip_tensor_check_refuses_each_bad_field(void **state)
{
    (void)state;
    assert_int_equal(chip_tensor_check(NULL), INVALID);
    for (int k = 0; k < 16; k++) {
        ChipTensor t;
        make_vector(&t);
        switch (k) {
        case 0: t.ndims = 0; break;
        case 1: t.ndims = 6; break;
        case 2: t.dtype = 0; break;
        case 3: t.address_space = 7; break;
        case 4: t.strides[0] = 0; break;
        case 5: t.shapes[0] = 0; break;
        case 6: t.shapes[1] = 1; break;          /* unused dim nonzero */
        case 7: t.strides[4] = 1; break;         /* unused stride nonzero */
        case 8: t.reserved[55] = 1; break;
        case 9: t.reserved0[1] = 1; break;
        case 10: t.start_offset = 1; break;      /* view runs one element past the buffer */
        case 11: t.buffer_bytes = 63; break;     /* buffer one byte short */
        case 12: t.start_offset = UINT64_MAX; break; /* overflow */
        case 13: t.buffer_addr = UINT64_MAX - 8; break; /* buffer end overflows */
        case 14: t.buffer_addr = 0; break;       /* NULL, HOST */
        case 15: t.buffer_addr = 0; t.address_space = SIMPLER_ADDRESS_SPACE_DEVICE; break;
        }
        assert_int_equal(chip_tensor_check(&t), INVALID);
    }
    ChipTensor view;
    make_vector(&view);
    view.shapes[0] = 8;
    view.strides[0] = 2;
    view.start_offset = 1; /* elements 1,3,..,15: the last one exactly fits */
    assert_int_equal(chip_tensor_check(&view), 0);
}

static void task_args_check_refuses_counts_out_of_range(void **state)
{
    (void)state;
    static ChipStorageTaskArgs args;
    memset(&args, 0, sizeof args);
    assert_int_equal(task_args_check(NULL), INVALID);
    assert_int_equal(task_args_check(&args), 0);
    const int32_t bad[][2] = {{-1, 0}, {0, -1}, {SIMPLER_MAX_TENSOR_ARGS + 1, 0}, {0, SIMPLER_MAX_SCALAR_ARGS + 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        args.tensor_count = bad[i][0];
        args.scalar_count = bad[i][1];
        assert_int_equal(task_args_check(&args), INVALID);
    }
    for (int i = 0; i < SIMPLER_MAX_TENSOR_ARGS; i++)
        make_vector(&args.tensors[i]);
    args.tensor_count = SIMPLER_MAX_TENSOR_ARGS;
    args.scalar_count = SIMPLER_MAX_SCALAR_ARGS;
    assert_int_equal(task_args_check(&args), 0);
    args.tensors[SIMPLER_MAX_TENSOR_ARGS - 1].dtype = 0;
    assert_int_equal(task_args_check(&args), INVALID);
    args.tensor_count = SIMPLER_MAX_TENSOR_ARGS - 1; /* the bad tensor is unused now */
    assert_int_equal(task_args_check(&args), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tensor_make_fills_dense_row_major),
        cmocka_unit_test(tensor_make_refuses_bad_input_without_effect),
        cmocka_unit_test(dtype_size_known_and_unknown),
        cmocka_unit_test(call_config_default_is_valid),
        cmocka_unit_test(call_config_check_refuses_each_bad_field),
        cmocka_unit_test(chip_tensor_check_refuses_each_bad_field),
        cmocka_unit_test(task_args_check_refuses_counts_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
