/* libFuzzer target for host sizing: simpler_graph_sizer_measure on every
 * input, and simpler_graph_requirements end to end on a share of them.
 * The image is a real one (the examples' and fixtures' images, listed
 * at build time), picked by the first input byte; the arguments (counts,
 * every ChipTensor field, scalars) come from the rest.
 *
 * Each image is loaded once into a SimplerGraphSizer kept for the
 * process (loading is a memfd and a dlopen per binary, and its unload a
 * dlclose: tens of milliseconds of system time that would otherwise be
 * paid by every input). The sizer builds the graph on the host and sizes
 * it: it must return 0, a refusal status or the orchestration's own code,
 * never crash, and an accepted call's figures must be consistent (a graph
 * with tasks needs a definition). A refused measure must leave the
 * handle as it was: the image's reference arguments then measure as
 * they did when the handle was made.
 *
 * On one input in 32 (chosen by a hash of the whole input, so every
 * mutation redraws it and the share stays put whatever the corpus
 * holds), the same arguments also go through simpler_graph_requirements, which loads, measures and unloads
 * the image itself: it must return exactly what the sizer returned, and
 * the same figures. Buffers named by HOST tensors point into one real
 * array, so an orchestration reading its inputs reads valid memory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_reader.h"
#include "simpler/callable.h"
#include "simpler/runtime_c_api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef FUZZ_IMAGES
#error "FUZZ_IMAGES lists image paths separated by ':' (tests/CMakeLists.txt)"
#endif

#define MAX_IMAGES 16
static uint8_t *images[MAX_IMAGES];
static size_t image_sizes[MAX_IMAGES];
static SimplerGraphSizer *sizers[MAX_IMAGES];
/* Per image: reference arguments (the signature's counts, 16-element
 * HOST tensors), the sizer's status on them and its figures. */
static ChipStorageTaskArgs reference_args[MAX_IMAGES];
static int reference_rc[MAX_IMAGES];
static SimplerGraphRequirements reference_req[MAX_IMAGES];
static uint32_t image_count;
static _Alignas(64) uint8_t host_buffer[1 << 16];

static void reference_make(uint32_t i)
{
    ChipStorageTaskArgs *a = &reference_args[i];
    const SimplerCallableHeader *h = (const SimplerCallableHeader *)(const void *)images[i];
    memset(a, 0, sizeof(*a));
    for (uint32_t s = 0; s < h->signature_count && s < SIMPLER_CALLABLE_MAX_SIGNATURE; s++) {
        const uint8_t *sig = images[i] + h->header_size;
        if (sig[s] == SIMPLER_ARG_SCALAR) {
            if (a->scalar_count < SIMPLER_MAX_SCALAR_ARGS)
                a->scalars[a->scalar_count++] = 2;
        } else if (a->tensor_count < SIMPLER_MAX_TENSOR_ARGS) {
            uint32_t shape = 16;
            (void)simpler_tensor_make(&a->tensors[a->tensor_count], host_buffer + 1024 * (uint32_t)a->tensor_count,
                                      SIMPLER_DTYPE_FLOAT32, 1, &shape, SIMPLER_ADDRESS_SPACE_HOST);
            a->tensor_count++;
        }
    }
    reference_rc[i] = simpler_graph_sizer_measure(sizers[i], a, &reference_req[i]);
}

static void images_load(void)
{
    char list[] = FUZZ_IMAGES;
    for (char *path = strtok(list, ":"); path != NULL && image_count < MAX_IMAGES; path = strtok(NULL, ":")) {
        void *b = NULL;
        size_t n = 0;
        if (simpler_callable_load_file(path, &b, &n) != 0)
            continue;
        if (simpler_graph_sizer_create(b, n, 0, &sizers[image_count]) != 0)
            abort(); /* a real image loads */
        images[image_count] = b;
        image_sizes[image_count] = n;
        reference_make(image_count++);
    }
    if (image_count == 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (image_count == 0)
        images_load();
    reader r = {data, size};
    uint32_t which = take(&r) % image_count;
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < size; i++)
        hash = (hash ^ data[i]) * 16777619u;
    int end_to_end = (hash >> 27) == 0;
    ChipStorageTaskArgs args;
    memset(&args, 0, sizeof args);
    args.tensor_count = take(&r) % 6;
    args.scalar_count = take(&r) % 4;
    for (int32_t i = 0; i < args.tensor_count; i++) {
        ChipTensor *t = &args.tensors[i];
        uint32_t shape = 1 + take(&r) % 64;
        uint8_t dtype = (uint8_t)(1 + take(&r) % 4);
        uint8_t mangle = take(&r);
        (void)simpler_tensor_make(t, host_buffer + 64 * (mangle % 8), dtype, 1, &shape, SIMPLER_ADDRESS_SPACE_HOST);
        if (t->buffer_bytes > sizeof host_buffer / 2)
            t->buffer_bytes = sizeof host_buffer / 2;
        if (mangle & 0x80)
            t->start_offset = take(&r);
        if ((mangle & 0x60) == 0x60)
            t->buffer_addr = take(&r) == 0 ? 0 : UINT64_MAX - take(&r);
        if ((mangle & 0x18) == 0x18)
            t->strides[0] = take(&r);
    }
    for (int32_t i = 0; i < args.scalar_count; i++)
        args.scalars[i] = take(&r) % 8;

    SimplerGraphRequirements req;
    memset(&req, 0x5a, sizeof req);
    const SimplerGraphRequirements untouched = req;
    int rc = simpler_graph_sizer_measure(sizers[which], &args, &req);
    if (rc == 0 && req.task_count > 0 && req.graph_definition_bytes == 0)
        abort();
    if (rc != 0) {
        if (simpler_last_error_message() == NULL || memcmp(&req, &untouched, sizeof req) != 0)
            abort(); /* a refusal says why and writes nothing */
        SimplerGraphRequirements again;
        if (simpler_graph_sizer_measure(sizers[which], &reference_args[which], &again) != reference_rc[which] ||
            (reference_rc[which] == 0 && memcmp(&again, &reference_req[which], sizeof again) != 0))
            abort(); /* the refused measure changed the handle */
    }
    if (end_to_end) {
        SimplerGraphRequirements once;
        int rc_once = simpler_graph_requirements(images[which], image_sizes[which], &args, &once);
        if (rc_once != rc || (rc == 0 && memcmp(&once, &req, sizeof once) != 0))
            abort(); /* one-shot sizing and the handle agree */
        if (rc_once != 0 && simpler_last_error_message() == NULL)
            abort();
    }
    return 0;
}
