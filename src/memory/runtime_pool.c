#include "common/error.h"
#include "common/task_args_check.h"
#include "memory/runtime_pool.h"

#include <string.h>

/* Places the region `what` of `bytes` at the cursor (aligned first when
 * nonzero); -1004, naming it, when the packed total overflows 64 bits. */
static int place(uint64_t *cursor, const char *what, uint64_t bytes, uint64_t align, uint64_t *offset)
{
    if ((bytes != 0 && *cursor > UINT64_MAX - (align - 1)) ||
        bytes > UINT64_MAX - (bytes != 0 ? (*cursor + align - 1) & ~(align - 1) : *cursor))
        return simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                            "%s = %llu: placed after %llu bytes, the packed runtime pool overflows 64 bits", what,
                            (unsigned long long)bytes, (unsigned long long)*cursor);
    if (bytes != 0)
        *cursor = (*cursor + align - 1) & ~(align - 1);
    *offset = *cursor;
    *cursor += bytes;
    return 0;
}

int runtime_pool_pack(uint64_t runtime_bytes, uint64_t definition_bytes, uint64_t scheduler_bytes,
                      SimplerKernelLayout *out)
{
    SimplerKernelLayout l;
    uint64_t cursor = runtime_bytes;
    memset(&l, 0, sizeof(l));
    l.runtime_offset = 0;
    l.runtime_bytes = runtime_bytes;
    l.definition_bytes = definition_bytes;
    l.scheduler_bytes = scheduler_bytes;
    l.registry_bytes = SIMPLER_KERNEL_REGISTRY_BYTES;
    int rc = place(&cursor, "graph_definition_bytes", definition_bytes, SIMPLER_KERNEL_REGION_ALIGN,
                   &l.definition_offset);
    rc = rc ? rc : place(&cursor, "scheduler_state_bytes", scheduler_bytes, SIMPLER_KERNEL_REGION_ALIGN,
                         &l.scheduler_offset);
    rc = rc ? rc : place(&cursor, "the slot registry's bytes", l.registry_bytes, RUNTIME_POOL_REGISTRY_ALIGN,
                         &l.registry_offset);
    if (rc != 0)
        return rc;
    l.runtime_pool_bytes = cursor;
    *out = l;
    return 0;
}

static int configure_check(const SimplerKernelCtxControl *c)
{
    const int bad = PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if (c->abi_version != SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION)
        return simpler_fail(bad, "configure->abi_version = %u: expected %d", c->abi_version,
                            SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION);
    if (c->struct_size != sizeof(*c))
        return simpler_fail(bad, "configure->struct_size = %u: expected sizeof(SimplerKernelCtxControl) = %zu",
                            c->struct_size, sizeof(*c));
    if (c->action != SIMPLER_KERNEL_CTX_CONFIGURE)
        return simpler_fail(bad, "configure->action = %u: expected SIMPLER_KERNEL_CTX_CONFIGURE (%d)", c->action,
                            SIMPLER_KERNEL_CTX_CONFIGURE);
    if (c->mode != SIMPLER_MODE_PROGRAM && c->mode != SIMPLER_MODE_KERNEL)
        return simpler_fail(bad, "configure->mode = %u: not SIMPLER_MODE_PROGRAM (0) or _KERNEL (1)", c->mode);
    for (size_t i = 0; i < sizeof(c->reserved) / sizeof(c->reserved[0]); i++) {
        if (c->reserved[i] != 0)
            return simpler_fail(bad, "configure->reserved[%zu] = %u: must be 0", i, c->reserved[i]);
    }
    if (c->arg_slot_count > SIMPLER_KERNEL_MAX_ARG_SLOTS)
        return simpler_fail(bad, "configure->arg_slot_count = %u: at most %d", c->arg_slot_count,
                            SIMPLER_KERNEL_MAX_ARG_SLOTS);
    if (c->task_window > CALL_CONFIG_TASK_WINDOW_MAX)
        return simpler_fail(bad, "configure->task_window = %u: at most %u", c->task_window,
                            (unsigned)CALL_CONFIG_TASK_WINDOW_MAX);
    return 0;
}

int simpler_kernel_layout(const SimplerKernelCtxControl *configure, SimplerKernelLayout *out)
{
    simpler_error_clear();
    if (configure == NULL || out == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "%s: NULL", configure == NULL ? "configure" : "out");
    int rc = configure_check(configure);
    if (rc != 0)
        return rc;
    return runtime_pool_pack(configure->runtime_arena_bytes, configure->graph_definition_bytes,
                       configure->scheduler_state_bytes, out);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

int simpler_kernel_plan_capacity(const SimplerGraphRequirements *graphs, size_t count,
                                 SimplerKernelCtxControl *configure_out)
{
    simpler_error_clear();
    SimplerKernelCtxControl c;
    SimplerKernelLayout l;
    uint64_t tasks = 0;
    if (graphs == NULL || configure_out == NULL || count == 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "%s",
                            graphs == NULL ? "graphs: NULL" : configure_out == NULL ? "configure_out: NULL"
                                                                                     : "count = 0: at least 1 graph");
    memset(&c, 0, sizeof(c));
    /* Each region's maximum on its own: never a sum, never the largest
     * packed total. */
    for (size_t i = 0; i < count; i++) {
        c.gm_heap_bytes = max_u64(c.gm_heap_bytes, graphs[i].gm_heap_bytes);
        c.runtime_arena_bytes = max_u64(c.runtime_arena_bytes, graphs[i].runtime_arena_bytes);
        c.graph_definition_bytes = max_u64(c.graph_definition_bytes, graphs[i].graph_definition_bytes);
        c.scheduler_state_bytes = max_u64(c.scheduler_state_bytes, graphs[i].scheduler_state_bytes);
        c.retained_temp_bytes = max_u64(c.retained_temp_bytes, graphs[i].retained_temp_bytes);
        tasks = max_u64(tasks, graphs[i].task_count);
    }
    /* The window is the largest count + 1, and init takes at most
     * CALL_CONFIG_TASK_WINDOW_MAX. */
    if (tasks >= CALL_CONFIG_TASK_WINDOW_MAX)
        return simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                            "graphs[].task_count = %llu: at most %u (the window is task_count + 1, at most %u)",
                            (unsigned long long)tasks, (unsigned)CALL_CONFIG_TASK_WINDOW_MAX - 1,
                            (unsigned)CALL_CONFIG_TASK_WINDOW_MAX);
    int rc = runtime_pool_pack(c.runtime_arena_bytes, c.graph_definition_bytes, c.scheduler_state_bytes, &l);
    if (rc != 0)
        return rc;
    c.abi_version = SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION;
    c.struct_size = sizeof(c);
    c.action = SIMPLER_KERNEL_CTX_CONFIGURE;
    c.mode = SIMPLER_MODE_KERNEL;
    c.task_window = (uint32_t)tasks + 1;
    c.arg_slot_count = 0; /* the caller decides how many argument slots it wants */
    *configure_out = c;
    return 0;
}
