/* The three device bodies of kernel mode around the scheduler
 * (kernel_packet.h): the packet scheduler, the status check on the
 * caller stream and the slot registration. */
#include "device/kernel_packet.h"

#include <stddef.h>
#include <string.h>

#include "device/device_handshake.h"
#include "device/device_kernels.h"
#include "device/device_status.h"
#include "device/device_slot.h"
#include "device/device_wait.h"

/* The runtime arena's base is at least cache-line aligned: its slots
 * start on cache lines (requirements.h). */
#define RUNTIME_BASE_ALIGN 64u

/* Raises the refusal flag in the runtime header at `runtime_base` and
 * rings the doorbell, so a scheduler running there, waiting for a core
 * that will never come or blocked on the doorbell, ends its execution
 * with DEVICE_ERR_DESC_SEAL (device_scheduler.c, run_graph). */
static void refusal_raise(uint64_t runtime_base)
{
    device_runtime_header *rt = (device_runtime_header *)(uintptr_t)runtime_base;
    atomic_store(&rt->refused, 1);
    atomic_fetch_add(&rt->doorbell, 1);
    device_wait_wake(&rt->doorbell);
}

/* The runtime arena a block whose copy failed its seal reports to, 0
 * for none. The copy's status word and gate word both name the status
 * words, at their fixed offsets: when the two agree (one changed field
 * cannot make them), the frozen arena base written there at init is
 * used, so a changed runtime_base is never followed. When they
 * disagree, one of them is the changed field and the copy's own base,
 * if an arena's alignment, is the best left. */
static uint64_t refusal_arena(const device_run_desc *d)
{
    uint64_t words = d->status_addr - offsetof(kernel_status_words, run);
    if (d->status_addr != 0 && (words & 7u) == 0 && d->gate_addr == words + offsetof(kernel_status_words, owner))
        return ((const kernel_status_words *)(uintptr_t)words)->frozen.runtime_base;
    if ((d->runtime_base & (RUNTIME_BASE_ALIGN - 1u)) == 0)
        return d->runtime_base;
    return 0;
}

void kernel_executor_kernel(uint32_t block, uint32_t block_dim, const void *args)
{
    const device_run_desc *d = args;
    if (device_run_desc_sealed(d)) {
        device_executor_kernel(block, block_dim, args);
        return;
    }
    /* A changed copy: this block must still tell the scheduler, which
     * would otherwise wait for this core forever, through the one arena
     * base it can trust most. */
    uint64_t runtime = refusal_arena(d);
    if (runtime != 0 && (runtime & (RUNTIME_BASE_ALIGN - 1u)) == 0)
        refusal_raise(runtime);
}

void kernel_unsealed_refuse(uint64_t status_words_addr)
{
    if (status_words_addr == 0 || (status_words_addr & 7u) != 0)
        return; /* nothing left to trust; the host never sends this */
    kernel_status_words *w = (kernel_status_words *)(uintptr_t)status_words_addr;
    uint64_t runtime = w->frozen.runtime_base;
    kernel_status_publish(&w->run, &w->sticky, DEVICE_ERR_DESC_SEAL);
    /* Whether this execution holds the gate is unknown (the serial is
     * one of the fields not trusted): end whatever runs on the arena.
     * Its scheduler sees the flag, its cores the quit; every slot, as
     * the core count is not trusted either (the arena holds them all). */
    refusal_raise(runtime);
    device_run_desc all = {.runtime_base = runtime, .aic_count = DEVICE_CORE_MAX};
    device_slots_quit(&all);
}

kernel_status_words *kernel_packet_vouched_status_words(const void *args)
{
    const SimplerKernelInvocationHeader *h = kernel_packet_header_of(args);
    const kernel_graph_packet *p = kernel_packet_of(args);
    /* The checksum first: the address is followed only once it holds. */
    if (kernel_packet_head_checksum(h, p) != p->head_checksum || p->status_addr == 0 || (p->status_addr & 7u) != 0)
        return NULL;
    kernel_status_words *w = (kernel_status_words *)(uintptr_t)p->status_addr;
    return memcmp(&w->frozen, &p->regions, sizeof(p->regions)) == 0 ? w : NULL;
}

