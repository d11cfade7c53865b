/* Every class of refusal records a one-line reason that names the
 * offending argument or field, read with simpler_last_error_message()
 * after the refused call (docs/architecture.md, "Refusal reasons"). */
#include <stdlib.h>
#include <string.h>

#include "file_image.h"
#include "support.h"

#include "simpler/callable.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"

#define EXAMPLES SIMPLER_BINARY_DIR "/examples/"
#define FIXTURES SIMPLER_BINARY_DIR "/tests/fixtures/callable/"
#define N 64

static float a[N], b[N], f[N];

/* The reason names `field`, and the status is `status`. */
static void assert_reason(int rc, int status, const char *field)
{
    assert_int_equal(rc, status);
    const char *why = simpler_last_error_message();
    if (strstr(why, field) == NULL)
        fail_msg("reason \"%s\" does not name \"%s\"", why, field);
    assert_null(strchr(why, '\n'));
}

static void *image_of(const char *path, size_t *size)
{
    void *image = file_image_read(path, size);
    assert_non_null(image);
    return image;
}

/* The vector example's arguments: tensors a, b (in), f (out). */
static void vector_args(ChipStorageTaskArgs *args)
{
    uint32_t shape[1] = {N};
    memset(args, 0, sizeof *args);
    assert_int_equal(simpler_tensor_make(&args->tensors[0], a, SIMPLER_DTYPE_FLOAT32, 1, shape, 0), 0);
    assert_int_equal(simpler_tensor_make(&args->tensors[1], b, SIMPLER_DTYPE_FLOAT32, 1, shape, 0), 0);
    assert_int_equal(simpler_tensor_make(&args->tensors[2], f, SIMPLER_DTYPE_FLOAT32, 1, shape, 0), 0);
    args->tensor_count = 3;
}

/* An image whose orchestration (entry `entry`) and one kernel are the
 * given fixture files. */
static void *fixture_image(const char *orch_path, const char *entry, const char *kernel_path, size_t *size)
{
    size_t orch_size = 0, kernel_size = 0;
    void *orch = image_of(orch_path, &orch_size);
    void *kernel = image_of(kernel_path, &kernel_size);
    SimplerCallableChildDesc kid = {7, SIMPLER_CORE_TYPE_AIV, 0, 0, NULL, kernel, kernel_size};
    SimplerCallableDesc d = {sizeof d, 0, NULL, orch, orch_size, entry, 0, 1, &kid, 0, NULL};
    size_t need = 0;
    assert_int_equal(simpler_callable_build(&d, NULL, 0, &need), 0);
    void *image = aligned_alloc(64, (need + 63) / 64 * 64);
    assert_non_null(image);
    assert_int_equal(simpler_callable_build(&d, image, need, size), 0);
    free(orch);
    free(kernel);
    return image;
}

