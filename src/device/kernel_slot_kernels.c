/* The two device bodies of kernel mode's argument slots
 * (kernel_packet.h): the store write_args enqueues, and the scheduler of
 * a launch_slot, which reads the slot when the execution runs. */
#include "device/kernel_packet.h"

#include <string.h>

#include "device/device_handshake.h"
#include "device/device_kernels.h"
#include "device/device_slot.h"
#include "device/device_status.h"

/* A store that refused its arguments: the slot keeps what it held,
 * which may be an older sound packet of the same generation, and the
 * next launch_slot would run it again with success. The packet after
 * the arguments names the context's status words under its own head
 * checksum, which the refused seal does not cover: when that vouches
 * for them, every later slot launch of the context is refused there
 * (store_refused; which slot the store was for is not known). With the
 * packet head changed too nothing is trusted and nothing is written. */
static void store_refused_report(const kernel_arg_store_args *a)
{
    kernel_status_words *w = kernel_packet_vouched_status_words(a + 1);
    if (w == NULL)
        return;
    atomic_store_explicit(&w->store_refused, 1, memory_order_release);
    kernel_status_publish(&w->run, &w->sticky, DEVICE_ERR_DESC_SEAL);
}

void kernel_arg_store_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const kernel_arg_store_args *a = args;
    (void)block_dim;
    if (block_idx != 0)
        return;
    /* A changed copy names no slot that can be trusted: store nothing
     * (docs/kernel-mode.md, "Argument slots"). */
    if (a->seal != kernel_arg_store_args_seal_of(a)) {
        store_refused_report(a);
        return;
    }
    if (a->header.packet_bytes > a->slot_bytes - sizeof(a->header))
        return; /* the host never sends a packet bigger than the slot */
    uint8_t *slot = (uint8_t *)(uintptr_t)a->slot_addr;
    memcpy(slot + sizeof(a->header), a + 1, (size_t)a->header.packet_bytes);
    /* The header last, so a slot never reads as holding a packet that is
     * not there yet. */
    kernel_arg_slot_header h = a->header;
    kernel_arg_slot_header *dst = (kernel_arg_slot_header *)slot;
    dst->packet_bytes = h.packet_bytes;
    dst->reserved = 0;
    atomic_store_explicit((_Atomic uint32_t *)&dst->magic, h.magic, memory_order_release);
}

/* The fixed parts of a slot's packet, copied out before they are
 * checked, so a store racing the read cannot change them between check
 * and use. */
typedef struct slot_fixed {
    device_run_desc d;
    SimplerKernelInvocationHeader h;
    kernel_graph_packet p;
} slot_fixed;

_Static_assert(sizeof(slot_fixed) == sizeof(device_run_desc) + sizeof(SimplerKernelInvocationHeader) +
                                         sizeof(kernel_graph_packet), "the fixed parts are contiguous");

/* Whether the stored packet was built for another generation of its
 * callable than the one its slot record holds now. */
static int stale(const slot_fixed *f)
{
    /* Followed only when it is the record the descriptor's kernel table
     * lies in, as the packet check compares it before reading. */
    if ((uint64_t)(uintptr_t)f->d.kernels != f->p.slot_addr + offsetof(kernel_slot_record, table))
        return 0;
    const kernel_slot_record *rec = (const kernel_slot_record *)(uintptr_t)f->p.slot_addr;
    return rec->callable_id == f->h.callable_id && rec->table.generation != f->h.generation;
}

/* Every byte of device_run_desc is a field: the stored descriptor is
 * compared whole (stored_desc_check). */
_Static_assert(sizeof(device_run_desc) == 6 * sizeof(uint32_t) + 18 * sizeof(uint64_t) +
                                              sizeof(const device_kernel_table *) + sizeof(platform_fault_fn) +
                                              sizeof(uint32_t) + 2 * sizeof(uint16_t),
               "device_run_desc has no padding");

/* The stored descriptor is the one the host derives from this launch's
 * own descriptor (its launch arguments: the frozen regions and trace
 * buffer, the cores, the status word, no fault function) and the
 * packet, byte for byte: only the four fields the packet check compared
 * with the packet and the slot record (task count, image bytes,
 * generation, kernel table) may differ, deferred is 0 (the launch's is
 * the deferred executor's), and the execution's own fields (gate,
 * serial, started cores) are 0: this launch supplies them. Compared
 * whole, so no field of a stored descriptor is trusted without a
 * comparison, a field added later included. The checksums do not cover
 * the descriptor; this comparison does. */
static int stored_desc_check(const kernel_slot_launch_args *a, const device_run_desc *d)
{
    device_run_desc expect = a->desc;
    expect.task_count = d->task_count;
    expect.image_bytes = d->image_bytes;
    expect.generation = d->generation;
    expect.kernels = d->kernels;
    expect.deferred = 0;
    expect.gate_addr = 0;
    expect.serial = 0;
    expect.aic_started = 0;
    expect.aiv_started = 0;
    expect.seal = 0;
    return memcmp(&expect, d, sizeof(expect)) == 0 ? 0 : KERNEL_PACKET_ERR_HEADER;
}

