/* The retained temp buffer and its kernel-mode guard. */
#include "memory/retained_temp.h"

#include "platform/platform_status.h"

int retained_temp_begin(retained_temp *slot, size_t required, int kernel_mode, const platform_ops *ops)
{
    void *fresh = NULL;

    if (slot == NULL || ops == NULL)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if (required == 0 || required <= slot->size)
        return 0;
    /* The guard sits ahead of the free: a held address may be baked into a
     * captured graph, so it must survive the refusal. An empty slot holds
     * no such address and may be allocated. */
    if (kernel_mode && slot->addr != NULL)
        return PTO_RUNTIME_ERR_CAPACITY_EXCEEDED;
    if (slot->addr != NULL) {
        if (ops->mem_free(ops->user, slot->addr) != 0)
            return PTO_RUNTIME_ERR_DEVICE;
        slot->addr = NULL;
        slot->size = 0;
    }
    if (ops->mem_alloc(ops->user, &fresh, required) != 0 || fresh == NULL)
        return PTO_RUNTIME_ERR_OUT_OF_MEMORY;
    if ((uintptr_t)fresh % RETAINED_TEMP_ALIGN != 0) {
        (void)ops->mem_free(ops->user, fresh);
        return PTO_RUNTIME_ERR_INTERNAL;
    }
    slot->addr = fresh;
    slot->size = required;
    return 0;
}

int retained_temp_release(retained_temp *slot, const platform_ops *ops)
{
    if (slot == NULL || ops == NULL)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if (slot->addr == NULL)
        return 0;
    if (ops->mem_free(ops->user, slot->addr) != 0)
        return PTO_RUNTIME_ERR_DEVICE;
    slot->addr = NULL;
    slot->size = 0;
    return 0;
}
