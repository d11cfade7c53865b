/* libFuzzer target for the kernel-mode invocation packet check
 * (src/device/kernel_packet_check.c): kernel_packet_check_restore, the
 * device's first look at a launch's argument block (descriptor,
 * invocation header, graph packet, image and staged bytes), which
 * checks it and restores it into the working regions in one read.
 *
 * Each input builds a valid block the way the launch lays it out (task
 * count, image and staged sizes, counts and generation from the first
 * bytes), in an allocation of exactly its size, beside the device
 * memory it names (the context's status words with the frozen regions,
 * the callable's slot record, and a definition region and a temp buffer
 * of exactly their frozen sizes, which the restore writes); the check
 * must accept it and restore it. The rest of the input is a list of
 * (offset, byte) writes inside the block, and a flag that recomputes
 * both checksums afterwards, when the lengths still fit the block (so
 * corruptions the checksums would catch also reach the checks after
 * them, and the accepted path). The check must then refuse with one of
 * its codes or accept, without reading outside the block or the device
 * memory (ASan watches every byte past each); an accepted block must
 * agree with the slot and the frozen regions.
 *
 * The restore's contract, on the two working regions (filled with a
 * nonzero byte before the call): accepted, the image's span of the
 * definition region and the staged bytes' span of the temp buffer hold
 * the packet's bytes; refused by the full checksum (the head checksum
 * agrees, so it was the full one), both spans read zero; any other
 * refusal writes nothing; and never a byte past the two spans.
 *
 * The two device addresses the check follows (the packet's slot_addr
 * and status_addr) are open to the writes too, and flags can point them,
 * and the descriptor's kernels and status_addr, at a decoy slot record
 * or status words (a copy, maybe with one byte changed), at an 8-aligned
 * place inside the block itself, or at a wild address. The check must
 * refuse an address that disagrees with the descriptor without reading
 * where it points (a wild one would fault), and may follow only one that
 * agrees. A wild address the descriptor agrees with is the one thing
 * left out, and so is a definition region or temp buffer other than the
 * fuzzer's that the descriptor and the frozen regions the check follows
 * agree on: the device runs the kernel table and writes the regions the
 * descriptor names, and nothing in the block can tell a consistent pair
 * from the real one, so such an input is not checked. An accepted block
 * must agree with the slot record and status words it followed. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_reader.h"
#include "device/device_status.h"
#include "device/kernel_packet.h"
#include "graph/requirements.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FROZEN_BASE 0x100000000ull
#define FILL 0xa5 /* the working regions' bytes before the check: never a byte it restores as zero */

/* The definition region and the temp buffer the restore writes. */
typedef struct scratch {
    uint8_t *definition, *temp;
    uint64_t definition_bytes, temp_bytes;
} scratch;

/* The descriptor names exactly the fuzzer's two working regions (or
 * smaller spans at their bases), so a restore through it writes only
 * there. */
static int writable(const device_run_desc *d, const scratch *s)
{
    return d->definition_base == (uint64_t)(uintptr_t)s->definition && d->definition_bytes <= s->definition_bytes &&
           d->temp_base == (uint64_t)(uintptr_t)s->temp && d->temp_bytes <= s->temp_bytes;
}

/* The check could restore through the descriptor: its status word and
 * the packet's status words agree (the check reads their frozen regions
 * then), and so do the definition region and temp buffer it names. */
static int could_restore(const device_run_desc *d, const kernel_graph_packet *p)
{
    if (d->status_addr != p->status_addr + offsetof(kernel_status_words, run))
        return 0;
    const kernel_frozen_regions *f = &((const kernel_status_words *)(uintptr_t)p->status_addr)->frozen;
    return d->definition_base == f->definition_base && d->definition_bytes == f->definition_bytes &&
           d->temp_base == f->temp_base && d->temp_bytes == f->temp_bytes;
}

/* `bytes` at `at` hold `want` (NULL: read zero), and the rest of the
 * region of `region_bytes` still holds FILL. */
static int span_then_fill(const uint8_t *at, uint64_t region_bytes, const uint8_t *want, uint64_t bytes)
{
    for (uint64_t i = 0; i < region_bytes; i++) {
        uint8_t expect = i >= bytes ? FILL : want != NULL ? want[i] : 0;
        if (at[i] != expect)
            return 0;
    }
    return 1;
}