static void reason_names_a_misaligned_or_truncated_image(void **state)
{
    (void)state;
    size_t size;
    uint8_t *image = image_of(EXAMPLES "vector.callable", &size);
    ChipStorageTaskArgs args;
    SimplerGraphRequirements req;
    vector_args(&args);
    assert_reason(simpler_callable_check(image + 8, size - 8), PTO_RUNTIME_ERR_INVALID_ARGUMENT, "aligned");
    assert_reason(simpler_graph_requirements(image, size - 64, &args, &req), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "image_size");
    assert_reason(simpler_callable_check(image, 100), PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable_size = 100");
    image[0] ^= 1;
    assert_reason(simpler_callable_check(image, size), PTO_RUNTIME_ERR_INVALID_ARGUMENT, "magic");
    free(image);
}

static void reason_names_a_child_without_kernel_entry(void **state)
{
    (void)state;
    size_t size;
    void *image = fixture_image(FIXTURES "callable_fixture_orch.so", "fixture_orch",
                                FIXTURES "callable_fixture_no_entry.so", &size);
    SimplerGraphSizer *sizer = NULL;
    assert_reason(simpler_graph_sizer_create(image, size, 0, &sizer), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "child 0 (func_id 7) does not export kernel_entry");
    assert_null(sizer);
    free(image);
}

static void reason_names_a_missing_orchestration_entry(void **state)
{
    (void)state;
    size_t size;
    void *image = fixture_image(FIXTURES "callable_fixture_orch.so", "no_such_entry",
                                FIXTURES "callable_fixture_kernel1.so", &size);
    SimplerGraphSizer *sizer = NULL;
    assert_reason(simpler_graph_sizer_create(image, size, 0, &sizer), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "orchestration does not export no_such_entry");
    free(image);
}

static void reason_names_a_binary_that_is_not_elf(void **state)
{
    (void)state;
    size_t size;
    /* A source file where the orchestration binary belongs: the ELF
     * check refuses it before dlopen sees it. */
    void *image = fixture_image(SIMPLER_SOURCE_DIR "/tests/unit/callable/fixtures/orch_fixture.c", "fixture_orch",
                                FIXTURES "callable_fixture_kernel1.so", &size);
    SimplerGraphSizer *sizer = NULL;
    assert_reason(simpler_graph_sizer_create(image, size, 0, &sizer), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "the orchestration: not an ELF file");
    free(image);
}

static void reason_names_the_bad_tensor_field(void **state)
{
    (void)state;
    size_t size;
    void *image = image_of(EXAMPLES "vector.callable", &size);
    ChipStorageTaskArgs args;
    SimplerGraphRequirements req;
    vector_args(&args);
    args.tensors[1].dtype = 42;
    assert_reason(simpler_graph_requirements(image, size, &args, &req), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "args.tensors[1].dtype = 42: not a SIMPLER_DTYPE_*");
    vector_args(&args);
    args.tensors[2].buffer_bytes = 4;
    assert_reason(simpler_graph_requirements(image, size, &args, &req), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "args.tensors[2].buffer_bytes = 4");
    vector_args(&args);
    args.tensors[0].address_space = 9;
    assert_reason(simpler_graph_requirements(image, size, &args, &req), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "args.tensors[0].address_space = 9");
    vector_args(&args);
    args.tensor_count = 257;
    assert_reason(simpler_graph_requirements(image, size, &args, &req), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "args.tensor_count = 257");
    vector_args(&args);
    args.scalar_count = 129;
    assert_reason(simpler_graph_requirements(image, size, &args, &req), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "args.scalar_count = 129");
    free(image);
}

static void reason_names_counts_that_disagree_with_the_signature(void **state)
{
    (void)state;
    size_t size;
    void *image = image_of(EXAMPLES "add_scalar.callable", &size);
    ChipStorageTaskArgs args;
    SimplerGraphRequirements req;
    vector_args(&args); /* the vector example's arguments on add_scalar */
    assert_reason(simpler_graph_requirements(image, size, &args, &req), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "args: 3 tensors and 0 scalars, but the callable's signature takes 2 and 1");
    free(image);
}

static void reason_names_the_callable_id_and_the_config_field(void **state)
{
    (void)state;
    size_t size;
    void *image = image_of(EXAMPLES "vector.callable", &size);
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    assert_reason(simpler_register_callable(ctx, 0, image, size), PTO_RUNTIME_ERR_INVALID_STATE,
                  "not initialized");
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    assert_reason(simpler_register_callable(ctx, 64, image, size), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "callable_id = 64: must be in 0..63");
    assert_reason(simpler_unregister_callable(ctx, 3), PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT, "callable_id = 3");
    assert_int_equal(simpler_register_callable(ctx, 0, image, size), 0);
    assert_string_equal(simpler_last_error_message(), "");
    ChipStorageTaskArgs args;
    vector_args(&args);
    CallConfig config;
    assert_int_equal(simpler_call_config_default(&config), 0);
    config.struct_size = 8;
    assert_reason(simpler_run(ctx, 0, &args, &config), PTO_RUNTIME_ERR_INVALID_ARGUMENT, "config.struct_size = 8");
    assert_int_equal(simpler_call_config_default(&config), 0);
    config.trace = 1;
    strcpy(config.output_prefix, "/no/such/directory/");
    assert_reason(simpler_run(ctx, 0, &args, &config), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "trace path \"/no/such/directory/trace.json\"");
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
    free(image);
}

static void reason_names_the_kernel_phase_and_the_mode(void **state)
{
    (void)state;
    size_t size;
    void *image = image_of(EXAMPLES "vector.callable", &size);
    simdev_stream_t stream = NULL;
    assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
    DeviceContextHandle ctx = create_device_context();
    ChipStorageTaskArgs args;
    vector_args(&args);
    assert_reason(simpler_kernel_mode_launch(ctx, 0, &args, stream), PTO_RUNTIME_ERR_INVALID_STATE,
                  "not an initialized kernel-mode context");
    assert_int_equal(simpler_kernel_mode_init(ctx, 0, NULL, 1), 0);
    assert_reason(simpler_kernel_mode_prepare_callable(ctx, 1024, image, size, stream),
                  PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable_id = 1024: must be in 0..1023");
    assert_int_equal(simpler_kernel_mode_prepare_callable(ctx, 0, image, size, stream), 0);
    assert_reason(simpler_kernel_mode_launch(ctx, 0, &args, stream), PTO_RUNTIME_ERR_INVALID_STATE,
                  "phase Collecting: launch needs ReadyEnqueued");
    assert_reason(simpler_init(ctx, 0, NULL), PTO_RUNTIME_ERR_INVALID_STATE, "latched to kernel mode");
    assert_reason(simpler_kernel_mode_trace_export(ctx, "/tmp/x.json"), PTO_RUNTIME_ERR_INVALID_STATE,
                  "no trace buffer");
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
    free(image);
}


static void reason_names_the_descriptor_field(void **state)
{
    (void)state;
    size_t orch_size = 0, kernel_size = 0, need = 0;
    void *orch = image_of(FIXTURES "callable_fixture_orch.so", &orch_size);
    void *kernel = image_of(FIXTURES "callable_fixture_kernel1.so", &kernel_size);
    uint8_t sig[2] = {SIMPLER_ARG_IN, 7};
    SimplerCallableChildDesc kid = {7, SIMPLER_CORE_TYPE_AIV, 0, 0, NULL, kernel, kernel_size};
    SimplerCallableDesc d = {sizeof d, 0, NULL, orch, orch_size, "fixture_orch", 0, 1, &kid, 0, NULL};
    d.struct_size = 8;
    assert_reason(simpler_callable_build(&d, NULL, 0, &need), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "desc.struct_size = 8");
    d.struct_size = sizeof d;
    d.signature = sig;
    d.signature_count = 2;
    assert_reason(simpler_callable_build(&d, NULL, 0, &need), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "desc.signature[1] = 7: not a SIMPLER_ARG_* direction");
    d.signature_count = 1;
    kid.binary = NULL;
    assert_reason(simpler_callable_build(&d, NULL, 0, &need), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "desc.children[0] (func_id 7): binary = (nil)");
    kid.binary = kernel;
    kid.core_type = 5;
    assert_reason(simpler_callable_build(&d, NULL, 0, &need), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "desc.children[0].core_type = 5");
    kid.core_type = SIMPLER_CORE_TYPE_AIV;
    d.entry_name = "9lives";
    assert_reason(simpler_callable_build(&d, NULL, 0, &need), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "desc.entry_name = \"9lives\": not a C identifier");
    d.entry_name = "fixture_orch";
    assert_int_equal(simpler_callable_build(&d, NULL, 0, &need), 0);
    assert_string_equal(simpler_last_error_message(), "");
    uint8_t small[64] __attribute__((aligned(64)));
    assert_reason(simpler_callable_build(&d, small, sizeof small, &need), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "out_capacity = 64: the image needs");
    free(orch);
    free(kernel);
}

static void reason_names_the_tensor_make_argument(void **state)
{
    (void)state;
    ChipTensor t;
    uint32_t shape[2] = {4, 0};
    assert_reason(simpler_tensor_make(&t, a, 42, 1, shape, 0), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "dtype = 42: not a SIMPLER_DTYPE_*");
    assert_reason(simpler_tensor_make(&t, a, SIMPLER_DTYPE_FLOAT32, 2, shape, 0), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "shapes[1] = 0");
    assert_reason(simpler_tensor_make(&t, a, SIMPLER_DTYPE_FLOAT32, 6, shape, 0), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "ndims = 6");
    assert_reason(simpler_tensor_make(&t, a, SIMPLER_DTYPE_FLOAT32, 1, shape, 4), PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                  "address_space = 4");
}

static void reason_names_the_configure_field(void **state)
{
    (void)state;
    SimplerKernelCtxControl c;
    SimplerKernelLayout l;
    SimplerGraphRequirements req = {0};
    memset(&c, 0, sizeof c);
    c.abi_version = SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION;
    c.struct_size = sizeof c;
    c.action = SIMPLER_KERNEL_CTX_CONFIGURE;
    c.mode = 5;
    assert_reason(simpler_kernel_layout(&c, &l), PTO_RUNTIME_ERR_INVALID_ARGUMENT, "configure->mode = 5");
    c.mode = SIMPLER_MODE_KERNEL;
    c.arg_slot_count = 65;
    assert_reason(simpler_kernel_layout(&c, &l), PTO_RUNTIME_ERR_INVALID_ARGUMENT, "configure->arg_slot_count = 65");
    c.arg_slot_count = 0;
    c.reserved[3] = 1;
    assert_reason(simpler_kernel_layout(&c, &l), PTO_RUNTIME_ERR_INVALID_ARGUMENT, "configure->reserved[3] = 1");
    c.reserved[3] = 0;
    c.runtime_arena_bytes = UINT64_MAX - 10;
    c.graph_definition_bytes = 4096;
    assert_reason(simpler_kernel_layout(&c, &l), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED, "graph_definition_bytes = 4096");
    assert_reason(simpler_kernel_plan_capacity(&req, 0, &c), PTO_RUNTIME_ERR_INVALID_ARGUMENT, "count = 0");
}

static void reason_names_the_memory_helper_argument(void **state)
{
    (void)state;
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    assert_reason(copy_to_device_ctx(ctx, a, a, 4), PTO_RUNTIME_ERR_INVALID_STATE, "not initialized");
    assert_null(device_malloc_ctx(ctx, 64));
    assert_non_null(strstr(simpler_last_error_message(), "not initialized"));
    assert_reason(finalize_device(ctx), PTO_RUNTIME_ERR_INVALID_STATE, "never initialized");
    assert_int_equal(simpler_init(ctx, 0, NULL), 0);
    void *dev = device_malloc_ctx(ctx, 64);
    assert_non_null(dev);
    assert_string_equal(simpler_last_error_message(), "");
    assert_null(device_malloc_ctx(ctx, 0));
    assert_non_null(strstr(simpler_last_error_message(), "size = 0"));
    assert_reason(copy_to_device_ctx(ctx, dev, NULL, 4), PTO_RUNTIME_ERR_INVALID_ARGUMENT, "host: NULL");
    assert_reason(copy_from_device_ctx(ctx, NULL, dev, 4), PTO_RUNTIME_ERR_INVALID_ARGUMENT, "host: NULL");
    assert_reason(copy_to_device_ctx(ctx, dev, a, 1u << 20), PTO_RUNTIME_ERR_DEVICE, "device call memcpy_sync failed");
    SimplerRunTimes times = {.struct_size = 4};
    assert_reason(simpler_run_times(ctx, &times), PTO_RUNTIME_ERR_INVALID_ARGUMENT, "out->struct_size = 4");
    times.struct_size = sizeof times;
    assert_reason(simpler_run_times(ctx, &times), PTO_RUNTIME_ERR_INVALID_STATE, "no run has completed");
    assert_reason(simpler_kernel_mode_errors(ctx, NULL, NULL), PTO_RUNTIME_ERR_INVALID_STATE,
                  "not a kernel-mode context");
    device_free_ctx(ctx, dev);
    assert_int_equal(finalize_device(ctx), 0);
    destroy_device_context(ctx);
}

static void reason_is_empty_after_a_success(void **state)
{
    (void)state;
    assert_int_equal(simpler_callable_check(NULL, 0), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_string_equal(simpler_last_error_message(), "callable: NULL");
    CallConfig config;
    assert_int_equal(simpler_call_config_default(&config), 0);
    assert_string_equal(simpler_last_error_message(), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reason_names_a_misaligned_or_truncated_image),
        cmocka_unit_test(reason_names_a_child_without_kernel_entry),
        cmocka_unit_test(reason_names_a_missing_orchestration_entry),
        cmocka_unit_test(reason_names_a_binary_that_is_not_elf),
        cmocka_unit_test(reason_names_the_bad_tensor_field),
        cmocka_unit_test(reason_names_counts_that_disagree_with_the_signature),
        cmocka_unit_test(reason_names_the_callable_id_and_the_config_field),
        cmocka_unit_test(reason_names_the_kernel_phase_and_the_mode),
        cmocka_unit_test(reason_names_the_descriptor_field),
        cmocka_unit_test(reason_names_the_tensor_make_argument),
        cmocka_unit_test(reason_names_the_configure_field),
        cmocka_unit_test(reason_names_the_memory_helper_argument),
        cmocka_unit_test(reason_is_empty_after_a_success),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
