/* The tutorial's host program (docs/tutorial.md): out = x * y + x, run
 * once in program mode, then in kernel mode as one captured launch
 * replayed on fresh inputs, every result checked on the host.
 *
 *   usage: tutorial_host IMAGE   (IMAGE: the packed tutorial.callable)
 *
 * Exit status 0 when every run matched, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>

#include "simpler/callable.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"
#include "tutorial_layout.h"

#define N 4096u
#define REPLAYS 3

/* Stops the program when a call fails, saying which and why. */
#define CHECK(call)                                                                                      \
    do {                                                                                                 \
        int rc_ = (call);                                                                                \
        if (rc_ != 0) {                                                                                  \
            fprintf(stderr, "%s failed: %s %s\n", #call, simpler_strerror(rc_), simpler_last_error_message()); \
            exit(1);                                                                                     \
        }                                                                                                \
    } while (0)

static float x[N], y[N], out[N];
static ChipStorageTaskArgs args; /* large: keep it off the stack */

static void inputs_fill(int seed)
{
    for (uint32_t i = 0; i < N; i++) {
        x[i] = (float)((i + (uint32_t)seed) % 7);
        y[i] = 0.5f * (float)((i * 3u + (uint32_t)seed) % 5);
        out[i] = -1.0f;
    }
}

/* The number of elements of `out` that differ from x * y + x. */
static uint32_t mismatches(void)
{
    uint32_t bad = 0;
    for (uint32_t i = 0; i < N; i++)
        bad += out[i] != x[i] * y[i] + x[i];
    return bad;
}

/* The three tensors over x, y, out (host or device addresses). */
static void args_make(void *px, void *py, void *pout, uint8_t space)
{
    const uint32_t n = N;
    CHECK(simpler_tensor_make(&args.tensors[TUTORIAL_ARG_X], px, SIMPLER_DTYPE_FLOAT32, 1, &n, space));
    CHECK(simpler_tensor_make(&args.tensors[TUTORIAL_ARG_Y], py, SIMPLER_DTYPE_FLOAT32, 1, &n, space));
    CHECK(simpler_tensor_make(&args.tensors[TUTORIAL_ARG_OUT], pout, SIMPLER_DTYPE_FLOAT32, 1, &n, space));
    args.tensor_count = TUTORIAL_TENSOR_COUNT;
    args.scalar_count = 0;
}

/* Program mode: the runtime owns the device; one call runs the graph to
 * completion, HOST tensors staged in and copied back. */
static uint32_t program_mode(const void *image, size_t size)
{
    DeviceContextHandle ctx = create_device_context();
    CHECK(simpler_init(ctx, 0, NULL));
    CHECK(simpler_register_callable(ctx, 0, image, size));
    inputs_fill(0);
    args_make(x, y, out, SIMPLER_ADDRESS_SPACE_HOST);
    CHECK(simpler_run(ctx, 0, &args, NULL));
    uint32_t bad = mismatches();
    CHECK(finalize_device(ctx));
    destroy_device_context(ctx);
    printf("program mode: %u of %u elements differ\n", bad, N);
    return bad;
}

/* Kernel mode: the launch is one asynchronous operator on our stream,
 * captured once and replayed; replays change tensor contents only. */
static uint32_t kernel_mode(const void *image, size_t size)
{
    DeviceContextHandle ctx = create_device_context();
    simdev_stream_t stream;
    simdev_graph_t graph;
    SimplerGraphRequirements req;
    SimplerKernelCtxControl configure;
    uint32_t bad = 0;
    const size_t bytes = N * sizeof(float);
    CHECK(simdev_stream_create(&stream));
    /* Size every buffer once, from the graph this call builds. Sizing
     * reads no tensor, but no tensor may have buffer_addr 0: the host
     * arrays stand in for the device buffers not allocated yet. */
    args_make(x, y, out, SIMPLER_ADDRESS_SPACE_DEVICE);
    CHECK(simpler_graph_requirements(image, size, &args, &req));
    CHECK(simpler_kernel_plan_capacity(&req, 1, &configure));
    CHECK(simpler_kernel_mode_ctx_control(ctx, &configure));
    CHECK(simpler_kernel_mode_init(ctx, 0, NULL, 1));
    CHECK(simpler_kernel_mode_prepare_callable(ctx, 0, image, size, stream));
    CHECK(simpler_kernel_mode_freeze(ctx));
    void *dx = device_malloc_ctx(ctx, bytes), *dy = device_malloc_ctx(ctx, bytes);
    void *dout = device_malloc_ctx(ctx, bytes);
    if (dx == NULL || dy == NULL || dout == NULL)
        CHECK(PTO_RUNTIME_ERR_OUT_OF_MEMORY);
    args_make(dx, dy, dout, SIMPLER_ADDRESS_SPACE_DEVICE);
    /* Capture one launch, then replay it with fresh inputs each time. */
    CHECK(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL));
    CHECK(simpler_kernel_mode_launch(ctx, 0, &args, stream));
    CHECK(simdev_capture_end(stream, &graph));
    for (int r = 1; r <= REPLAYS; r++) {
        inputs_fill(r);
        CHECK(copy_to_device_ctx(ctx, dx, x, bytes));
        CHECK(copy_to_device_ctx(ctx, dy, y, bytes));
        CHECK(simdev_graph_launch(graph, stream));
        CHECK(simdev_stream_synchronize(stream));
        CHECK(copy_from_device_ctx(ctx, out, dout, bytes));
        bad += mismatches();
    }
    CHECK(simdev_graph_destroy(graph));
    device_free_ctx(ctx, dx);
    device_free_ctx(ctx, dy);
    device_free_ctx(ctx, dout);
    CHECK(finalize_device(ctx));
    destroy_device_context(ctx);
    CHECK(simdev_stream_destroy(stream));
    printf("kernel mode: %u of %u elements differ over %d replays\n", bad, N * REPLAYS, REPLAYS);
    return bad;
}

int main(int argc, char **argv)
{
    void *image;
    size_t size;
    if (argc != 2) {
        fprintf(stderr, "usage: %s IMAGE\n", argv[0]);
        return 2;
    }
    CHECK(simpler_callable_load_file(argv[1], &image, &size));
    uint32_t bad = program_mode(image, size);
    bad += kernel_mode(image, size);
    simpler_callable_free(image);
    return bad == 0 ? 0 : 1;
}
