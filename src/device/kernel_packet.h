/*
 * kernel_packet — the kernel-mode invocation packet as the device sees
 * it, and the three small device bodies kernel mode adds around
 * the scheduler.
 *
 * The AICPU launch of a kernel-mode execution carries, by value:
 *
 *   device_run_desc                  (inline_bytes 0, status_addr = run word)
 *   SimplerKernelInvocationHeader    64 bytes
 *   kernel_graph_packet              format version, frozen regions, counts,
 *                                    checksum
 *   graph image                      image_bytes, padded to 8
 *   staged bytes                     staged_bytes: a copy of the retained
 *                                    temp buffer's first staged_bytes, with
 *                                    every HOST tensor the graph reads at
 *                                    its temp offset
 *
 * kernel_packet_scheduler_kernel validates the fixed parts before it
 * writes anything, then restores the image into the definition region
 * and the staged bytes into the temp buffer while it checksums them
 * (kernel_packet_check_restore: one read of the packet), and runs
 * device_scheduler_kernel on the restored image only when the checksum
 * agrees. Every execution, eager or replayed, restores from its own
 * immutable packet and checks it.
 *
 * The gate: executions of one context share its working regions (the
 * runtime arena, definition, scheduler state, temp buffer, heap, status
 * word), and two of them may be on the device at once (two captured
 * graphs replayed on two streams, or a replay and an eager launch).
 * Each chain starts with kernel_gate_kernel on the caller stream, which
 * takes the owner word for the execution's serial (a number the host
 * gives each launch and launch_slot call, so two executions in flight
 * never share one: replays of one graph are serialized) or fails the
 * execution with KERNEL_GATE_ERR_OVERLAP; the executor and the
 * schedulers do nothing unless their serial holds the gate, and
 * kernel_status_kernel releases it. docs/kernel-mode.md says why
 * refusing, not waiting.
 *
 * Status words (kernel_status_words, at the base of the context's gm_sm
 * region): `run` is the last execution's status, `sticky` the first
 * nonzero one of the context's life (the host reads it to poison the
 * context). kernel_status_kernel, launched on the caller stream after the
 * join, fails its own launch when `run` is nonzero, so the caller's stream
 * reports a device error.
 */
#ifndef SIMPLER_DEVICE_KERNEL_PACKET_H
#define SIMPLER_DEVICE_KERNEL_PACKET_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "device/device_kernel_table.h"
#include "device/device_run_desc.h"
#include "platform/platform_kernel_fault.h"
#include "simpler/kernel_invocation_header.h"
#include "simpler/runtime_c_api.h"

#define KERNEL_PACKET_FORMAT_VERSION 1u
/* Device errors the packet check adds to device_status.h's. */
/* header or packet format, lengths, reserved words */
#define KERNEL_PACKET_ERR_HEADER PTO_DEVICE_ERR_PACKET_HEADER
/* the checksum disagrees with the bytes */
#define KERNEL_PACKET_ERR_CHECKSUM PTO_DEVICE_ERR_PACKET_CHECKSUM
/* id, generation or counts disagree with the slot */
#define KERNEL_PACKET_ERR_SLOT PTO_DEVICE_ERR_PACKET_SLOT
/* a region differs from the frozen ones or overflows it */
#define KERNEL_PACKET_ERR_REGION PTO_DEVICE_ERR_PACKET_REGION
/* Device errors of an argument-slot launch (simpler_kernel_mode_launch_slot),
 * found when the execution runs, before it writes anything. */
/* the argument slot holds no packet (never written) */
#define KERNEL_PACKET_ERR_ARG_SLOT_EMPTY PTO_DEVICE_ERR_ARG_SLOT_EMPTY
/* the slot's packet was built for a generation of its callable that was
 * prepared again since */
#define KERNEL_PACKET_ERR_ARG_SLOT_STALE PTO_DEVICE_ERR_ARG_SLOT_STALE
/* The gate (below): another execution of the same context held its
 * working regions when this one started; this one ran nothing. */
