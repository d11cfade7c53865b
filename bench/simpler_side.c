/* The host sizing build and the program-mode run of simpler_side.h,
 * on the public API only. */
#include "simpler_side.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag_orch.h"
#include "simpler/runtime_c_api.h"
#include "timing.h"

#define SLOT_BUFFER_BYTES ((size_t)DAG_ORCH_SLOTS * DAG_ORCH_SLOT_ELEMS * sizeof(float))
/* Where the in-process build pretends the slot buffer lives: it only
 * compares address ranges, it never touches device memory. */
#define FAKE_DEVICE_ADDR 0x40000000ull

/* The call's arguments: the slot buffer at `addr`, the shape and the
 * kernel the tasks run. */
static int call_args(ChipStorageTaskArgs *a, void *addr, enum dag_shape shape, int32_t func)
{
    uint32_t elems = DAG_ORCH_SLOTS * DAG_ORCH_SLOT_ELEMS;
    memset(a, 0, sizeof(*a));
    int rc = simpler_tensor_make(&a->tensors[0], addr, SIMPLER_DTYPE_FLOAT32, 1, &elems,
                                 SIMPLER_ADDRESS_SPACE_DEVICE);
    a->tensor_count = 1;
    a->scalars[0] = (uint64_t)shape;
    a->scalars[1] = (uint64_t)func;
    a->scalar_count = 2;
    return rc;
}

static void *image_load(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    void *image = NULL;
    long n = -1;
    if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0)
        image = aligned_alloc(64, ((size_t)n + 63) / 64 * 64);
    if (image != NULL && fread(image, 1, (size_t)n, f) != (size_t)n) {
        free(image);
        image = NULL;
    }
    if (f != NULL)
        fclose(f);
    *size = image != NULL ? (size_t)n : 0;
    return image;
}

struct simpler_build {
    SimplerGraphSizer *sizer;
    ChipStorageTaskArgs args;
};

int simpler_build_create(const char *image_path, struct simpler_build **out)
{
    size_t size;
    struct simpler_build *b = calloc(1, sizeof(*b));
    void *image = image_load(image_path, &size);
    int rc = b == NULL ? PTO_RUNTIME_ERR_OUT_OF_MEMORY : image == NULL ? PTO_RUNTIME_ERR_INVALID_ARGUMENT : 0;
    /* Scratch for the largest shape up front, so no timed build grows it;
     * the sizer keeps what it needs of the image. */
    rc = rc ? rc : simpler_graph_sizer_create(image, size, DAG_ORCH_SLOTS, &b->sizer);
    free(image);
    if (rc != 0) {
        free(b);
        return rc;
    }
    *out = b;
    return 0;
}

void simpler_build_destroy(struct simpler_build *b)
{
    if (b == NULL)
        return;
    simpler_graph_sizer_destroy(b->sizer);
    free(b);
}

int simpler_build_once(struct simpler_build *b, enum dag_shape shape, double *ns_per_task, uint32_t *task_count)
{
    SimplerGraphRequirements req;
    int rc = call_args(&b->args, (void *)(uintptr_t)FAKE_DEVICE_ADDR, shape, DAG_ORCH_FUNC_EMPTY);
    if (rc != 0)
        return rc;
    uint64_t t0 = bench_now_ns();
    rc = simpler_graph_sizer_measure(b->sizer, &b->args, &req);
    uint64_t ns = bench_now_ns() - t0;
    if (rc != 0)
        return rc;
    *ns_per_task = (double)ns / (double)req.task_count;
    *task_count = (uint32_t)req.task_count;
    return 0;
}

struct simpler_program {
    DeviceContextHandle ctx;
    void *slots;
    void *image;
    ChipStorageTaskArgs args;
    CallConfig config;
};