/* Where a flag points an address: a decoy object, 8-aligned inside the
 * block (when the object fits there), or wild. */
static uint64_t redirect(reader *r, const void *decoy, const uint8_t *block, size_t block_bytes, size_t object_bytes)
{
    uint8_t how = take(r);
    uint32_t at = take16(r);
    if (how % 3u == 0 || block_bytes < object_bytes)
        return (uint64_t)(uintptr_t)decoy;
    if (how % 3u == 1)
        return (uint64_t)(uintptr_t)(block + (at % (block_bytes - object_bytes + 1)) / 8u * 8u);
    return (uint64_t)take32(r) << 16 | at; /* nothing this process maps: below 2^48, no allocation there */
}

/* `addr` names memory the check may read as an object of `bytes`. */
static int readable(uint64_t addr, const void *real, const void *decoy, const uint8_t *block, size_t block_bytes,
                    size_t bytes)
{
    uint64_t b = (uint64_t)(uintptr_t)block;
    return addr == (uint64_t)(uintptr_t)real || addr == (uint64_t)(uintptr_t)decoy ||
           (addr >= b && addr % 8u == 0 && addr - b <= block_bytes && block_bytes - (addr - b) >= bytes);
}

/* The frozen regions: the two the restore writes are the scratch
 * allocations; the others are never touched by the check, so a number
 * stands for each. */
