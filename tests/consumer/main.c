/* A program built against an installed (or embedded) simpler: it loads
 * its own callable image (consumer.h) and runs it
 *   - in program mode: simpler_run, twice, on fresh inputs;
 *   - in kernel mode: one eager launch on the caller's stream, then one
 *     launch captured into a simdev graph and replayed with fresh inputs
 *     copied in place;
 * checking every result against z = (x + y) * s computed here.
 * Usage: consumer IMAGE. Exit 0 when every run matched, 1 otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"

#define N 4096
#define REPLAYS 3
#define CALLABLE_ID 0

static const float SCALE = 1.5f;

static int failed(const char *what, int rc)
{
    fprintf(stderr, "consumer: %s failed: %d (%s)\n", what, rc, simpler_strerror(rc));
    return 1;
}

static int device_failed(const char *what, int rc)
{
    fprintf(stderr, "consumer: %s failed: %d (%s)\n", what, rc, simdev_error_name(rc));
    return 1;
}

/* The image file in 64-byte aligned memory, as the runtime requires. */
static void *image_load(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    void *bytes = NULL;
    long n = -1;
    if (fp != NULL && fseek(fp, 0, SEEK_END) == 0)
        n = ftell(fp);
    if (n > 0 && fseek(fp, 0, SEEK_SET) == 0)
        bytes = aligned_alloc(64, ((size_t)n + 63) / 64 * 64);
    if (bytes != NULL && fread(bytes, 1, (size_t)n, fp) != (size_t)n) {
        free(bytes);
        bytes = NULL;
    }
    if (fp != NULL)
        fclose(fp);
    if (bytes == NULL)
        fprintf(stderr, "consumer: cannot read the image %s\n", path);
    *size = bytes != NULL ? (size_t)n : 0;
    return bytes;
}

/* Inputs of round r; `want` gets the expected output. */
static void inputs_make(int r, float *x, float *y, float *want)
{
    for (uint32_t i = 0; i < N; i++) {
        x[i] = (float)((i * 7u + (uint32_t)r * 13u) % 101u) * 0.25f;
        y[i] = (float)((i * 3u + (uint32_t)r * 5u) % 37u) - 9.0f;
        float t = x[i] + y[i];
        want[i] = t * SCALE;
    }
}

static int output_check(const char *what, const float *got, const float *want)
{
    for (uint32_t i = 0; i < N; i++) {
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
            fprintf(stderr, "consumer: %s: z[%u] = %g, want %g\n", what, i, (double)got[i], (double)want[i]);
            return 1;
        }
    }
    return 0;
}

/* x, y, z as DEVICE tensors at the given device addresses, and s. */
static int args_make(ChipStorageTaskArgs *args, void *x, void *y, void *z)
{
    uint32_t shape = N, bits;
    memcpy(&bits, &SCALE, sizeof(bits));
    memset(args, 0, sizeof(*args));
    int rc = simpler_tensor_make(&args->tensors[CONSUMER_ARG_X], x, SIMPLER_DTYPE_FLOAT32, 1, &shape,
                                 SIMPLER_ADDRESS_SPACE_DEVICE);
    rc = rc ? rc : simpler_tensor_make(&args->tensors[CONSUMER_ARG_Y], y, SIMPLER_DTYPE_FLOAT32, 1, &shape,
                                       SIMPLER_ADDRESS_SPACE_DEVICE);
    rc = rc ? rc : simpler_tensor_make(&args->tensors[CONSUMER_ARG_Z], z, SIMPLER_DTYPE_FLOAT32, 1, &shape,
                                       SIMPLER_ADDRESS_SPACE_DEVICE);
    args->tensor_count = CONSUMER_TENSORS;
    args->scalars[0] = bits;
    args->scalar_count = CONSUMER_SCALARS;
    return rc;
}

static float host_x[N], host_y[N], host_z[N], want[N];
static ChipStorageTaskArgs args;

static int program_mode(const void *image, size_t size)
{
    const size_t bytes = N * sizeof(float);
    DeviceContextHandle ctx = create_device_context();
    if (ctx == NULL)
        return failed("create_device_context", PTO_RUNTIME_ERR_OUT_OF_MEMORY);
    int rc = simpler_init(ctx, 0, NULL);
    if (rc != 0)
        return failed("simpler_init", rc);
    rc = simpler_register_callable(ctx, CALLABLE_ID, image, size);
    if (rc != 0)
        return failed("simpler_register_callable", rc);
    void *x = device_malloc_ctx(ctx, bytes), *y = device_malloc_ctx(ctx, bytes), *z = device_malloc_ctx(ctx, bytes);
    if (x == NULL || y == NULL || z == NULL)
        return failed("device_malloc_ctx", PTO_RUNTIME_ERR_OUT_OF_MEMORY);
    if ((rc = args_make(&args, x, y, z)) != 0)
        return failed("simpler_tensor_make", rc);
    for (int r = 0; r < 2; r++) {
        inputs_make(r, host_x, host_y, want);
        rc = copy_to_device_ctx(ctx, x, host_x, bytes);
        rc = rc ? rc : copy_to_device_ctx(ctx, y, host_y, bytes);
        if (rc != 0)
            return failed("copy_to_device_ctx", rc);
        if ((rc = simpler_run(ctx, CALLABLE_ID, &args, NULL)) != 0)
            return failed("simpler_run", rc);
        if ((rc = copy_from_device_ctx(ctx, host_z, z, bytes)) != 0)
            return failed("copy_from_device_ctx", rc);
        if (output_check("program mode", host_z, want) != 0)
            return 1;
    }
    device_free_ctx(ctx, x);
    device_free_ctx(ctx, y);
    device_free_ctx(ctx, z);
    if ((rc = finalize_device(ctx)) != 0)
        return failed("finalize_device", rc);
    destroy_device_context(ctx);
    printf("consumer: program mode: 2 runs matched\n");
    return 0;
}