/* Reads and checks everything but the checksum. */
static int slot_read(const kernel_slot_launch_args *a, slot_fixed *f)
{
    const uint8_t *slot = (const uint8_t *)(uintptr_t)a->slot_addr;
    const kernel_arg_slot_header *sh = (const kernel_arg_slot_header *)slot;
    if (atomic_load_explicit((_Atomic uint32_t *)&sh->magic, memory_order_acquire) != KERNEL_ARG_SLOT_MAGIC)
        return KERNEL_PACKET_ERR_ARG_SLOT_EMPTY;
    uint64_t bytes = sh->packet_bytes;
    if (bytes < sizeof(*f) || bytes > a->slot_bytes - sizeof(*sh))
        return KERNEL_PACKET_ERR_HEADER;
    memcpy(f, slot + sizeof(*sh), sizeof(*f));
    int rc = kernel_packet_check_parts(&f->d, &f->h, &f->p);
    if (rc == KERNEL_PACKET_ERR_SLOT && stale(f))
        return KERNEL_PACKET_ERR_ARG_SLOT_STALE;
    if (rc != 0)
        return rc == DEVICE_ERR_PACKET_INVALID ? KERNEL_PACKET_ERR_HEADER : rc;
    /* The stored packet reports through this launch's status words, and
     * its descriptor runs on the cores this launch started. */
    if (bytes != kernel_packet_args_bytes(f->p.image_bytes, f->p.staged_bytes) ||
        f->p.status_addr != a->status_words_addr)
        return KERNEL_PACKET_ERR_HEADER;
    return stored_desc_check(a, &f->d);
}

/* Restores the image and the staged bytes from the slot into the working
 * regions in the read that checksums them (kernel_packet_restore): the
 * checksum is over the words stored, so a store racing the read is
 * caught, and a refused packet leaves its spans zero. */
static int slot_restore(const kernel_slot_launch_args *a, const slot_fixed *f)
{
    const uint8_t *image = (const uint8_t *)(uintptr_t)a->slot_addr + sizeof(kernel_arg_slot_header) + sizeof(*f);
    /* slot_read bounded the lengths by the slot and the regions. A
     * context without a temp buffer has base 0 and stages nothing. */
    return kernel_packet_restore(&f->h, &f->p, image, image + kernel_packet_pad8(f->p.image_bytes),
                                 (void *)(uintptr_t)f->d.definition_base, (void *)(uintptr_t)f->d.temp_base);
}

void kernel_slot_scheduler_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const kernel_slot_launch_args *a = args;
    slot_fixed f;
    (void)block_dim;
    if (block_idx != 0)
        return;
    /* Two seals, each over fields the other does not cover: the
     * descriptor's, and the slot's, size's and status words' own. */
    int own_sealed = a->seal == kernel_slot_launch_args_seal_of(a);
    if (!device_run_desc_sealed(&a->desc)) {
        /* This launch's own status words, when their seal vouches for
         * them; otherwise nothing is trusted and the dismiss after this
         * body, with its own copy of the descriptor, ends the execution. */
        if (own_sealed)
            kernel_unsealed_refuse(a->status_words_addr);
        return;
    }
    if (!kernel_gate_held(&a->desc))
        return; /* refused at the gate: the regions belong to another execution */
    /* The sealed descriptor's status word (&status->run), not the
     * launch's status_words_addr: the same words, and trusted here
     * even when the launch's own fields failed their seal. */
    kernel_status_words *w =
        (kernel_status_words *)(uintptr_t)(a->desc.status_addr - offsetof(kernel_status_words, run));
    /* After a refused store the slot may hold an older packet: refused
     * before the slot is read (store_refused_report). */
    int rc = !own_sealed || atomic_load_explicit(&w->store_refused, memory_order_acquire) != 0
                 ? DEVICE_ERR_DESC_SEAL
                 : slot_read(a, &f);
    rc = rc ? rc : slot_restore(a, &f);
    if (rc != 0) {
        kernel_status_publish(&w->run, &w->sticky, rc);
        device_slots_quit(&a->desc); /* the executor's launch ends */
        return;
    }
    /* The deferred executor learns the packet's tasks and kernels once
     * the scheduler posts (release) its first tasks. */
    device_runtime_header *rt = device_runtime_header_at(&a->desc);
    rt->task_count = f.d.task_count;
    atomic_store_explicit(&rt->kernels_addr, (uint64_t)(uintptr_t)f.d.kernels, memory_order_release);
    f.d.gate_addr = a->desc.gate_addr;
    f.d.serial = a->desc.serial;
    /* The cores that started are the executor's, which was launched
     * before the graph was known: every one of them. */
    f.d.aic_started = a->desc.aic_started;
    f.d.aiv_started = a->desc.aiv_started;
    device_scheduler_kernel(0, 1, &f.d);
    kernel_status_publish(&w->run, &w->sticky, atomic_load_explicit(&w->run, memory_order_acquire));
}