#define KERNEL_GATE_ERR_OVERLAP PTO_DEVICE_ERR_EXECUTION_OVERLAP

_Static_assert(KERNEL_GATE_ERR_OVERLAP >= SIMPLER_DEVICE_ERROR_MIN, "packet errors are device errors");

/* The device regions a kernel context froze at init. */
typedef struct kernel_frozen_regions {
    uint64_t heap_base, heap_bytes;
    uint64_t temp_base, temp_bytes;
    uint64_t runtime_base, runtime_bytes;
    uint64_t definition_base, definition_bytes;
    uint64_t scheduler_base, scheduler_bytes;
    uint64_t trace_base, trace_bytes;
} kernel_frozen_regions;

typedef struct kernel_graph_packet {
    uint32_t format_version; /* KERNEL_PACKET_FORMAT_VERSION */
    uint32_t packet_bytes;   /* sizeof(kernel_graph_packet) */
    uint32_t task_count;     /* tasks of the image */
    uint32_t staged_count;   /* staged entries of the image */
    uint64_t image_bytes;    /* the image after this packet */
    uint64_t staged_bytes;   /* staged bytes after the (8-padded) image */
    uint64_t slot_addr;      /* the callable's kernel_slot_record */
    uint64_t status_addr;    /* the context's kernel_status_words */
    kernel_frozen_regions regions;
    uint64_t checksum;       /* kernel_packet_checksum with this field 0 */
    uint64_t head_checksum;  /* kernel_packet_head_checksum: the header and this packet alone */
} kernel_graph_packet;

_Static_assert(sizeof(kernel_graph_packet) % 8 == 0, "the image after the packet stays 8-aligned");

/* One callable slot as the device checks it: written by the
 * registration prepare enqueues on the context's AICPU stream. */
typedef struct kernel_slot_record {
    int32_t callable_id;
    int32_t tensor_count;
    int32_t scalar_count;
    uint32_t reserved;
    device_kernel_table table; /* table.generation is the slot generation */
} kernel_slot_record;

typedef struct kernel_status_words {
    _Atomic int32_t sticky; /* first nonzero execution status, 0 = none */
    _Atomic int32_t run;    /* the last execution's status */
    _Atomic uint64_t owner; /* the gate: serial of the execution holding the working regions, 0 = none */
    /* The packet checksum of the last image the scheduler accepted (0
     * none): written and read only by the scheduler holding the gate
     * (device_scheduler_run). */
    uint64_t image_passed;
    /* Raised (1) by a write_args store that refused its own arguments
     * (their seal failed) and found these words vouched for by its
     * packet's head checksum (kernel_arg_store_kernel): the slot it was
     * to write, which the refused arguments do not name reliably, may
     * still hold an older sound packet, so kernel_slot_scheduler_kernel
     * refuses every slot launch with DEVICE_ERR_DESC_SEAL while it is
     * set. Never cleared: only init writes these words (zero), and the
     * store also latched -16 as the sticky status, which poisons the
     * context. */
    _Atomic uint32_t store_refused;
    uint32_t reserved[9];
    kernel_frozen_regions frozen; /* written once at init */
} kernel_status_words;

_Static_assert(sizeof(_Atomic uint32_t) == sizeof(uint32_t) &&
                   offsetof(kernel_status_words, frozen) == 2 * sizeof(uint64_t) + 12 * sizeof(uint32_t),
               "store_refused took one reserved word; the frozen regions did not move");

/* Arguments of kernel_register_kernel: the record is copied into place. */
typedef struct kernel_register_args {
    uint64_t slot_addr;
    kernel_slot_record record;
} kernel_register_args;

/* Arguments of kernel_status_kernel. */
typedef struct kernel_status_args {
    uint64_t status_addr;
    platform_fault_fn report_fault;
    uint64_t serial; /* the execution whose status it reports and whose gate it releases */
    uint64_t seal;   /* kernel_status_args_seal_of the rest, set last on the host */
} kernel_status_args;

