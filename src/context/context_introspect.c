/* The introspection entries, for tests and tools. */
#include "context/context.h"

/* One bank and one retained temp slot per context. */
#define CONTEXT_BANK_COUNT 1u
#define CONTEXT_TEMP_SLOT_COUNT 1u

uint64_t get_arena_bank_gm_heap_base_ctx(DeviceContextHandle handle, uint32_t bank_id)
{
    simpler_context *ctx = context_lock(handle);
    uint64_t base = 0;
    if (ctx == NULL)
        return 0;
    if (bank_id < CONTEXT_BANK_COUNT)
        base = (uint64_t)(uintptr_t)arena_bank_base(&ctx->bank, ARENA_REGION_GM_HEAP);
    context_unlock(ctx);
    return base;
}

uint64_t get_retained_temp_addr_ctx(DeviceContextHandle handle, uint32_t slot_id)
{
    simpler_context *ctx = context_lock(handle);
    uint64_t addr = 0;
    if (ctx == NULL)
        return 0;
    if (slot_id < CONTEXT_TEMP_SLOT_COUNT)
        addr = (uint64_t)(uintptr_t)ctx->temp.addr;
    context_unlock(ctx);
    return addr;
}

size_t get_host_dlopen_count(DeviceContextHandle handle)
{
    simpler_context *ctx = handle;
    return ctx != NULL ? atomic_load(&ctx->dlopen_counts.host) : 0;
}

size_t get_aicpu_dlopen_count(DeviceContextHandle handle)
{
    simpler_context *ctx = handle;
    return ctx != NULL ? atomic_load(&ctx->dlopen_counts.aicpu) : 0;
}
