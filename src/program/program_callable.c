/* Program-mode simpler_register_callable / simpler_unregister_callable:
 * the slot's loaded callable plus the device kernel table its runs hand
 * to the device. */
#include "common/error.h"
#include "common/host_alloc.h"
#include "context/context.h"
#include "program/program.h"
#include "device/device_kernel_table.h"

/* The guards both entries share: -1003 before init or in kernel mode,
 * -1005 for an id out of range. */
static int program_slot_check(const simpler_context *ctx, int32_t callable_id)
{
    if (!program_initialized(ctx))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "ctx: %s",
                            context_is_kernel(ctx) ? "a kernel-mode context (use simpler_kernel_mode_prepare_callable)"
                                                   : "not initialized (call simpler_init first)");
    if (callable_id < 0 || callable_id >= SIMPLER_MAX_CALLABLES_PROGRAM)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable_id = %d: must be in 0..%d", callable_id,
                            SIMPLER_MAX_CALLABLES_PROGRAM - 1);
    return 0;
}

static int register_locked(simpler_context *ctx, int32_t id, const void *callable, size_t size)
{
    const loaded_callable *lc = NULL;
    uint64_t generation = 0;
    int rc = program_slot_check(ctx, id);
    if (rc != 0)
        return rc;
    if (callable == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable: NULL");
    if (ctx->residency.slots[id].callable != NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE,
                            "callable_id = %d: the slot already holds a callable (unregister it first)", id);
    /* The table is allocated before the load so that its failure leaves
     * the slot and its generation as they were. */
    device_kernel_table *table = host_calloc(1, sizeof(*table));
    if (table == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "host memory for callable %d's kernel table ran out", id);
    rc = residency_prepare(&ctx->residency, id, callable, size, &ctx->dlopen_counts, 0, &generation);
    if (rc != 0) {
        host_free(table);
        return rc;
    }
    (void)residency_lookup(&ctx->residency, id, &lc, NULL);
    device_kernel_table_fill(table, lc, generation);
    program_state *ps = program_state_of(ctx);
    host_free(ps->kernel_tables[id]);
    ps->kernel_tables[id] = table;
    return 0;
}

int simpler_register_callable(DeviceContextHandle handle, int32_t callable_id, const void *callable,
                              size_t callable_size)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    int rc = register_locked(ctx, callable_id, callable, callable_size);
    context_unlock(ctx);
    return rc;
}

int simpler_unregister_callable(DeviceContextHandle handle, int32_t callable_id)
{
    simpler_error_clear();
    simpler_context *ctx = context_lock(handle);
    if (ctx == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "ctx: NULL");
    int rc = program_slot_check(ctx, callable_id);
    if (rc == 0)
        rc = residency_remove(&ctx->residency, callable_id);
    if (rc == 0) {
        program_state *ps = program_state_of(ctx);
        host_free(ps->kernel_tables[callable_id]);
        ps->kernel_tables[callable_id] = NULL;
    }
    context_unlock(ctx);
    return rc;
}
