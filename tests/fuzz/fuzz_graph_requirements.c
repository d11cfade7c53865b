/* libFuzzer target for simpler_graph_requirements end to end: the image
 * is a real one (the examples' and fixtures' images, listed at build
 * time), picked by the first input byte and optionally patched; the
 * arguments (counts, every ChipTensor field, scalars) come from the rest.
 * The call loads the binaries, runs the orchestration on the host and
 * sizes the graph: it must return 0, a refusal status or the
 * orchestration's own code, never crash, and an accepted call's figures
 * must be consistent (a graph with tasks needs a definition). Buffers
 * named by HOST tensors point into one real array, so an orchestration
 * reading its inputs reads valid memory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simpler/runtime_c_api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef FUZZ_IMAGES
#error "FUZZ_IMAGES lists image paths separated by ':' (tests/CMakeLists.txt)"
#endif

#define MAX_IMAGES 16
static uint8_t *images[MAX_IMAGES];
static size_t image_sizes[MAX_IMAGES];
static uint32_t image_count;
static _Alignas(64) uint8_t host_buffer[1 << 16];

static void images_load(void)
{
    char list[] = FUZZ_IMAGES;
    for (char *path = strtok(list, ":"); path != NULL && image_count < MAX_IMAGES; path = strtok(NULL, ":")) {
        FILE *f = fopen(path, "rb");
        if (f == NULL)
            continue;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *b = aligned_alloc(64, ((size_t)n + 63) / 64 * 64);
        if (fread(b, 1, (size_t)n, f) == (size_t)n) {
            images[image_count] = b;
            image_sizes[image_count++] = (size_t)n;
        } else {
            free(b);
        }
        fclose(f);
    }
    if (image_count == 0)
        abort();
}

static uint8_t take(const uint8_t **p, size_t *n)
{
    if (*n == 0)
        return 0;
    (*n)--;
    return *(*p)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (image_count == 0)
        images_load();
    const uint8_t *p = data;
    size_t n = size;
    uint32_t which = take(&p, &n) % image_count;
    ChipStorageTaskArgs args;
    memset(&args, 0, sizeof args);
    args.tensor_count = take(&p, &n) % 6;
    args.scalar_count = take(&p, &n) % 4;
    for (int32_t i = 0; i < args.tensor_count; i++) {
        ChipTensor *t = &args.tensors[i];
        uint32_t shape = 1 + take(&p, &n) % 64;
        uint8_t dtype = (uint8_t)(1 + take(&p, &n) % 4);
        uint8_t mangle = take(&p, &n);
        (void)simpler_tensor_make(t, host_buffer + 64 * (mangle % 8), dtype, 1 + mangle % 2 ? 1 : 1, &shape,
                                  SIMPLER_ADDRESS_SPACE_HOST);
        if (t->buffer_bytes > sizeof host_buffer / 2)
            t->buffer_bytes = sizeof host_buffer / 2;
        if (mangle & 0x80)
            t->start_offset = take(&p, &n);
        if ((mangle & 0x60) == 0x60)
            t->buffer_addr = take(&p, &n) == 0 ? 0 : UINT64_MAX - take(&p, &n);
        if ((mangle & 0x18) == 0x18)
            t->strides[0] = take(&p, &n);
    }
    for (int32_t i = 0; i < args.scalar_count; i++)
        args.scalars[i] = take(&p, &n) % 8;
    SimplerGraphRequirements req;
    int rc = simpler_graph_requirements(images[which], image_sizes[which], &args, &req);
    if (rc == 0 && req.task_count > 0 && req.graph_definition_bytes == 0)
        abort();
    if (rc != 0 && simpler_last_error_message() == NULL)
        abort();
    return 0;
}