static void frozen_fill(kernel_frozen_regions *f, uint32_t tasks, const scratch *s)
{
    memset(f, 0, sizeof(*f));
    f->heap_base = FROZEN_BASE;
    f->heap_bytes = 1 << 16;
    f->temp_base = (uint64_t)(uintptr_t)s->temp;
    f->temp_bytes = s->temp_bytes;
    f->runtime_base = FROZEN_BASE + 0x200000;
    f->runtime_bytes = graph_runtime_arena_bytes(tasks) + 4096;
    f->definition_base = (uint64_t)(uintptr_t)s->definition;
    f->definition_bytes = s->definition_bytes;
    f->scheduler_base = FROZEN_BASE + 0x500000;
    f->scheduler_bytes = 4096;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    uint32_t tasks = 1 + take(&r) % 64u;
    uint64_t image_bytes = 1 + take(&r) * 4u + take(&r) % 8u;
    uint64_t staged_bytes = take(&r) & 1u ? 0 : 8u * take(&r);
    uint32_t staged_count = staged_bytes ? 1 + take(&r) % 4u : 0;
    int32_t id = take(&r) % 8u;
    uint64_t generation = 1 + take(&r);

    kernel_status_words *w = calloc(1, sizeof(*w));
    kernel_slot_record *slot = calloc(1, sizeof(*slot));
    size_t block_bytes = (size_t)kernel_packet_args_bytes(image_bytes, staged_bytes);
    uint8_t *block = calloc(1, block_bytes);
    scratch sc;
    sc.definition_bytes = image_bytes + 8u * take(&r);
    sc.temp_bytes = staged_bytes + 8u * take(&r);
    /* Exactly their sizes (one byte for an empty temp buffer, never
     * written): ASan reports a write past either. */
    sc.definition = malloc((size_t)sc.definition_bytes);
    sc.temp = malloc(sc.temp_bytes != 0 ? (size_t)sc.temp_bytes : 1u);
    if (w == NULL || slot == NULL || block == NULL || sc.definition == NULL || sc.temp == NULL)
        abort();
    frozen_fill(&w->frozen, tasks, &sc);
    slot->callable_id = id;
    slot->tensor_count = take(&r) % 8u;
    slot->scalar_count = take(&r) % 4u;
    slot->table.generation = generation;

    device_run_desc *d = (device_run_desc *)(void *)block;
    SimplerKernelInvocationHeader *h = (SimplerKernelInvocationHeader *)(d + 1);
    kernel_graph_packet *p = (kernel_graph_packet *)(h + 1);
    uint8_t *image = (uint8_t *)(p + 1);
    uint8_t *staged = image + kernel_packet_pad8(image_bytes);
    const kernel_frozen_regions *f = &w->frozen;
    d->version = DEVICE_RUN_DESC_VERSION;
    d->desc_bytes = sizeof(*d);
    d->aic_count = 1;
    d->aiv_count = 2;
    d->task_count = tasks;
    d->image_bytes = image_bytes;
    d->generation = generation;
    d->heap_base = f->heap_base, d->heap_bytes = f->heap_bytes;
    d->temp_base = f->temp_base, d->temp_bytes = f->temp_bytes;
    d->runtime_base = f->runtime_base, d->runtime_bytes = f->runtime_bytes;
    d->definition_base = f->definition_base, d->definition_bytes = f->definition_bytes;
    d->scheduler_base = f->scheduler_base, d->scheduler_bytes = f->scheduler_bytes;
    d->status_addr = (uint64_t)(uintptr_t)&w->run;
    d->kernels = &slot->table;
    d->gate_addr = (uint64_t)(uintptr_t)&w->owner;
    d->serial = 1;
    h->abi_version = SIMPLER_KERNEL_INVOCATION_ABI_VERSION;
    h->header_size = sizeof(*h);
    h->mode = SIMPLER_MODE_KERNEL;
    h->callable_id = id;
    h->generation = generation;
    h->tensor_count = slot->tensor_count;
    h->scalar_count = slot->scalar_count;
    h->host_copy_tensor_count = (int32_t)staged_count;
    h->payload_bytes = kernel_packet_payload_bytes(image_bytes, staged_bytes);
    p->format_version = KERNEL_PACKET_FORMAT_VERSION;
    p->packet_bytes = sizeof(*p);
    p->task_count = tasks;
    p->staged_count = staged_count;
    p->image_bytes = image_bytes;
    p->staged_bytes = staged_bytes;
    p->slot_addr = (uint64_t)(uintptr_t)slot;
    p->status_addr = (uint64_t)(uintptr_t)w;
    p->regions = *f;
    for (uint64_t i = 0; i < image_bytes; i++)
        image[i] = (uint8_t)(i * 7u);
    for (uint64_t i = 0; i < staged_bytes; i++)
        staged[i] = (uint8_t)(i * 13u);
    p->head_checksum = kernel_packet_head_checksum(h, p);
    p->checksum = kernel_packet_checksum(h, p, image, staged);
    memset(sc.definition, FILL, (size_t)sc.definition_bytes);
    memset(sc.temp, FILL, (size_t)sc.temp_bytes);
    if (kernel_packet_check_restore(block) != 0 ||
        !span_then_fill(sc.definition, sc.definition_bytes, image, image_bytes) ||
        !span_then_fill(sc.temp, sc.temp_bytes, staged, staged_bytes))
        abort(); /* the block as the launch builds it is accepted and restored */

    /* Decoys: copies of the slot record and the status words, maybe
     * with one byte changed. */
    kernel_status_words *decoy_w = malloc(sizeof(*decoy_w));
    kernel_slot_record *decoy_slot = malloc(sizeof(*decoy_slot));
    if (decoy_w == NULL || decoy_slot == NULL)
        abort();
    *decoy_w = *w;
    *decoy_slot = *slot;
    uint8_t flags = take(&r);
    if (flags & 0x20u)
        ((uint8_t *)decoy_slot)[take16(&r) % sizeof(*decoy_slot)] ^= (uint8_t)(1u + take(&r) % 255u);
    if (flags & 0x40u)
        ((uint8_t *)decoy_w)[take16(&r) % sizeof(*decoy_w)] ^= (uint8_t)(1u + take(&r) % 255u);
    /* The packet's addresses, and the descriptor's agreeing ones. */
    if (flags & 0x02u)
        p->slot_addr = redirect(&r, decoy_slot, block, block_bytes, sizeof(*slot));
    if (flags & 0x04u)
        d->kernels = (const device_kernel_table *)(uintptr_t)(p->slot_addr + offsetof(kernel_slot_record, table));
    if (flags & 0x08u)
        p->status_addr = redirect(&r, decoy_w, block, block_bytes, sizeof(*w));
    if (flags & 0x10u)
        d->status_addr = p->status_addr + offsetof(kernel_status_words, run);

    /* Writes anywhere inside the block, then maybe a fresh checksum. */
    uint32_t writes = 0;
    while (r.n >= 3 && writes++ < 16) {
        size_t off = ((size_t)take(&r) << 8 | take(&r)) % block_bytes;
        block[off] = take(&r);
    }
    /* An address the descriptor agrees with is followed: skip a wild one. */
    if ((!readable(p->slot_addr, slot, decoy_slot, block, block_bytes, sizeof(*slot)) &&
         (uint64_t)(uintptr_t)d->kernels == p->slot_addr + offsetof(kernel_slot_record, table)) ||
        (!readable(p->status_addr, w, decoy_w, block, block_bytes, sizeof(*w)) &&
         d->status_addr == p->status_addr + offsetof(kernel_status_words, run)))
        goto out;
    /* Likewise a restore through regions other than the fuzzer's. */
    if (!writable(d, &sc) && could_restore(d, p))
        goto out;
    if ((flags & 1u) && p->image_bytes <= block_bytes && p->staged_bytes <= block_bytes &&
        kernel_packet_args_bytes(p->image_bytes, p->staged_bytes) <= block_bytes) {
        p->head_checksum = kernel_packet_head_checksum(h, p);
        p->checksum = kernel_packet_checksum(h, p, image, image + kernel_packet_pad8(p->image_bytes));
    }
    memset(sc.definition, FILL, (size_t)sc.definition_bytes);
    memset(sc.temp, FILL, (size_t)sc.temp_bytes);
    int rc = kernel_packet_check_restore(block);
    if (rc != 0 && rc != DEVICE_ERR_PACKET_INVALID && rc != KERNEL_PACKET_ERR_HEADER &&
        rc != KERNEL_PACKET_ERR_CHECKSUM && rc != KERNEL_PACKET_ERR_SLOT && rc != KERNEL_PACKET_ERR_REGION)
        abort();
    /* What the restore left in the working regions: the packet's bytes
     * when accepted, zeros over the same spans when the full checksum
     * refused (the head checksum agrees: every other check came first
     * and passed), nothing on any other refusal. The block is unchanged
     * by the call, so its lengths are the ones the check read. */
    const uint8_t *now_staged = image + kernel_packet_pad8(p->image_bytes);
    int full_refusal = rc == KERNEL_PACKET_ERR_CHECKSUM && kernel_packet_head_checksum(h, p) == p->head_checksum;
    if (rc == 0 || full_refusal) {
        if (!span_then_fill(sc.definition, sc.definition_bytes, rc == 0 ? image : NULL, p->image_bytes) ||
            !span_then_fill(sc.temp, sc.temp_bytes, rc == 0 ? now_staged : NULL, p->staged_bytes))
            abort();
    } else if (!span_then_fill(sc.definition, sc.definition_bytes, NULL, 0) ||
               !span_then_fill(sc.temp, sc.temp_bytes, NULL, 0)) {
        abort(); /* a refusal before the restore wrote a working region */
    }
    if (rc == 0) {
        /* What the device then relies on, in what the check followed. */
        const kernel_slot_record *fs = (const kernel_slot_record *)(uintptr_t)p->slot_addr;
        const kernel_status_words *fw = (const kernel_status_words *)(uintptr_t)p->status_addr;
        const kernel_frozen_regions *ff = &fw->frozen;
        if (!readable(p->slot_addr, slot, decoy_slot, block, block_bytes, sizeof(*slot)) ||
            !readable(p->status_addr, w, decoy_w, block, block_bytes, sizeof(*w)))
            abort(); /* accepted through an address it had to refuse */
        if (p->image_bytes != d->image_bytes || p->image_bytes > ff->definition_bytes ||
            p->staged_bytes > ff->temp_bytes || memcmp(&p->regions, ff, sizeof(*ff)) != 0 ||
            d->status_addr != (uint64_t)(uintptr_t)&fw->run || h->callable_id != fs->callable_id ||
            h->tensor_count != fs->tensor_count || h->scalar_count != fs->scalar_count ||
            h->generation != fs->table.generation || d->kernels != &fs->table || p->task_count != d->task_count ||
            d->definition_base != ff->definition_base || d->temp_base != ff->temp_base)
            abort();
    }
out:
    free(sc.definition);
    free(sc.temp);
    free(decoy_slot);
    free(decoy_w);
    free(block);
    free(slot);
    free(w);
    return 0;
}
