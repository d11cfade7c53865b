/*
 * The executor's tensor fill (device_executor.c, included here): a kernel
 * gets a tensor whose every byte the executor wrote, whatever the stack
 * held before, with the address resolved in the argument's region and
 * the shape of the view the argument names.
 */
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "device/device_executor.c"

/* Views 0 (unused) and 1, a 4 x 8 view with a row stride of 16. */
static graph_image_view views[2];

static graph_image_arg heap_arg(void)
{
    memset(views, 0, sizeof(views));
    views[1].dtype = SIMPLER_DTYPE_FLOAT32;
    views[1].ndims = 2;
    views[1].extent = 3 * 16 + 7 + 1;
    views[1].shapes[0] = 4;
    views[1].shapes[1] = 8;
    views[1].strides[0] = 16;
    views[1].strides[1] = 1;
    graph_image_arg a;
    memset(&a, 0, sizeof(a));
    a.kind = GRAPH_ARG_TENSOR;
    a.tag = SIMPLER_TAG_INPUT;
    a.addr_kind = GRAPH_ADDR_HEAP;
    a.view = 1;
    a.addr = 2048;
    a.buffer_bytes = 4096;
    a.start_offset = 3;
    return a;
}

/* A descriptor with only the two region bases fill_tensor reads. */
static device_run_desc run_desc(void)
{
    device_run_desc d;
    memset(&d, 0, sizeof(d));
    d.heap_base = 0x10000000u;
    d.temp_base = 0x20000000u;
    return d;
}

static void fill_writes_every_byte_over_a_dirty_tensor(void **state)
{
    (void)state;
    device_run_desc d = run_desc();
    graph_image_arg a = heap_arg();
    ChipTensor t;
    memset(&t, 0xa5, sizeof(t));
    fill_tensor(&d, views, &a, &t);

    ChipTensor want;
    memset(&want, 0, sizeof(want));
    want.buffer_addr = 0x10000000u + 2048;
    want.buffer_bytes = 4096;
    want.start_offset = 3;
    want.ndims = 2;
    want.dtype = SIMPLER_DTYPE_FLOAT32;
    want.address_space = SIMPLER_ADDRESS_SPACE_DEVICE;
    want.shapes[0] = 4;
    want.shapes[1] = 8;
    want.strides[0] = 16;
    want.strides[1] = 1;
    assert_memory_equal(&t, &want, sizeof(t));
}

static void fill_resolves_each_address_kind(void **state)
{
    (void)state;
    device_run_desc d = run_desc();
    graph_image_arg a = heap_arg();
    ChipTensor t;
    a.addr_kind = GRAPH_ADDR_STAGED;
    fill_tensor(&d, views, &a, &t);
    assert_int_equal(t.buffer_addr, 0x20000000u + 2048);
    a.addr_kind = GRAPH_ADDR_DEVICE;
    fill_tensor(&d, views, &a, &t);
    assert_int_equal(t.buffer_addr, 2048);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fill_writes_every_byte_over_a_dirty_tensor),
        cmocka_unit_test(fill_resolves_each_address_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
