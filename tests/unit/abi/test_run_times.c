/* simpler_run_times: the refusals (a NULL argument or a wrong
 * struct_size -1005, a context with no completed run -1003), none
 * writing *out, and after a run of the vector example
 * (<build>/examples/vector.callable) the times program mode keeps. */
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "program/program.h"
#include "file_image.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"

#define ELEMENTS 4096u

static int untouched(const SimplerRunTimes *t, uint32_t struct_size)
{
    SimplerRunTimes seven;
    memset(&seven, 7, sizeof(seven));
    seven.struct_size = struct_size;
    return memcmp(t, &seven, sizeof(seven)) == 0;
}

static void run_times_refusals_write_nothing(void **state)
{
    SimplerRunTimes t;
    DeviceContextHandle ctx = create_device_context();
    (void)state;
    assert_non_null(ctx);

    memset(&t, 7, sizeof(t));
    t.struct_size = sizeof(t);
    assert_int_equal(simpler_run_times(NULL, &t), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_run_times(ctx, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_true(untouched(&t, sizeof(t)));

    /* A caller built against another layout is refused, not half-served. */
    const uint32_t wrong[] = {0, sizeof(t) - 8, sizeof(t) + 8, UINT32_MAX};
    for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
        memset(&t, 7, sizeof(t));
        t.struct_size = wrong[i];
        assert_int_equal(simpler_run_times(ctx, &t), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
        assert_true(untouched(&t, wrong[i]));
    }

    /* No run has completed on a context never initialized. */
    memset(&t, 7, sizeof(t));
    t.struct_size = sizeof(t);
    assert_int_equal(simpler_run_times(ctx, &t), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_true(untouched(&t, sizeof(t)));
    destroy_device_context(ctx);
}

/* The public struct carries exactly the host phases program mode kept
 * for the last run, and plausible device phases. */
static void run_times_report_the_last_completed_run(void **state)
{
    size_t image_size = 0;
    void *image = file_image_read(SIMPLER_BINARY_DIR "/examples/vector.callable", &image_size);
    DeviceContextHandle ctx = create_device_context();
    ChipStorageTaskArgs args;
    void *buffers[3];
    uint32_t shape = ELEMENTS;
    (void)state;
    assert_non_null(image);
    assert_non_null(ctx);
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    assert_int_equal(simpler_register_callable(ctx, 0, image, image_size), 0);
    memset(&args, 0, sizeof(args));
    for (int i = 0; i < 3; i++) {
        buffers[i] = device_malloc_ctx(ctx, ELEMENTS * sizeof(float));
        assert_non_null(buffers[i]);
        assert_int_equal(simpler_tensor_make(&args.tensors[i], buffers[i], SIMPLER_DTYPE_FLOAT32, 1, &shape,
                                             SIMPLER_ADDRESS_SPACE_DEVICE),
                         0);
    }
    args.tensor_count = 3;
    assert_int_equal(simpler_run(ctx, 0, &args, NULL), 0);

    SimplerRunTimes t;
    const SimplerRunTimes want = program_state_of(ctx)->run_times;
    memset(&t, 7, sizeof(t));
    t.struct_size = sizeof(t);
    assert_int_equal(simpler_run_times(ctx, &t), 0);
    assert_int_equal(t.struct_size, sizeof(t));
    assert_int_equal(t.reserved, 0);
    assert_int_equal(t.host_build_ns, want.host_build_ns);
    assert_int_equal(t.upload_ns, want.upload_ns);
    assert_int_equal(t.launch_ns, want.launch_ns);
    assert_int_equal(t.wait_ns, want.wait_ns);
    assert_int_equal(t.finish_ns, want.finish_ns);
    assert_true(t.device_prepare_ns > 0 && t.device_graph_ns > 0);
    assert_true(t.host_build_ns > 0 && t.launch_ns > 0 && t.wait_ns > 0);
    assert_true(t.device_prepare_ns + t.device_graph_ns <= t.launch_ns + t.wait_ns);

    for (int i = 0; i < 3; i++)
        device_free_ctx(ctx, buffers[i]);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
    free(image);
}

static int teardown(void **state)
{
    (void)state;
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_times_refusals_write_nothing),
        cmocka_unit_test(run_times_report_the_last_completed_run),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