/* Fresh inputs of round r copied in place, outside any capture. */
static int kernel_inputs(int r, void *x, void *y)
{
    inputs_make(r, host_x, host_y, want);
    int st = simdev_memcpy(x, host_x, N * sizeof(float));
    st = st ? st : simdev_memcpy(y, host_y, N * sizeof(float));
    return st ? device_failed("simdev_memcpy", st) : 0;
}

static int kernel_result(const char *what, simdev_stream_t stream, const void *z)
{
    int st = simdev_stream_synchronize(stream);
    st = st ? st : simdev_memcpy(host_z, z, N * sizeof(float));
    if (st != 0)
        return device_failed(what, st);
    return output_check(what, host_z, want);
}

/* The caller owns the device and the stream; simpler is one operator. */
static int kernel_mode(const void *image, size_t size)
{
    simdev_stream_t stream;
    simdev_graph_t graph;
    void *x, *y, *z;
    SimplerGraphRequirements req;
    SimplerKernelCtxControl configure, freeze;
    int st = simdev_stream_create(&stream);
    st = st ? st : simdev_malloc(&x, N * sizeof(float));
    st = st ? st : simdev_malloc(&y, N * sizeof(float));
    st = st ? st : simdev_malloc(&z, N * sizeof(float));
    if (st != 0)
        return device_failed("simdev setup", st);
    int rc = args_make(&args, x, y, z);
    rc = rc ? rc : simpler_graph_requirements(image, size, &args, &req);
    rc = rc ? rc : simpler_kernel_plan_capacity(&req, 1, &configure);
    if (rc != 0)
        return failed("sizing", rc);
    DeviceContextHandle ctx = create_device_context();
    if (ctx == NULL)
        return failed("create_device_context", PTO_RUNTIME_ERR_OUT_OF_MEMORY);
    memset(&freeze, 0, sizeof(freeze));
    freeze.abi_version = SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION;
    freeze.struct_size = sizeof(freeze);
    freeze.action = SIMPLER_KERNEL_CTX_FREEZE;
    if ((rc = simpler_kernel_mode_ctx_control(ctx, &configure)) != 0)
        return failed("CONFIGURE", rc);
    if ((rc = simpler_kernel_mode_init(ctx, 0, NULL, 1)) != 0)
        return failed("simpler_kernel_mode_init", rc);
    if ((rc = simpler_kernel_mode_prepare_callable(ctx, CALLABLE_ID, image, size, stream)) != 0)
        return failed("simpler_kernel_mode_prepare_callable", rc);
    if ((rc = simpler_kernel_mode_ctx_control(ctx, &freeze)) != 0)
        return failed("FREEZE", rc);

    if (kernel_inputs(0, x, y) != 0)
        return 1;
    if ((rc = simpler_kernel_mode_launch(ctx, CALLABLE_ID, &args, stream)) != 0)
        return failed("eager launch", rc);
    if (kernel_result("eager launch", stream, z) != 0)
        return 1;

    if ((st = simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL)) != 0)
        return device_failed("simdev_capture_begin", st);
    rc = simpler_kernel_mode_launch(ctx, CALLABLE_ID, &args, stream);
    st = simdev_capture_end(stream, &graph);
    if (rc != 0)
        return failed("captured launch", rc);
    if (st != 0)
        return device_failed("simdev_capture_end", st);
    for (int r = 1; r <= REPLAYS; r++) {
        if (kernel_inputs(r, x, y) != 0)
            return 1;
        if ((st = simdev_graph_launch(graph, stream)) != 0)
            return device_failed("simdev_graph_launch", st);
        if (kernel_result("replay", stream, z) != 0)
            return 1;
    }

    st = simdev_graph_destroy(graph);
    st = st ? st : simdev_stream_synchronize(stream);
    if (st != 0)
        return device_failed("teardown", st);
    if ((rc = finalize_device(ctx)) != 0)
        return failed("finalize_device", rc);
    destroy_device_context(ctx);
    st = simdev_free(x);
    st = st ? st : simdev_free(y);
    st = st ? st : simdev_free(z);
    st = st ? st : simdev_stream_destroy(stream);
    if (st != 0)
        return device_failed("simdev teardown", st);
    printf("consumer: kernel mode: eager launch and %d replays matched\n", REPLAYS);
    return 0;
}

int main(int argc, char **argv)
{
    size_t size;
    if (argc != 2) {
        fprintf(stderr, "usage: consumer IMAGE\n");
        return 2;
    }
    void *image = image_load(argv[1], &size);
    if (image == NULL)
        return 1;
    int rc = program_mode(image, size);
    rc = rc ? rc : kernel_mode(image, size);
    free(image);
    return rc;
}
