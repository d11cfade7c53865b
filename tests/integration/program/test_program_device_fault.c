/* A device-side fault during a program-mode run: the scheduler's launch
 * fails its AICPU stream after the graph completed (simdev faults are
 * sticky). The run reports -1008 with the device code kept, and the next
 * run works, because the faulted stream was replaced. */
#include "support.h"

#include "context/context.h"
#include "device/device_kernels.h"
#include "platform/platform_ops.h"
#include "program_fixture.h"

static vadd_image image;
static platform_ops faulting_ops;
static int fault_next_scheduler;

/* The real scheduler, then a fault on its own launch. */
static void faulting_scheduler(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    device_scheduler_kernel(block_idx, block_dim, args);
    if (block_idx == 0)
        simdev_kernel_report_fault(SIMDEV_ERROR_KERNEL_FAULT);
}

static int launch_kernel(void *user, platform_stream *stream, int engine, platform_kernel_fn fn, uint32_t block_dim,
                         const void *args, size_t args_size)
{
    const platform_ops *inner = platform_ops_simdev();
    if (fn == device_scheduler_kernel && fault_next_scheduler) {
        fault_next_scheduler = 0;
        fn = faulting_scheduler;
    }
    return inner->launch_kernel(user, stream, engine, fn, block_dim, args, args_size);
}

static int setup(void **state)
{
    (void)state;
    if (program_simdev_setup() != 0)
        return -1;
    image = vadd_image_load();
    faulting_ops = *platform_ops_simdev();
    faulting_ops.launch_kernel = launch_kernel;
    return image.size != 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    vadd_image_free(&image);
    return program_simdev_teardown();
}

static void program_run_sticky_device_fault_reported_and_next_run_works(void **state)
{
    static vadd_buffers v;
    ChipStorageTaskArgs args;
    (void)state;
    DeviceContextHandle ctx = create_device_context();
    assert_int_equal(context_set_platform_ops(ctx, &faulting_ops), 0);
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    assert_int_equal(simpler_register_callable(ctx, 0, image.bytes, image.size), 0);
    vadd_buffers_fill(&v, 1.0f);
    vadd_args_make(&args, v.a, v.b, v.f, SIMPLER_ADDRESS_SPACE_HOST, 2, 0);
    fault_next_scheduler = 1;
    assert_int_equal(simpler_run(ctx, 0, &args, NULL), PTO_RUNTIME_ERR_DEVICE);
    assert_int_equal(context_last_device_error(ctx), SIMDEV_ERROR_KERNEL_FAULT);
    for (int i = 0; i < 3; i++) {
        vadd_buffers_fill(&v, (float)i);
        assert_int_equal(simpler_run(ctx, 0, &args, NULL), 0);
        assert_int_equal(vadd_check(&v, 2), 0);
    }
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(program_run_sticky_device_fault_reported_and_next_run_works),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
