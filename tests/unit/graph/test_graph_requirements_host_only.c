/* simpler_graph_requirements is host only: it
 * sizes a real example image without a context, without any simdev call
 * and without device memory, and gives back every host byte it took.
 * The image is the vector example, built at
 * <build>/examples/vector.callable. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "common/host_alloc.h"
#include "file_image.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"

#define ELEMENTS 4096u

static void *image;
static size_t image_size;

static int setup(void **state)
{
    (void)state;
    image = file_image_read(SIMPLER_BINARY_DIR "/examples/vector.callable", &image_size);
    return image != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(image);
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

/* a, b (IN), f (OUT) at made-up device addresses that are never touched. */
static ChipStorageTaskArgs *vector_args(void)
{
    ChipStorageTaskArgs *args = calloc(1, sizeof *args);
    assert_non_null(args);
    uint32_t shape = ELEMENTS;
    for (int i = 0; i < 3; i++) {
        void *addr = (void *)(uintptr_t)(0x100000000ull + (uint64_t)i * 0x100000ull);
        assert_int_equal(simpler_tensor_make(&args->tensors[i], addr, SIMPLER_DTYPE_FLOAT32, 1, &shape,
                                             SIMPLER_ADDRESS_SPACE_DEVICE),
                         0);
    }
    args->tensor_count = 3;
    return args;
}

static void graph_requirements_make_no_simdev_call_and_no_device_allocation(void **state)
{
    (void)state;
    ChipStorageTaskArgs *args = vector_args();
    simdev_counters before, after;
    simdev_mem_info mem_before, mem_after;
    assert_int_equal(simdev_get_counters(&before), SIMDEV_SUCCESS);
    assert_int_equal(simdev_get_mem_info(0, &mem_before), SIMDEV_SUCCESS);
    SimplerGraphRequirements r;
    memset(&r, 0, sizeof r);
    assert_int_equal(simpler_graph_requirements(image, image_size, args, &r), 0);
    assert_true(r.task_count > 1);
    assert_true(r.graph_definition_bytes > 0);
    assert_int_equal(simdev_get_counters(&after), SIMDEV_SUCCESS);
    assert_int_equal(simdev_get_mem_info(0, &mem_after), SIMDEV_SUCCESS);
    assert_memory_equal(&before, &after, sizeof before);
    assert_int_equal(mem_after.committed_bytes, mem_before.committed_bytes);
    assert_int_equal(mem_after.live_allocations, mem_before.live_allocations);
    free(args);
}

static void graph_requirements_give_back_every_host_allocation(void **state)
{
    (void)state;
    ChipStorageTaskArgs *args = vector_args();
    SimplerGraphRequirements first, again;
    uint64_t allocs = host_alloc_count(), frees = host_free_count();
    assert_int_equal(simpler_graph_requirements(image, image_size, args, &first), 0);
    uint64_t taken = host_alloc_count() - allocs, given = host_free_count() - frees;
    assert_true(taken > 0);
    assert_int_equal(given, taken);
    /* The same request sized again gives the same answer. */
    assert_int_equal(simpler_graph_requirements(image, image_size, args, &again), 0);
    assert_memory_equal(&first, &again, sizeof first);
    free(args);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(graph_requirements_make_no_simdev_call_and_no_device_allocation),
        cmocka_unit_test(graph_requirements_give_back_every_host_allocation),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
