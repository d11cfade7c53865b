/* Writes the seed corpus of fuzz_graph_image: graph images the host build
 * made (graph_build_run, then graph_image_write), of random programs
 * (region_oracle.h's generator: overlapping, repeated, strided views of
 * DEVICE, staged HOST and heap tensors), so the fuzzer starts from every
 * section a real image has: tasks, arguments, views, fan-in and fan-out
 * lists, staged entries. Each image is checked with graph_image_check
 * before it is written. Usage: seed_graph_images OUT_DIR [COUNT].
 * tests/fuzz/make_seeds.sh runs it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph_build.h"
#include "graph/graph_image.h"
#include "graph/graph_limits.h"
#include "region_oracle.h"
#include "simpler/task_args.h"

#define DEVICE_BASE 0x40000u

/* DEVICE tensors of 96, 64 and 32 float32 over 256 bytes (the first two
 * overlap), one HOST tensor of 32 float32 staged apart. */
static const struct {
    uint32_t offset, elems;
    uint8_t space;
} callers[] = {
    {0, 48, SIMPLER_ADDRESS_SPACE_DEVICE},
    {128, 32, SIMPLER_ADDRESS_SPACE_DEVICE},
    {192, 16, SIMPLER_ADDRESS_SPACE_DEVICE},
    {0, 32, SIMPLER_ADDRESS_SPACE_HOST},
};
#define CALLERS 4u

static _Alignas(64) float host_buffer[32];
static _Alignas(64) ChipStorageTaskArgs args;
static ro_prog prog;

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: seed_graph_images OUT_DIR [COUNT]\n");
        return 2;
    }
    unsigned count = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 48u;
    graph_limits limits;
    graph_scratch *s = NULL;
    if (graph_limits_for_window(64, UINT64_MAX, UINT64_MAX, &limits) != 0 || graph_scratch_create(&limits, &s) != 0)
        return 1;
    prog.caller_count = CALLERS;
    for (uint32_t k = 0; k < CALLERS; k++) {
        ChipTensor *t = &args.tensors[k];
        uint32_t shape = callers[k].elems;
        void *addr = callers[k].space == SIMPLER_ADDRESS_SPACE_HOST ? (void *)host_buffer
                                                                    : (void *)(uintptr_t)(DEVICE_BASE + callers[k].offset);
        if (simpler_tensor_make(t, addr, SIMPLER_DTYPE_FLOAT32, 1, &shape, callers[k].space) != 0)
            return 1;
        prog.places[k].cell_base = callers[k].space == SIMPLER_ADDRESS_SPACE_HOST ? 512u : callers[k].offset;
        prog.places[k].elem_bytes = 4;
        prog.places[k].elems = callers[k].elems;
    }
    args.tensor_count = CALLERS;
    ro_place_heap(&prog, 768u);
    ro_current = &prog;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    static uint32_t scratch_ids[GRAPH_TASK_WINDOW_MAX];
    for (unsigned n = 0; n < count; n++) {
        const graph *g = NULL;
        ro_random_prog(&rng, &prog);
        if (n % 8u == 0)
            prog.task_count = 1 + n / 8u; /* a few small graphs too */
        if (graph_build_run(s, ro_orch, &args, &g) != 0)
            return 1;
        size_t size = graph_image_size(g);
        void *img = aligned_alloc(64, (size + 63) / 64 * 64);
        if (img == NULL || graph_image_write(g, img, size) != 0 ||
            graph_image_check(img, size, scratch_ids, GRAPH_TASK_WINDOW_MAX) != 0)
            return 1;
        char path[4096];
        snprintf(path, sizeof(path), "%s/built_%02u_%utasks", argv[1], n, g->task_count);
        FILE *f = fopen(path, "wb");
        if (f == NULL || fwrite(img, 1, size, f) != size || fclose(f) != 0)
            return 1;
        free(img);
    }
    graph_scratch_destroy(s);
    return 0;
}