int simpler_program_create(const char *image_path, struct simpler_program **out, const char **stage)
{
    size_t size;
    struct simpler_program *p = calloc(1, sizeof(*p));
    int rc = PTO_RUNTIME_ERR_OUT_OF_MEMORY;
    *stage = "calloc";
    if (p == NULL)
        goto err_free_program;
    *stage = "read the bench callable image";
    rc = PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if ((p->image = image_load(image_path, &size)) == NULL)
        goto err_free_program;
    rc = PTO_RUNTIME_ERR_OUT_OF_MEMORY;
    *stage = "create_device_context";
    if ((p->ctx = create_device_context()) == NULL)
        goto err_free_program;
    *stage = "simpler_init";
    if ((rc = simpler_init(p->ctx, 0, NULL)) != 0)
        goto err_destroy_ctx;
    *stage = "simpler_register_callable";
    if ((rc = simpler_register_callable(p->ctx, 0, p->image, size)) != 0)
        goto err_finalize_ctx;
    *stage = "device_malloc_ctx";
    rc = PTO_RUNTIME_ERR_OUT_OF_MEMORY;
    if ((p->slots = device_malloc_ctx(p->ctx, SLOT_BUFFER_BYTES)) == NULL)
        goto err_finalize_ctx;
    *stage = "simpler_call_config_default";
    if ((rc = simpler_call_config_default(&p->config)) != 0)
        goto err_free_slots;
    p->config.task_window = DAG_ORCH_SLOTS;
    *out = p;
    return 0;

err_free_slots:
    device_free_ctx(p->ctx, p->slots);
err_finalize_ctx:
    finalize_device(p->ctx);
err_destroy_ctx:
    destroy_device_context(p->ctx);
err_free_program:
    if (p != NULL)
        free(p->image);
    free(p);
    return rc;
}

void simpler_program_destroy(struct simpler_program *p)
{
    if (p == NULL)
        return;
    device_free_ctx(p->ctx, p->slots);
    finalize_device(p->ctx);
    destroy_device_context(p->ctx);
    free(p->image);
    free(p);
}

static int program_run(struct simpler_program *p, enum dag_shape shape, int32_t func, double *ns_per_task)
{
    int rc = call_args(&p->args, p->slots, shape, func);
    if (rc != 0)
        return rc;
    uint64_t t0 = bench_now_ns();
    rc = simpler_run(p->ctx, 0, &p->args, &p->config);
    *ns_per_task = (double)(bench_now_ns() - t0) / dag_shape_task_count(shape);
    return rc;
}

int simpler_program_run(struct simpler_program *p, enum dag_shape shape, struct simpler_run_sample *out)
{
    SimplerRunTimes t = {.struct_size = sizeof(t)};
    double n = dag_shape_task_count(shape);
    int rc = program_run(p, shape, DAG_ORCH_FUNC_EMPTY, &out->run);
    rc = rc ? rc : simpler_run_times(p->ctx, &t);
    if (rc != 0)
        return rc;
    out->build = (double)t.host_build_ns / n;
    out->execute = out->run - out->build;
    out->upload = (double)t.upload_ns / n;
    out->launch = (double)t.launch_ns / n;
    out->wait = (double)t.wait_ns / n;
    out->finish = (double)t.finish_ns / n;
    out->validation = (double)t.device_prepare_ns / n;
    out->loop = (double)t.device_graph_ns / n;
    return 0;
}

int simpler_program_verify(struct simpler_program *p, enum dag_shape shape, uint32_t *bad_task)
{
    size_t slot_bytes = DAG_ORCH_SLOT_ELEMS * sizeof(float);
    uint32_t count = dag_shape_task_count(shape);
    float *host = calloc(DAG_ORCH_SLOTS, slot_bytes);
    float *expected = calloc(count, sizeof(float));
    double ns;
    int rc = PTO_RUNTIME_ERR_OUT_OF_MEMORY;
    if (host != NULL && expected != NULL && (rc = copy_to_device_ctx(p->ctx, p->slots, host, SLOT_BUFFER_BYTES)) == 0 &&
        (rc = program_run(p, shape, DAG_ORCH_FUNC_CHECK, &ns)) == 0)
        rc = copy_from_device_ctx(p->ctx, host, p->slots, SLOT_BUFFER_BYTES);
    if (rc == 0) {
        dag_expected_values(shape, expected);
        for (uint32_t i = 0; i < count && rc == 0; i++) {
            if (host[(size_t)i * DAG_ORCH_SLOT_ELEMS] != expected[i]) {
                *bad_task = i;
                rc = SIMPLER_SIDE_WRONG_RESULT;
            }
        }
    }
    free(expected);
    free(host);
    return rc;
}
