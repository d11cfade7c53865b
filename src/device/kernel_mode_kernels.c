/* The three device bodies of kernel mode around the scheduler
 * (kernel_packet.h): the packet scheduler, the status check on the
 * caller stream and the slot registration. */
#include "device/kernel_packet.h"

#include <string.h>

#include "device/device_kernels.h"
#include "device/device_status.h"
#include "device/device_slot.h"

void kernel_packet_scheduler_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const device_run_desc *d = args;
    (void)block_dim;
    if (block_idx != 0)
        return;
    int rc = kernel_packet_check(args);
    if (rc == DEVICE_ERR_PACKET_INVALID)
        return; /* no status word or slot can be trusted; the host never sends this */
    const kernel_graph_packet *p = kernel_packet_of(args);
    kernel_status_words *w = (kernel_status_words *)(uintptr_t)p->status_addr;
    if (rc != 0) {
        kernel_status_publish(&w->run, &w->sticky, rc);
        device_slots_quit(d); /* the executor's launch ends; the slots were placed */
        return;
    }
    /* Restore the immutable packet into the working regions before every
     * execution: the image, then the staged HOST tensors. */
    const uint8_t *image = kernel_packet_image_of(args);
    memcpy((void *)(uintptr_t)d->definition_base, image, (size_t)p->image_bytes);
    if (p->staged_bytes != 0)
        memcpy((void *)(uintptr_t)d->temp_base, image + kernel_packet_pad8(p->image_bytes),
               (size_t)p->staged_bytes);
    device_scheduler_kernel(0, 1, d);
    kernel_status_publish(&w->run, &w->sticky, atomic_load_explicit(&w->run, memory_order_acquire));
}

void kernel_status_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const kernel_status_args *a = args;
    const kernel_status_words *w = (const kernel_status_words *)(uintptr_t)a->status_addr;
    (void)block_dim;
    if (block_idx == 0 && atomic_load_explicit(&w->run, memory_order_acquire) != 0 && a->report_fault != NULL)
        (void)a->report_fault(PLATFORM_KERNEL_FAULT_CODE);
}

void kernel_register_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const kernel_register_args *a = args;
    (void)block_dim;
    if (block_idx == 0)
        memcpy((void *)(uintptr_t)a->slot_addr, &a->record, sizeof(a->record));
}