/* Arguments of kernel_gate_kernel. */
typedef struct kernel_gate_args {
    uint64_t status_addr; /* kernel_status_words */
    uint64_t serial;      /* this execution's token, nonzero */
    uint64_t clear_base;  /* the runtime arena */
    uint64_t clear_bytes; /* header and handshake slots of the execution's cores */
    platform_fault_fn report_fault;
    uint64_t seal;        /* kernel_gate_args_seal_of the rest, set last on the host */
} kernel_gate_args;

_Static_assert(offsetof(kernel_status_args, seal) + sizeof(uint64_t) == sizeof(kernel_status_args) &&
                   offsetof(kernel_gate_args, seal) + sizeof(uint64_t) == sizeof(kernel_gate_args) &&
                   offsetof(kernel_status_args, seal) % 8 == 0 && offsetof(kernel_gate_args, seal) % 8 == 0,
               "each seal is the last word and covers every word before it");

/* The seals of the gate's and the status check's arguments, as the
 * descriptor's (device_run_desc_seal_of): each body verifies its copy
 * before it reads a field, so a changed clear span, status address or
 * fault function is never followed. */
static inline uint64_t kernel_gate_args_seal_of(const kernel_gate_args *a)
{
    return device_seal_words(a, offsetof(kernel_gate_args, seal));
}

static inline uint64_t kernel_status_args_seal_of(const kernel_status_args *a)
{
    return device_seal_words(a, offsetof(kernel_status_args, seal));
}

/* An argument slot (simpler_kernel_mode_write_args): a frozen device
 * buffer that starts with this header, followed by packet_bytes of the
 * argument block laid out as above (descriptor, invocation header,
 * graph packet, image, staged bytes). Zeroed at init: magic 0 is an
 * empty slot. */
#define KERNEL_ARG_SLOT_MAGIC 0x534c4f54u /* "SLOT" */

typedef struct kernel_arg_slot_header {
    uint32_t magic;        /* KERNEL_ARG_SLOT_MAGIC once a packet was stored */
    uint32_t reserved;     /* zero */
    uint64_t packet_bytes; /* the argument block after this header */
} kernel_arg_slot_header;

_Static_assert(sizeof(kernel_arg_slot_header) % 8 == 0, "the packet after the slot header stays 8-aligned");

/* Arguments of kernel_arg_store_kernel (write_args), by value: the slot,
 * its size, then the slot header and header.packet_bytes of argument
 * block, copied into the slot when the store runs. */
typedef struct kernel_arg_store_args {
    uint64_t slot_addr;
    uint64_t slot_bytes;
    kernel_arg_slot_header header;
    uint64_t seal; /* kernel_arg_store_args_seal_of the fields above, set last on the host */
} kernel_arg_store_args;

_Static_assert(sizeof(kernel_arg_store_args) % 8 == 0 &&
                   offsetof(kernel_arg_store_args, seal) + sizeof(uint64_t) == sizeof(kernel_arg_store_args),
               "the seal is the fixed part's last word; the packet after it stays 8-aligned");

/* The seal of the store's fixed arguments (the slot, its size, the
 * header), as the descriptor's: the store verifies it before it reads a
 * field, so a changed slot address or size is never written through.
 * The packet after it carries its own checksums. */
static inline uint64_t kernel_arg_store_args_seal_of(const kernel_arg_store_args *a)
{
    return device_seal_words(a, offsetof(kernel_arg_store_args, seal));
}

/* Arguments of kernel_slot_scheduler_kernel (launch_slot), by value: the
 * executor's descriptor (deferred: no task count or kernel table yet),
 * the slot to read when the execution runs, and the status words. */
typedef struct kernel_slot_launch_args {
    device_run_desc desc;
    uint64_t slot_addr;
    uint64_t slot_bytes;
    uint64_t status_words_addr;
    uint64_t seal; /* kernel_slot_launch_args_seal_of the three fields above, set last on the host */
} kernel_slot_launch_args;

