/* The retained temp buffer and its kernel-mode guard. */
#include "memory/retained_temp.h"

#include "common/error.h"
#include "platform/platform_status.h"

int retained_temp_begin(retained_temp *slot, size_t required, int kernel_mode, const platform_ops *ops)
{
    void *fresh = NULL;

    if (slot == NULL || ops == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "retained temp: %s NULL", slot == NULL ? "slot" : "ops");
    if (required == 0 || required <= slot->size)
        return 0;
    /* The guard sits ahead of the free: a held address may be baked into a
     * captured graph, so it must survive the refusal. An empty slot holds
     * no such address and may be allocated. */
    if (kernel_mode && slot->addr != NULL)
        return simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                            "retained_temp_bytes: %zu needed, %zu frozen (kernel mode never grows a held buffer)",
                            required, slot->size);
    if (slot->addr != NULL) {
        int code = ops->mem_free(ops->user, slot->addr);
        if (code != 0)
            return simpler_fail(PTO_RUNTIME_ERR_DEVICE,
                                "device free of the %zu-byte retained temp buffer failed: %s (device code %d)",
                                slot->size, platform_error_name(code), code);
        slot->addr = NULL;
        slot->size = 0;
    }
    int code = ops->mem_alloc(ops->user, &fresh, required);
    if (code != 0 || fresh == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY,
                            "device allocation of the %zu-byte retained temp buffer failed: %s (device code %d)",
                            required, platform_error_name(code), code);
    if ((uintptr_t)fresh % RETAINED_TEMP_ALIGN != 0) {
        (void)ops->mem_free(ops->user, fresh);
        return simpler_fail(PTO_RUNTIME_ERR_INTERNAL, "device allocation returned %p: not %d-byte aligned", fresh,
                            RETAINED_TEMP_ALIGN);
    }
    slot->addr = fresh;
    slot->size = required;
    return 0;
}

int retained_temp_release(retained_temp *slot, const platform_ops *ops)
{
    if (slot == NULL || ops == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "retained temp: %s NULL", slot == NULL ? "slot" : "ops");
    if (slot->addr == NULL)
        return 0;
    int code = ops->mem_free(ops->user, slot->addr);
    if (code != 0)
        return simpler_fail(PTO_RUNTIME_ERR_DEVICE,
                            "device free of the %zu-byte retained temp buffer failed: %s (device code %d)",
                            slot->size, platform_error_name(code), code);
    slot->addr = NULL;
    slot->size = 0;
    return 0;
}
