/*
 * device_executor_internal — the AICore executor's argument arrays and
 * their fill, shared by device_executor.c and its unit test
 * (test_device_fill.c). Inline: the fill runs per tensor argument of
 * every task on the executor's hot path.
 */
#ifndef SIMPLER_DEVICE_EXECUTOR_INTERNAL_H
#define SIMPLER_DEVICE_EXECUTOR_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "device/device_run_desc.h"
#include "graph/graph_image.h"
#include "simpler/orchestration.h"

/* Region bases by address kind (GRAPH_ADDR_*, 1..3; the image check
 * refuses any other kind of a tensor argument): a caller device address
 * is used as it is, heap and staged ones are offsets into their regions.
 * Resolved once per block, so a tensor's address is one load and add. */
#define DEVICE_EXECUTOR_BASES 4u
_Static_assert(GRAPH_ADDR_DEVICE < DEVICE_EXECUTOR_BASES && GRAPH_ADDR_HEAP < DEVICE_EXECUTOR_BASES &&
                   GRAPH_ADDR_STAGED < DEVICE_EXECUTOR_BASES,
               "address kinds index the base table");

static inline void device_executor_bases(const device_run_desc *d, uint64_t base[DEVICE_EXECUTOR_BASES])
{
    base[0] = 0;
    base[GRAPH_ADDR_DEVICE] = 0;
    base[GRAPH_ADDR_HEAP] = d->heap_base;
    base[GRAPH_ADDR_STAGED] = d->temp_base;
}

/* A block's argument arrays, kept across its tasks. Kernels see them
 * const, so what a task leaves stays for the next: the reserved bytes are
 * zeroed once, and a tensor whose view is the one its entry holds keeps
 * its shape. Writing all 128 bytes of every tensor per task made the
 * executor the loop's bottleneck (docs/performance.md, "Figures behind
 * the constants"). */
typedef struct device_executor_args {
    ChipTensor tensors[SIMPLER_MAX_TASK_ARGS];
    uint64_t scalars[SIMPLER_MAX_TASK_ARGS];
    uint32_t view[SIMPLER_MAX_TASK_ARGS]; /* the view tensors[i] holds, UINT32_MAX for none */
} device_executor_args;

static inline void device_executor_args_init(device_executor_args *c)
{
    memset(c, 0, sizeof(*c));
    memset(c->view, 0xff, sizeof(c->view));
}

/* Fills argument entry `i` for tensor argument `a`: the address,
 * resolved in its region (device_executor_bases), and the bytes and offset always; the shape
 * only when the entry holds another view. */
static inline void device_executor_fill_tensor(const uint64_t base[DEVICE_EXECUTOR_BASES],
                                               const graph_image_view *views, const graph_image_arg *a,
                                               device_executor_args *c, uint32_t i)
{
    ChipTensor *t = &c->tensors[i];
    t->buffer_addr = base[a->addr_kind & (DEVICE_EXECUTOR_BASES - 1)] + a->addr;
    t->buffer_bytes = a->buffer_bytes;
    t->start_offset = a->start_offset;
    if (c->view[i] == a->view)
        return;
    const graph_image_view *v = &views[a->view];
    c->view[i] = a->view;
    t->ndims = v->ndims;
    t->dtype = v->dtype;
    t->address_space = SIMPLER_ADDRESS_SPACE_DEVICE;
    memcpy(t->shapes, v->shapes, sizeof(t->shapes));
    memcpy(t->strides, v->strides, sizeof(t->strides));
}

#endif