_Static_assert(offsetof(kernel_slot_launch_args, slot_addr) == sizeof(device_run_desc) &&
                   offsetof(kernel_slot_launch_args, seal) ==
                       offsetof(kernel_slot_launch_args, slot_addr) + 3 * sizeof(uint64_t) &&
                   offsetof(kernel_slot_launch_args, seal) + sizeof(uint64_t) == sizeof(kernel_slot_launch_args),
               "the seal is the last word and covers every word after the descriptor");

/* The seal of a slot launch's own fields (the slot, its size, the
 * status words), apart from the descriptor's own seal: either can be
 * trusted when the other fails (kernel_slot_scheduler_kernel). */
static inline uint64_t kernel_slot_launch_args_seal_of(const kernel_slot_launch_args *a)
{
    return device_seal_words(&a->slot_addr, offsetof(kernel_slot_launch_args, seal) -
                                                offsetof(kernel_slot_launch_args, slot_addr));
}

/* An execution's status: `run`, and `sticky` if it is the first error. */
static inline void kernel_status_publish(_Atomic int32_t *run, _Atomic int32_t *sticky, int32_t status)
{
    int32_t none = 0;
    atomic_store_explicit(run, status, memory_order_release);
    if (status != 0)
        (void)atomic_compare_exchange_strong(sticky, &none, status);
}

static inline uint64_t kernel_packet_pad8(uint64_t n)
{
    return (n + 7u) & ~(uint64_t)7u;
}

/* Bytes after the invocation header: packet, padded image, staged bytes. */
static inline uint64_t kernel_packet_payload_bytes(uint64_t image_bytes, uint64_t staged_bytes)
{
    return sizeof(kernel_graph_packet) + kernel_packet_pad8(image_bytes) + staged_bytes;
}

/* The whole AICPU argument block. */
static inline uint64_t kernel_packet_args_bytes(uint64_t image_bytes, uint64_t staged_bytes)
{
    return sizeof(device_run_desc) + sizeof(SimplerKernelInvocationHeader) +
           kernel_packet_payload_bytes(image_bytes, staged_bytes);
}

/* The parts of the argument block at `args` (layout above). */
static inline const SimplerKernelInvocationHeader *kernel_packet_header_of(const void *args)
{
    return (const SimplerKernelInvocationHeader *)((const device_run_desc *)args + 1);
}

static inline const kernel_graph_packet *kernel_packet_of(const void *args)
{
    return (const kernel_graph_packet *)(kernel_packet_header_of(args) + 1);
}

static inline const uint8_t *kernel_packet_image_of(const void *args)
{
    return (const uint8_t *)(kernel_packet_of(args) + 1);
}

/* A 64-bit checksum over the header and the packet alone (both checksum
 * fields taken as 0): fixed-size bytes, so the check verifies it before
 * it trusts any length. The device body gets a pointer, not the size of
 * the block it was handed, so lengths a corruption changed consistently
 * would otherwise make the full checksum read past the block. Pure. */
uint64_t kernel_packet_head_checksum(const SimplerKernelInvocationHeader *h, const kernel_graph_packet *p);

/* A 64-bit checksum over the header, the packet (its checksum field taken
 * as 0, head_checksum included), the image and the staged bytes. Pure. */
uint64_t kernel_packet_checksum(const SimplerKernelInvocationHeader *h, const kernel_graph_packet *p,
                                const void *image, const void *staged);

/* kernel_packet_checksum of the same bytes, storing the image at
 * image_dst and the staged bytes at staged_dst as it reads them (NULL:
 * not stored): one read of the packet checks and restores it. A whole
 * 64-byte block the destination already holds is compared and left
 * unwritten; either way the destination ends up holding the words
 * mixed. */
uint64_t kernel_packet_checksum_copy(const SimplerKernelInvocationHeader *h, const kernel_graph_packet *p,
                                     const void *image, const void *staged, void *image_dst, void *staged_dst);