void kernel_packet_scheduler_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const device_run_desc *d = args;
    (void)block_dim;
    if (block_idx != 0)
        return;
    if (!device_run_desc_sealed(d)) {
        /* The status words the packet names, once its head checksum
         * vouches for them and their frozen regions are the packet's. */
        const kernel_status_words *w = kernel_packet_vouched_status_words(args);
        if (w != NULL)
            kernel_unsealed_refuse((uint64_t)(uintptr_t)w);
        return;
    }
    if (!kernel_gate_held(d))
        return; /* refused at the gate: the regions belong to another execution */
    /* Checks the packet and, once its lengths are trusted, restores the
     * image and the staged HOST tensors into the working regions in the
     * same read that checksums them; no task runs unless all of it
     * passed. */
    uint64_t sum = 0;
    int rc = kernel_packet_check_restore_sum(args, &sum);
    if (rc == DEVICE_ERR_PACKET_INVALID)
        return; /* no status word or slot can be trusted; the host never sends this */
    /* The descriptor's status word, not the packet's status_addr: a
     * refused packet's address may be the corrupted field. The check
     * accepts only a packet whose status words hold that word. */
    kernel_status_words *w =
        (kernel_status_words *)(uintptr_t)(d->status_addr - offsetof(kernel_status_words, run));
    if (rc != 0) {
        kernel_status_publish(&w->run, &w->sticky, rc);
        device_slots_quit(d); /* the executor's launch ends; the slots were placed */
        return;
    }
    /* A replay whose checksum is the one recorded when the same packet's
     * image last passed skips the image check (device_scheduler_run): the
     * restore just verified that the definition region holds bytes with
     * that checksum. */
    device_scheduler_run(d, sum, &w->image_passed);
    kernel_status_publish(&w->run, &w->sticky, atomic_load_explicit(&w->run, memory_order_acquire));
}

void kernel_dismiss_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const device_run_desc *d = args;
    (void)block_dim;
    if (block_idx != 0 || !device_run_desc_sealed(d) || !kernel_gate_held(d))
        return; /* nothing trusted, or the executors returned at the gate */
    /* Every scheduler path that ends an execution tells its cores to
     * quit (core 0 always among them); one still IDLE after the
     * scheduler returned was left by a scheduler whose copy it could not
     * trust and which had no status words to report through. */
    if (atomic_load_explicit(&device_core_slot_at(d, 0)->state, memory_order_acquire) == DEVICE_SLOT_IDLE) {
        kernel_status_words *w =
            (kernel_status_words *)(uintptr_t)(d->status_addr - offsetof(kernel_status_words, run));
        kernel_status_publish(&w->run, &w->sticky, DEVICE_ERR_DESC_SEAL);
        device_slots_quit(d);
    }
}

void kernel_status_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const kernel_status_args *a = args;
    kernel_status_words *w = (kernel_status_words *)(uintptr_t)a->status_addr;
    (void)block_dim;
    /* A changed copy names no status words or fault function that can
     * be trusted: touch nothing, call nothing. The gate stays held, so
     * every later execution of the context is refused (-23). */
    if (block_idx != 0 || a->seal != kernel_status_args_seal_of(a))
        return;
    int32_t run = KERNEL_GATE_ERR_OVERLAP;
    if (atomic_load_explicit(&w->owner, memory_order_acquire) == a->serial) {
        run = atomic_load_explicit(&w->run, memory_order_acquire);
        /* The execution's last reader of the shared regions is done (the
         * HOST copy-backs ran before): hand the gate back. */
        atomic_store_explicit(&w->owner, 0, memory_order_release);
    }
    if (run != 0 && a->report_fault != NULL)
        (void)a->report_fault(PLATFORM_KERNEL_FAULT_CODE);
}

void kernel_gate_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const kernel_gate_args *a = args;
    kernel_status_words *w = (kernel_status_words *)(uintptr_t)a->status_addr;
    uint64_t free_gate = 0;
    int32_t none = 0;
    (void)block_dim;
    /* A changed copy: no gate taken, no span cleared, nothing called.
     * The execution's other bodies find the gate not theirs and run
     * nothing; its status check fails the stream. */
    if (block_idx != 0 || a->seal != kernel_gate_args_seal_of(a))
        return;
    if (atomic_compare_exchange_strong(&w->owner, &free_gate, a->serial)) {
        memset((void *)(uintptr_t)a->clear_base, 0, (size_t)a->clear_bytes);
        return;
    }
    /* Another execution of this context is running: touch nothing of
     * it, and fail this one on its own stream. */
    (void)atomic_compare_exchange_strong(&w->sticky, &none, KERNEL_GATE_ERR_OVERLAP);
    if (a->report_fault != NULL)
        (void)a->report_fault(PLATFORM_KERNEL_FAULT_CODE);
}

void kernel_register_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const kernel_register_args *a = args;
    (void)block_dim;
    if (block_idx == 0)
        memcpy((void *)(uintptr_t)a->slot_addr, &a->record, sizeof(a->record));
}
