/*
 * device_kernel_table — func_id -> kernel entry and core type, for the
 * kernels of one loaded callable.
 *
 * Plain data in stable host memory owned by the caller (the loaded
 * callable): a run descriptor carries its address, so the table must stay
 * put and unchanged while any launch or captured graph that names it can
 * run. The scheduler checks every task against it before consuming
 * anything; the executor calls through it.
 */
#ifndef SIMPLER_DEVICE_KERNEL_TABLE_H
#define SIMPLER_DEVICE_KERNEL_TABLE_H

#include <stdint.h>

#include "callable/loader.h"
#include "graph/graph_image.h"
#include "simpler/orchestration.h"

#define DEVICE_KERNEL_TABLE_SIZE GRAPH_FUNC_ID_LIMIT /* func_id 0..1023 */

typedef struct device_kernel_entry {
    SimplerKernelEntryFn fn; /* NULL: no kernel with this func_id */
    uint32_t core_type;      /* SIMPLER_CORE_TYPE_AIC / _AIV */
    uint32_t reserved;
} device_kernel_entry;

typedef struct device_kernel_table {
    /* Bumped by the owner whenever the entries change; a run descriptor
     * names the generation it was built for (DEVICE_ERR_GENERATION). */
    uint64_t generation;
    device_kernel_entry entries[DEVICE_KERNEL_TABLE_SIZE];
} device_kernel_table;

/* Fills `table` from the kernels of `lc` (func_id -> entry, core type)
 * and stamps `generation`; every other entry is cleared. Both modes
 * build their tables with it (program registration, kernel-mode slot
 * records). Never fails. */
void device_kernel_table_fill(device_kernel_table *table, const loaded_callable *lc, uint64_t generation);

#endif