/* The checks of kernel_packet_check_restore but the checksum, on the
 * three fixed parts (which an argument-slot launch copies out of its
 * slot first), reading and writing nothing else. Returns 0 or a device
 * error: KERNEL_PACKET_ERR_* or DEVICE_ERR_PACKET_INVALID (the
 * descriptor itself). Neither checksum covers the descriptor: its
 * regions and trace buffer must be the frozen ones (REGION), its task
 * count, image bytes, generation, kernel table and status word the
 * packet's (REGION, SLOT), and it may carry no fault function (HEADER:
 * an address read out of a packet is never called). The packet's two addresses are read through only
 * once they agree with the descriptor (slot_addr with its kernels,
 * status_addr with its status word), so a corrupted one is refused
 * without being followed: zero or misaligned HEADER, a slot record the
 * descriptor does not name SLOT, status words it does not name REGION. */
int kernel_packet_check_parts(const device_run_desc *d, const SimplerKernelInvocationHeader *h,
                              const kernel_graph_packet *p);

/* The full check and the restore in one read, once the fixed parts `h`
 * and `p` passed kernel_packet_check_parts (so the lengths fit the
 * regions): copies p->image_bytes at `image` to `definition` and
 * p->staged_bytes at `staged` to `temp` (not touched when there are
 * none) while kernel_packet_checksum_copy mixes the very words it
 * stores, so the checksum verifies what was restored even if the source
 * changes meanwhile. Returns 0, or KERNEL_PACKET_ERR_CHECKSUM with both
 * spans left zero, never the refused bytes. Writes nothing past them. */
int kernel_packet_restore(const SimplerKernelInvocationHeader *h, const kernel_graph_packet *p, const void *image,
                          const void *staged, void *definition, void *temp);

/* Checks the argument block at `args` (layout above) and restores it in
 * the same read: once the fixed parts passed (kernel_packet_check_parts,
 * so the lengths fit the regions the descriptor names), the image and
 * the staged bytes are copied into the definition region and the temp
 * buffer while the full checksum reads them. Returns 0 (the two spans
 * hold the packet's bytes) or a device error as
 * kernel_packet_check_parts, or KERNEL_PACKET_ERR_CHECKSUM
 * (kernel_packet_restore). On a full-checksum refusal the image's and the staged bytes' spans of
 * those two working regions (this execution's: it holds the gate) are
 * left zero, never the refused bytes, and the caller runs no task; any
 * other refusal writes nothing. Nothing past the two spans is written. */
int kernel_packet_check_restore(const void *args);
/* kernel_packet_check_restore; on 0, *sum is the full checksum of the
 * bytes the spans now hold, as computed while restoring them (not read
 * back from the packet). */
int kernel_packet_check_restore_sum(const void *args, uint64_t *sum);

/* The bodies, in kernel_mode_kernels.c. AICPU body, block_dim 1: check,
 * restore, schedule (see above). */
void kernel_packet_scheduler_kernel(uint32_t block_idx, uint32_t block_dim, const void *args);
/* AICPU body on the caller stream, the chain's first operation: takes
 * the context's gate (owner 0 -> serial) and clears the runtime arena,
 * or, when another execution holds it, records KERNEL_GATE_ERR_OVERLAP
 * as the sticky error (if first) and fails its launch, writing nothing
 * else. */
void kernel_gate_kernel(uint32_t block_idx, uint32_t block_dim, const void *args);
/* AICPU body on the caller stream, after the join and the HOST
 * copy-backs: when its execution holds the gate, reads `run`, releases
 * the gate, and fails its launch when `run` != 0; fails its launch when
 * its execution does not hold the gate. */
void kernel_status_kernel(uint32_t block_idx, uint32_t block_dim, const void *args);
/* Whether the execution `d` describes holds its context's gate (always
 * true for an ungated descriptor, as program mode's). Read by every
 * device body of a gated execution before it touches a working region. */
