/* Program mode owns its device but borrows the calling thread: every
 * program-mode entry point that selects the context's device restores
 * the thread's current device before returning, so a thread using a
 * program context on device 1 can go on with a kernel context on its own
 * device 0. */
#include "support.h"

#include "program_fixture.h"

static int current_device(void)
{
    int device = -1;
    assert_int_equal(simdev_get_device(&device), SIMDEV_SUCCESS);
    return device;
}

static void program_entry_points_restore_the_callers_device(void **state)
{
    (void)state;
    assert_int_equal(program_simdev_setup(), 0);
    vadd_image image = vadd_image_load();
    assert_int_equal(simdev_set_device(0), SIMDEV_SUCCESS);
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    assert_int_equal(simpler_init(ctx, 1, NULL), 0);
    assert_int_equal(current_device(), 0);
    assert_int_equal(simpler_register_callable(ctx, 3, image.bytes, image.size), 0);
    assert_int_equal(current_device(), 0);
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 2, 0);
    assert_int_equal(simpler_run(ctx, 3, &args, NULL), 0);
    assert_int_equal(vadd_check(&v, 2), 0);
    assert_int_equal(current_device(), 0);
    SimplerRunTimes t = {.struct_size = sizeof t};
    assert_int_equal(simpler_run_times(ctx, &t), 0);
    assert_int_equal(current_device(), 0);
    void *dev = device_malloc_ctx(ctx, 4096);
    assert_non_null(dev);
    assert_int_equal(current_device(), 0);
    device_free_ctx(ctx, dev);
    assert_int_equal(current_device(), 0);

    /* The thread's own device is still the one a kernel context borrows. */
    DeviceContextHandle kctx = create_device_context();
    assert_non_null(kctx);
    assert_int_equal(simpler_kernel_mode_init(kctx, 0, NULL, 1), 0);
    assert_int_equal(finalize_device(kctx), 0);
    destroy_device_context(kctx);

    assert_int_equal(finalize_device(ctx), 0);
    assert_int_equal(current_device(), 0);
    destroy_device_context(ctx);
    vadd_image_free(&image);
    assert_int_equal(program_simdev_teardown(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(program_entry_points_restore_the_callers_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
