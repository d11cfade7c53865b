/* The same fault gives the same status in both modes, each with a reason
 * naming the fault: simpler_run (program mode) and
 * simpler_kernel_mode_launch (kernel mode) on the vector example, one
 * fault class at a time. Every class here is refused on the host before
 * anything is enqueued, so neither mode lets the device report it
 * (docs/device.md, "Device codes"). */
#include <stdlib.h>
#include <string.h>

#include "file_image.h"
#include "support.h"

#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"

#define EXAMPLES SIMPLER_BINARY_DIR "/examples/"
#define N 64

static float a[N], b[N], f[N];

typedef struct modes {
    void *vector, *add_scalar;
    size_t vector_size, add_scalar_size;
    DeviceContextHandle program, kernel;
    simdev_stream_t stream;
    uint32_t cores;
} modes;

static void vector_args(ChipStorageTaskArgs *args)
{
    uint32_t shape[1] = {N};
    memset(args, 0, sizeof *args);
    assert_int_equal(simpler_tensor_make(&args->tensors[0], a, SIMPLER_DTYPE_FLOAT32, 1, shape, 0), 0);
    assert_int_equal(simpler_tensor_make(&args->tensors[1], b, SIMPLER_DTYPE_FLOAT32, 1, shape, 0), 0);
    assert_int_equal(simpler_tensor_make(&args->tensors[2], f, SIMPLER_DTYPE_FLOAT32, 1, shape, 0), 0);
    args->tensor_count = 3;
}

/* Program context: vector at id 0, add_scalar at id 1. Kernel context:
 * the same ids, capacity planned for the vector graph, frozen. Both run
 * with `cores` AICores (0 = all). */
static void modes_open(modes *m, uint32_t cores)
{
    ChipStorageTaskArgs args;
    SimplerGraphRequirements req;
    SimplerKernelCtxControl configure;
    CallConfig config;
    memset(m, 0, sizeof *m);
    m->vector = file_image_read(EXAMPLES "vector.callable", &m->vector_size);
    m->add_scalar = file_image_read(EXAMPLES "add_scalar.callable", &m->add_scalar_size);
    assert_non_null(m->vector);
    assert_non_null(m->add_scalar);
    assert_int_equal(simpler_call_config_default(&config), 0);
    config.aicore_count = cores;

    m->program = create_device_context();
    assert_int_equal(simpler_init(m->program, 0, NULL), 0);
    assert_int_equal(simpler_register_callable(m->program, 0, m->vector, m->vector_size), 0);
    assert_int_equal(simpler_register_callable(m->program, 1, m->add_scalar, m->add_scalar_size), 0);

    vector_args(&args);
    assert_int_equal(simpler_graph_requirements(m->vector, m->vector_size, &args, &req), 0);
    assert_int_equal(simpler_kernel_plan_capacity(&req, 1, &configure), 0);
    assert_int_equal(simdev_stream_create(&m->stream), SIMDEV_SUCCESS);
    m->kernel = create_device_context();
    assert_int_equal(simpler_kernel_mode_ctx_control(m->kernel, &configure), 0);
    assert_int_equal(simpler_kernel_mode_init(m->kernel, 0, &config, 1), 0);
    assert_int_equal(simpler_kernel_mode_prepare_callable(m->kernel, 0, m->vector, m->vector_size, m->stream), 0);
    assert_int_equal(simpler_kernel_mode_prepare_callable(m->kernel, 1, m->add_scalar, m->add_scalar_size, m->stream),
                     0);
    assert_int_equal(simpler_kernel_mode_freeze(m->kernel), 0);
    assert_int_equal(simdev_stream_synchronize(m->stream), SIMDEV_SUCCESS);
    m->cores = cores;
}

static void modes_close(modes *m)
{
    /* The kernel context first: finalizing the program one resets the
     * device the two share. */
    assert_int_equal(simdev_stream_synchronize(m->stream), SIMDEV_SUCCESS);
    assert_int_equal(finalize_device(m->kernel), 0);
    destroy_device_context(m->kernel);
    assert_int_equal(simdev_stream_destroy(m->stream), SIMDEV_SUCCESS);
    assert_int_equal(finalize_device(m->program), 0);
    destroy_device_context(m->program);
    free(m->vector);
    free(m->add_scalar);
}

/* Runs `args` on callable `id` in both modes: both return `status`, and
 * both reasons contain `field`. */
static void assert_same_fault(modes *m, int32_t id, const ChipStorageTaskArgs *args, int status, const char *field)
{
    CallConfig config;
    assert_int_equal(simpler_call_config_default(&config), 0);
    config.aicore_count = m->cores;
    int program_rc = simpler_run(m->program, id, args, &config);
    char program_why[256];
    strncpy(program_why, simpler_last_error_message(), sizeof program_why - 1);
    program_why[sizeof program_why - 1] = '\0';
    int kernel_rc = simpler_kernel_mode_launch(m->kernel, id, args, m->stream);
    const char *kernel_why = simpler_last_error_message();
    if (program_rc != status || kernel_rc != status)
        fail_msg("%s: program mode %d (\"%s\"), kernel mode %d (\"%s\"); want %d in both", field, program_rc,
                 program_why, kernel_rc, kernel_why, status);
    if (strstr(program_why, field) == NULL || strstr(kernel_why, field) == NULL)
        fail_msg("reasons \"%s\" (program) and \"%s\" (kernel): one does not name \"%s\"", program_why, kernel_why,
                 field);
}

static void both_modes_refuse_bad_args_alike(void **state)
{
    (void)state;
    modes m;
    ChipStorageTaskArgs args;
    modes_open(&m, 0);
    vector_args(&args);
    args.tensors[1].dtype = 42;
    assert_same_fault(&m, 0, &args, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "args.tensors[1].dtype = 42");
    vector_args(&args);
    args.tensors[2].buffer_addr = 0;
    assert_same_fault(&m, 0, &args, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "args.tensors[2].buffer_addr = 0");
    vector_args(&args);
    args.scalar_count = -1;
    assert_same_fault(&m, 0, &args, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "args.scalar_count = -1");
    modes_close(&m);
}

static void both_modes_refuse_the_wrong_signature_alike(void **state)
{
    (void)state;
    modes m;
    ChipStorageTaskArgs args;
    modes_open(&m, 0);
    vector_args(&args); /* the vector example's arguments on add_scalar */
    assert_same_fault(&m, 1, &args, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "args: 3 tensors and 0 scalars");
    modes_close(&m);
}

static void both_modes_refuse_an_empty_id_alike(void **state)
{
    (void)state;
    modes m;
    ChipStorageTaskArgs args;
    modes_open(&m, 0);
    vector_args(&args);
    assert_same_fault(&m, 5, &args, PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT, "callable_id = 5");
    assert_same_fault(&m, -1, &args, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable_id = -1");
    modes_close(&m);
}

/* One AICore (an AIC one): the vector example's AIV tasks have no core
 * of their type, in either mode (`simpler run --cores 1`). */
static void both_modes_refuse_too_few_cores_alike(void **state)
{
    (void)state;
    modes m;
    ChipStorageTaskArgs args;
    modes_open(&m, 1);
    vector_args(&args);
    assert_same_fault(&m, 0, &args, PTO_RUNTIME_ERR_UNSUPPORTED, "task 0: func_id 0 runs on AIV cores");
    modes_close(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(both_modes_refuse_bad_args_alike),
        cmocka_unit_test(both_modes_refuse_the_wrong_signature_alike),
        cmocka_unit_test(both_modes_refuse_an_empty_id_alike),
        cmocka_unit_test(both_modes_refuse_too_few_cores_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