static inline int kernel_gate_held(const device_run_desc *d)
{
    if (d->gate_addr == 0)
        return 1;
    return atomic_load_explicit((_Atomic uint64_t *)(uintptr_t)d->gate_addr, memory_order_acquire) == d->serial;
}
/* AICore body of a kernel-mode chain (device_gate.executor): runs
 * device_executor_kernel on the descriptor when its seal holds
 * (device_run_desc_sealed); otherwise raises the refusal flag and rings
 * the doorbell in the frozen runtime arena of the status words its
 * status word and gate word both name (or, when those two disagree, at
 * its own runtime_base), reading no other field, so the scheduler ends
 * the execution with DEVICE_ERR_DESC_SEAL instead of waiting for this
 * core. */
void kernel_executor_kernel(uint32_t block, uint32_t block_dim, const void *args);
/* AICPU body after the scheduler on the AICPU stream (device_gate.dismiss),
 * with its own copy of the executor's descriptor: when the copy's seal
 * holds, its execution holds the gate and the scheduler returned
 * without telling the cores to quit (its copy failed the seal and it
 * found no status words it could trust), publishes
 * DEVICE_ERR_DESC_SEAL as the run and (if first) sticky status and tells
 * the execution's cores to quit, so the chain ends instead of waiting
 * for them. Otherwise writes nothing. */
void kernel_dismiss_kernel(uint32_t block_idx, uint32_t block_dim, const void *args);
/* A scheduler whose descriptor failed its seal ends the execution
 * through status words it still trusts (the packet's, vouched for by the
 * head checksum, or an argument-slot launch's own, under their seal): DEVICE_ERR_DESC_SEAL
 * as the run and (if first) sticky status, the refusal flag raised in
 * the frozen runtime arena and every core slot there told to quit.
 * Whether the execution holds the gate is unknown, so a concurrent
 * execution of the context ends too (fails, never hangs). */
void kernel_unsealed_refuse(uint64_t status_words_addr);
/* AICPU body: copies a kernel_register_args record into its slot. */
void kernel_register_kernel(uint32_t block_idx, uint32_t block_dim, const void *args);
/* The status words the argument block at `args` (layout above) names,
 * when its packet's head checksum vouches for its status_addr and the
 * frozen regions written there at init are the packet's; NULL when
 * nothing can be trusted. Reads the header, the packet and those
 * regions only. */
kernel_status_words *kernel_packet_vouched_status_words(const void *args);
/* AICPU body on the caller stream: stores a kernel_arg_store_args
 * packet into its argument slot (the header last), once the arguments'
 * seal holds. A copy that fails it stores nothing anywhere (the slot
 * keeps what it held); when its packet vouches for the context's status
 * words (kernel_packet_vouched_status_words), it raises store_refused
 * there and publishes DEVICE_ERR_DESC_SEAL as the run and (if first)
 * sticky status, so no later slot launch runs what the slot kept.
 * Otherwise (the packet head changed too) it reports nothing. */
void kernel_arg_store_kernel(uint32_t block_idx, uint32_t block_dim, const void *args);
/* AICPU body, block_dim 1, of an argument-slot launch: verifies the
 * descriptor's seal and the launch's own (kernel_slot_launch_args_seal_of;
 * either failing: DEVICE_ERR_DESC_SEAL through the status words the
 * other vouches for, or, both failing, nothing written, left to the
 * dismiss), refuses with DEVICE_ERR_DESC_SEAL while a refused store
 * raised store_refused (the slot may hold an older packet), then reads the slot
 * when the execution runs, copies its fixed parts out and checks them as
 * kernel_packet_check_restore does (an empty slot or a stale generation
 * with their own errors) and compares the stored descriptor whole with
 * the one its own launch arguments and the checked packet determine
 * (KERNEL_PACKET_ERR_HEADER otherwise: the checksums do not cover it),
 * then restores the image and staged bytes in
 * the read that checksums them (kernel_packet_restore: the checksum is
 * over what was restored, so a store racing the read is caught, and a
 * refused image leaves its spans zero), publishes the task count and
 * kernel table for the deferred executor and runs the scheduler. Any
 * refusal comes before a task runs. */
void kernel_slot_scheduler_kernel(uint32_t block_idx, uint32_t block_dim, const void *args);

#endif
