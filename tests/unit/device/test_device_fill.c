/*
 * The executor's tensor fill (device_executor_internal.h): a kernel
 * gets a tensor whose every byte the block wrote, whatever its stack held
 * before, with the address resolved in the argument's region and the
 * shape of the view the argument names, also when an entry held another
 * view for an earlier task.
 */
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "device/device_executor_internal.h"

/* Views 0 (unused), 1, a 4 x 8 view with a row stride of 16, and 2, a
 * 1-d int8 view of 100. */
static graph_image_view views[3];

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
    views[2].dtype = SIMPLER_DTYPE_INT8;
    views[2].ndims = 1;
    views[2].extent = 100;
    views[2].shapes[0] = 100;
    views[2].strides[0] = 1;
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

/* A descriptor with only the two region bases the fill reads. */
static device_run_desc run_desc(void)
{
    device_run_desc d;
    memset(&d, 0, sizeof(d));
    d.heap_base = 0x10000000u;
    d.temp_base = 0x20000000u;
    return d;
}

/* The tensor a kernel should see for `a` under run_desc(). */
static ChipTensor expected(const graph_image_arg *a)
{
    ChipTensor want;
    const graph_image_view *v = &views[a->view];
    memset(&want, 0, sizeof(want));
    want.buffer_addr = 0x10000000u + a->addr;
    want.buffer_bytes = a->buffer_bytes;
    want.start_offset = a->start_offset;
    want.ndims = v->ndims;
    want.dtype = v->dtype;
    want.address_space = SIMPLER_ADDRESS_SPACE_DEVICE;
    memcpy(want.shapes, v->shapes, sizeof(want.shapes));
    memcpy(want.strides, v->strides, sizeof(want.strides));
    return want;
}

/* A block's arrays start from whatever its stack held. */
static device_executor_args *dirty_block(void)
{
    device_executor_args *c = malloc(sizeof(*c));
    assert_non_null(c);
    memset(c, 0xa5, sizeof(*c));
    device_executor_args_init(c);
    return c;
}

static void fill_writes_every_byte_over_a_dirty_block(void **state)
{
    (void)state;
    device_run_desc d = run_desc();
    uint64_t base[DEVICE_EXECUTOR_BASES];
    device_executor_bases(&d, base);
    graph_image_arg a = heap_arg();
    device_executor_args *c = dirty_block();
    device_executor_fill_tensor(base, views, &a, c, 5);

    ChipTensor want = expected(&a);
    assert_int_equal(want.buffer_addr, 0x10000000u + 2048);
    assert_int_equal(want.shapes[1], 8);
    assert_memory_equal(&c->tensors[5], &want, sizeof(want));
    free(c);
}

/* An entry kept from an earlier task: its address fields change with
 * every task, its shape with every change of view, back and forth. */
static void fill_follows_each_task_on_a_kept_entry(void **state)
{
    (void)state;
    device_run_desc d = run_desc();
    uint64_t base[DEVICE_EXECUTOR_BASES];
    device_executor_bases(&d, base);
    graph_image_arg a = heap_arg();
    device_executor_args *c = dirty_block();
    const uint32_t view_seq[] = {1, 1, 2, 2, 1, 2};
    for (uint32_t n = 0; n < sizeof(view_seq) / sizeof(view_seq[0]); n++) {
        a.view = view_seq[n];
        a.addr = 1024u * (n + 1);
        a.buffer_bytes = 8192u + n;
        a.start_offset = n;
        device_executor_fill_tensor(base, views, &a, c, 0);
        ChipTensor want = expected(&a);
        assert_memory_equal(&c->tensors[0], &want, sizeof(want));
    }
    free(c);
}

static void fill_resolves_each_address_kind(void **state)
{
    (void)state;
    device_run_desc d = run_desc();
    uint64_t base[DEVICE_EXECUTOR_BASES];
    device_executor_bases(&d, base);
    graph_image_arg a = heap_arg();
    device_executor_args *c = dirty_block();
    a.addr_kind = GRAPH_ADDR_STAGED;
    device_executor_fill_tensor(base, views, &a, c, 0);
    assert_int_equal(c->tensors[0].buffer_addr, 0x20000000u + 2048);
    a.addr_kind = GRAPH_ADDR_DEVICE;
    device_executor_fill_tensor(base, views, &a, c, 0);
    assert_int_equal(c->tensors[0].buffer_addr, 2048);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fill_writes_every_byte_over_a_dirty_block),
        cmocka_unit_test(fill_follows_each_task_on_a_kept_entry),
        cmocka_unit_test(fill_resolves_each_address_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
