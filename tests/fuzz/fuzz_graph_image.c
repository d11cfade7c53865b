/* libFuzzer target: graph_image_check must accept or reject any bytes
 * without reading outside them, and anything it accepts must be safe to
 * walk: every fan-out successor exists and comes after its task, every
 * task's fan-in count is the number of fan-out entries naming it, and the
 * scratch holds each task's chain link (graph_image_chain_next), which
 * the scheduler's seeding reads from there. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph_image.h"
#include "graph/graph_limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t scratch[GRAPH_TASK_WINDOW_MAX];
static uint32_t named[GRAPH_TASK_WINDOW_MAX];

static void walk(const uint8_t *img)
{
    const graph_image_header *h = (const graph_image_header *)(const void *)img;
    const graph_image_task *t = (const graph_image_task *)(const void *)(img + h->task_offset);
    const uint32_t *fanout = (const uint32_t *)(const void *)(img + h->fanout_offset);
    memset(named, 0, (size_t)h->task_count * sizeof(named[0]));
    for (uint32_t i = 0; i < h->task_count; i++) {
        for (uint32_t k = 0; k < t[i].fanout_count; k++) {
            uint32_t s = fanout[t[i].fanout_begin + k];
            if (s <= i || s >= h->task_count)
                abort();
            named[s]++;
        }
    }
    for (uint32_t i = 0; i < h->task_count; i++)
        if (named[i] != t[i].fanin_count || scratch[i] != graph_image_chain_next(t, fanout, i))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Images are 8-byte aligned; copy into an exact-size aligned buffer
     * so ASan sees any read past the end. */
    uint8_t *img = malloc(size ? size : 1);
    if (img == NULL)
        return 0;
    memcpy(img, data, size);
    if (size >= sizeof(graph_image_header) && size >= 16) {
        /* Give the fuzzer a head start: a valid magic, version and size. */
        graph_image_header h;
        memcpy(&h, img, sizeof(h));
        if (h.magic == 0) {
            h.magic = GRAPH_IMAGE_MAGIC;
            h.version = GRAPH_IMAGE_VERSION;
            h.header_bytes = sizeof(h);
            h.image_bytes = size;
            memcpy(img, &h, sizeof(h));
        }
    }
    if (graph_image_check(img, size, scratch, GRAPH_TASK_WINDOW_MAX) == 0)
        walk(img);
    free(img);
    return 0;
}
