/* Shared by the program-mode integration suites: a small simdev, the
 * "vadd" image (fixtures/vadd_orch.c) and its arguments. */
#ifndef SIMPLER_TESTS_PROGRAM_FIXTURE_H
#define SIMPLER_TESTS_PROGRAM_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simpler/runtime_c_api.h>
#include <simpler/simdev.h>

#include "file_image.h"
#include "simdev_setup.h"

#define VADD_N 256u          /* elements of a, b, f */
#define VADD_MODE_MISSING 1  /* scalar 1: add a task without a kernel */
#define VADD_MODE_WRONG_CORE 2 /* scalar 1: add a task naming an AIC kernel on AIV */
#define VADD_MODE_EMPTY 3      /* scalar 1: submit no task */

typedef struct vadd_image {
    void *bytes; /* 64-aligned */
    size_t size;
} vadd_image;

static inline int program_simdev_setup(void)
{
    return simdev_setup_configure(2, (uint64_t)32 << 20, 1, 2, 2);
}

static inline int program_simdev_teardown(void)
{
    simdev_fault_clear();
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

static inline vadd_image vadd_image_load(void)
{
    vadd_image img;
    img.bytes = file_image_read(PROGRAM_FIXTURE_OUT "/vadd.callable", &img.size);
    return img;
}

static inline void vadd_image_free(vadd_image *img)
{
    free(img->bytes);
    img->bytes = NULL;
}

/* Host buffers of one call. */
typedef struct vadd_buffers {
    float a[VADD_N], b[VADD_N], f[VADD_N];
} vadd_buffers;

static inline void vadd_buffers_fill(vadd_buffers *v, float seed)
{
    for (uint32_t i = 0; i < VADD_N; i++) {
        v->a[i] = seed + (float)i;
        v->b[i] = 0.5f * (float)i;
        v->f[i] = -1.0f;
    }
}

/* The vadd arguments over three buffers in `space` (HOST or DEVICE). */
static inline void vadd_args_make(ChipStorageTaskArgs *args, void *a, void *b, void *f, uint8_t space,
                                  uint64_t rounds, uint64_t mode)
{
    uint32_t shape = VADD_N;
    memset(args, 0, sizeof(*args));
    simpler_tensor_make(&args->tensors[0], a, SIMPLER_DTYPE_FLOAT32, 1, &shape, space);
    simpler_tensor_make(&args->tensors[1], b, SIMPLER_DTYPE_FLOAT32, 1, &shape, space);
    simpler_tensor_make(&args->tensors[2], f, SIMPLER_DTYPE_FLOAT32, 1, &shape, space);
    args->tensor_count = 3;
    args->scalars[0] = rounds;
    args->scalars[1] = mode;
    args->scalar_count = 2;
}

/* 0 when f == 2 * (a + b + rounds) everywhere. */
static inline int vadd_check(const vadd_buffers *v, uint64_t rounds)
{
    for (uint32_t i = 0; i < VADD_N; i++) {
        if (v->f[i] != 2.0f * (v->a[i] + v->b[i] + (float)rounds))
            return -1;
    }
    return 0;
}

#endif
