/* The kernel table of one loaded callable (device_kernel_table.h). */
#include "device/device_kernel_table.h"

#include <string.h>

void device_kernel_table_fill(device_kernel_table *table, const loaded_callable *lc, uint64_t generation)
{
    memset(table, 0, sizeof(*table));
    table->generation = generation;
    for (uint32_t i = 0; i < lc->kernel_count; i++) {
        const callable_kernel *k = &lc->kernels[i];
        device_kernel_entry *e = &table->entries[k->func_id];
        /* dlsym hands out object pointers; POSIX guarantees a function's
         * address converts back. */
        e->fn = (SimplerKernelEntryFn)k->entry;
        e->core_type = k->core_type;
    }
}
