/* The kernel-mode packet check and its checksum (kernel_packet.h); the
 * device bodies that run it are in kernel_mode_kernels.c. */
#include "device/kernel_packet.h"

#include <stddef.h>
#include <string.h>

#include "device/device_handshake.h"
#include "device/device_status.h"
#include "device/device_validate.h"

#define MIX_PRIME 0x100000001b3ull

/* One eight-byte word into a lane: both steps are bijections of the
 * lane, so a changed word always changes it. */
static inline uint64_t mix_word(uint64_t h, uint64_t w)
{
    h = (h ^ w) * MIX_PRIME;
    return h ^ (h >> 29);
}

/* Two 64-bit lanes in one vector register (a GCC and Clang extension:
 * SSE2 on x86-64, plain scalar code where a target has no vectors). */
typedef uint64_t lane_pair __attribute__((vector_size(16)));

#define BLOCK_BYTES 64u

/* `blocks` 64-byte blocks at `b` into eight lanes, each a pair of
 * words: s += word, then t = g(t + s) with g(x) = x ^ (x >> 29), a
 * bijection. A changed word changes its lane's s for good; t carries
 * the order (a word counts once per word after it in the lane) and,
 * since its step is a bijection of t for the same input, a difference
 * in t never vanishes unless a later word is changed to cancel it
 * exactly, so changes that cancel in s (one top bit flipped in two
 * words of a lane, two words of a lane swapped) still show. Adds,
 * shifts and xors on two lanes at a time, and no multiply chain: a
 * large image is read at close to copy speed (the multiply per word
 * before made the checksum cost about four copies of the image). The
 * lanes are then folded in order by mix_word. */
static inline __attribute__((always_inline)) uint64_t mix_blocks_into(uint64_t h, const uint8_t *b, uint64_t blocks,
                                                                     uint8_t *dst)
{
    lane_pair s0 = {h, h ^ 1u}, s1 = {h ^ 2u, h ^ 3u}, s2 = {h ^ 4u, h ^ 5u}, s3 = {h ^ 6u, ~h};
    lane_pair t0 = {0, 0}, t1 = t0, t2 = t0, t3 = t0;
    for (; blocks > 0; blocks--, b += BLOCK_BYTES) {
        lane_pair w0, w1, w2, w3;
        memcpy(&w0, b, sizeof(w0));
        memcpy(&w1, b + 16, sizeof(w1));
        memcpy(&w2, b + 32, sizeof(w2));
        memcpy(&w3, b + 48, sizeof(w3));
        if (dst != NULL) {
            /* The words mixed are the words stored: one read of the
             * source serves both. A block the destination already holds
             * is not stored: a replay restores the bytes the last one
             * left, and the cores that read them last execution still
             * hold those lines; a store would take every line back from
             * their caches. */
            lane_pair o0, o1, o2, o3;
            memcpy(&o0, dst, sizeof(o0));
            memcpy(&o1, dst + 16, sizeof(o1));
            memcpy(&o2, dst + 32, sizeof(o2));
            memcpy(&o3, dst + 48, sizeof(o3));
            lane_pair diff = (o0 ^ w0) | (o1 ^ w1) | (o2 ^ w2) | (o3 ^ w3);
            if ((diff[0] | diff[1]) != 0) {
                memcpy(dst, &w0, sizeof(w0));
                memcpy(dst + 16, &w1, sizeof(w1));
                memcpy(dst + 32, &w2, sizeof(w2));
                memcpy(dst + 48, &w3, sizeof(w3));
            }
            dst += BLOCK_BYTES;
        }
        s0 += w0;
        s1 += w1;
        s2 += w2;
        s3 += w3;
        t0 += s0;
        t1 += s1;
        t2 += s2;
        t3 += s3;
        t0 ^= t0 >> 29;
        t1 ^= t1 >> 29;
        t2 ^= t2 >> 29;
        t3 ^= t3 >> 29;
    }
    const lane_pair lanes[8] = {s0, s1, s2, s3, t0, t1, t2, t3};
    for (int i = 0; i < 8; i++)
        h = mix_word(mix_word(h, lanes[i][0]), lanes[i][1]);
    return h;
}

/* Mixes `bytes` at `p` into `h` and, when `dst` is not NULL, stores
 * the same bytes at `dst` as it reads them: whole 64-byte blocks
 * (mix_blocks_into), then the remaining words one by one, then the
 * tail. */
static inline __attribute__((always_inline)) uint64_t mix_into(uint64_t h, const void *p, uint64_t bytes, void *dst)
{
    const uint8_t *b = p;
    uint8_t *d = dst;
    uint64_t w;
    if (bytes >= BLOCK_BYTES) {
        uint64_t whole = bytes / BLOCK_BYTES * BLOCK_BYTES;
        h = mix_blocks_into(h, b, bytes / BLOCK_BYTES, d);
        b += whole;
        d = d != NULL ? d + whole : NULL;
        bytes %= BLOCK_BYTES;
    }
    for (; bytes >= 8; bytes -= 8, b += 8) {
        memcpy(&w, b, 8);
        if (d != NULL) {
            memcpy(d, &w, 8);
            d += 8;
        }
        h = mix_word(h, w);
    }
    w = 0;
    memcpy(&w, b, (size_t)bytes);
    if (d != NULL)
        memcpy(d, &w, (size_t)bytes);
    h = (h ^ w ^ (bytes << 56)) * MIX_PRIME;
    return h ^ (h >> 31);
}

static uint64_t mix(uint64_t h, const void *p, uint64_t bytes)
{
    return mix_into(h, p, bytes, NULL);
}

static uint64_t mix_copy(uint64_t h, const void *p, uint64_t bytes, void *dst)
{
    return mix_into(h, p, bytes, dst);
}

/* The checksum's fixed part: the header and the packet, its checksum
 * field taken as 0. */
static uint64_t checksum_fixed(const SimplerKernelInvocationHeader *h, const kernel_graph_packet *p)
{
    kernel_graph_packet copy = *p;
    copy.checksum = 0;
    return mix(mix(0xcbf29ce484222325ull, h, sizeof(*h)), &copy, sizeof(copy));
}

uint64_t kernel_packet_checksum(const SimplerKernelInvocationHeader *h, const kernel_graph_packet *p,
                                const void *image, const void *staged)
{
    uint64_t sum = mix(checksum_fixed(h, p), image, p->image_bytes);
    return mix(sum, staged, p->staged_bytes);
}

uint64_t kernel_packet_checksum_copy(const SimplerKernelInvocationHeader *h, const kernel_graph_packet *p,
                                     const void *image, const void *staged, void *image_dst, void *staged_dst)
{
    uint64_t sum = mix_copy(checksum_fixed(h, p), image, p->image_bytes, image_dst);
    return mix_copy(sum, staged, p->staged_bytes, staged_dst);
}

uint64_t kernel_packet_head_checksum(const SimplerKernelInvocationHeader *h, const kernel_graph_packet *p)
{
    kernel_graph_packet copy = *p;
    copy.checksum = 0;
    copy.head_checksum = 0;
    return mix(mix(0x84222325cbf29ce4ull, h, sizeof(*h)), &copy, sizeof(copy));
}

static int header_check(const SimplerKernelInvocationHeader *h, const kernel_graph_packet *p)
{
    if (h->abi_version != SIMPLER_KERNEL_INVOCATION_ABI_VERSION || h->header_size != sizeof(*h) ||
        h->mode != SIMPLER_MODE_KERNEL || h->reserved0 != 0 || h->reserved[0] != 0 || h->reserved[1] != 0)
        return KERNEL_PACKET_ERR_HEADER;
    if (p->format_version != KERNEL_PACKET_FORMAT_VERSION || p->packet_bytes != sizeof(*p))
        return KERNEL_PACKET_ERR_HEADER;
    if (p->image_bytes > UINT32_MAX || p->staged_bytes > UINT32_MAX ||
        h->payload_bytes != kernel_packet_payload_bytes(p->image_bytes, p->staged_bytes) ||
        h->host_copy_tensor_count < 0 || (uint32_t)h->host_copy_tensor_count != p->staged_count)
        return KERNEL_PACKET_ERR_HEADER;
    if (p->slot_addr == 0 || p->status_addr == 0 || p->slot_addr % _Alignof(kernel_slot_record) != 0 ||
        p->status_addr % _Alignof(kernel_status_words) != 0)
        return KERNEL_PACKET_ERR_HEADER;
    return 0;
}

static int slot_check(const device_run_desc *d, const SimplerKernelInvocationHeader *h,
                      const kernel_graph_packet *p)
{
    /* The descriptor's kernel table is the one inside the slot record the
     * packet names: compared before the packet's address is followed, so
     * a corrupted address is refused, not read. */
    if ((uint64_t)(uintptr_t)d->kernels != p->slot_addr + offsetof(kernel_slot_record, table))
        return KERNEL_PACKET_ERR_SLOT;
    const kernel_slot_record *slot = (const kernel_slot_record *)(uintptr_t)p->slot_addr;
    if (slot->callable_id != h->callable_id || slot->tensor_count != h->tensor_count ||
        slot->scalar_count != h->scalar_count)
        return KERNEL_PACKET_ERR_SLOT;
    if (slot->table.generation != h->generation || d->generation != h->generation)
        return KERNEL_PACKET_ERR_SLOT;
    return 0;
}

/* The descriptor and the packet name exactly the frozen regions, and what
 * the packet carries fits them. */
static int region_check(const device_run_desc *d, const kernel_graph_packet *p)
{
    /* Likewise the descriptor's status word and the status words the
     * packet names, before the packet's address is followed. */
    if (d->status_addr != p->status_addr + offsetof(kernel_status_words, run))
        return KERNEL_PACKET_ERR_REGION;
    const kernel_status_words *w = (const kernel_status_words *)(uintptr_t)p->status_addr;
    const kernel_frozen_regions *f = &w->frozen;
    if (memcmp(&p->regions, f, sizeof(*f)) != 0)
        return KERNEL_PACKET_ERR_REGION;
    if (d->heap_base != f->heap_base || d->heap_bytes != f->heap_bytes || d->temp_base != f->temp_base ||
        d->temp_bytes != f->temp_bytes || d->runtime_base != f->runtime_base ||
        d->runtime_bytes != f->runtime_bytes || d->definition_base != f->definition_base ||
        d->definition_bytes != f->definition_bytes || d->scheduler_base != f->scheduler_base ||
        d->scheduler_bytes != f->scheduler_bytes)
        return KERNEL_PACKET_ERR_REGION;
    /* The trace buffer too, absent or not: a descriptor without the
     * context's trace would skip the scheduler's reset of it while the
     * executor, whose descriptor names it, appends this execution's
     * records to the last one's. */
    if (d->trace_base != f->trace_base || d->trace_bytes != f->trace_bytes)
        return KERNEL_PACKET_ERR_REGION;
    if (p->image_bytes != d->image_bytes || p->task_count != d->task_count || d->inline_bytes != 0 ||
        p->image_bytes > f->definition_bytes || p->staged_bytes > f->temp_bytes)
        return KERNEL_PACKET_ERR_REGION;
    return 0;
}

int kernel_packet_check_parts(const device_run_desc *d, const SimplerKernelInvocationHeader *h,
                              const kernel_graph_packet *p)
{
    if (device_validate_desc(d) == DEVICE_ERR_PACKET_INVALID || d->deferred != 0)
        return DEVICE_ERR_PACKET_INVALID;
    /* Fixed-size bytes first: no length is trusted before this. */
    if (kernel_packet_head_checksum(h, p) != p->head_checksum)
        return KERNEL_PACKET_ERR_CHECKSUM;
    int rc = header_check(h, p);
    /* A kernel-mode descriptor carries no fault function (the status
     * check on the caller stream faults it): a function address read out
     * of a packet is never called, so a refusal further on (execute's)
     * cannot jump where a corrupted descriptor points. */
    rc = rc ? rc : d->report_fault != NULL ? KERNEL_PACKET_ERR_HEADER : 0;
    rc = rc ? rc : region_check(d, p);
    return rc ? rc : slot_check(d, h, p);
}

/* kernel_packet_restore; on 0, *sum is the checksum of the bytes the
 * two spans now hold (read once, as compared). */
static int restore_sum(const SimplerKernelInvocationHeader *h, const kernel_graph_packet *p, const void *image,
                       const void *staged, void *definition, void *temp, uint64_t *sum)
{
    *sum = kernel_packet_checksum_copy(h, p, image, staged, definition, p->staged_bytes != 0 ? temp : NULL);
    if (*sum == p->checksum)
        return 0;
    /* The refused bytes are not left for a later reader (the trace
     * export reads the definition region) to take for an image. */
    memset(definition, 0, (size_t)p->image_bytes);
    if (p->staged_bytes != 0)
        memset(temp, 0, (size_t)p->staged_bytes);
    return KERNEL_PACKET_ERR_CHECKSUM;
}

int kernel_packet_restore(const SimplerKernelInvocationHeader *h, const kernel_graph_packet *p, const void *image,
                          const void *staged, void *definition, void *temp)
{
    uint64_t sum;
    return restore_sum(h, p, image, staged, definition, temp, &sum);
}

int kernel_packet_check_restore(const void *args)
{
    uint64_t sum;
    return kernel_packet_check_restore_sum(args, &sum);
}

int kernel_packet_check_restore_sum(const void *args, uint64_t *sum)
{
    const device_run_desc *d = args;
    const SimplerKernelInvocationHeader *h = kernel_packet_header_of(args);
    const kernel_graph_packet *p = kernel_packet_of(args);
    const uint8_t *image = kernel_packet_image_of(args);
    int rc = kernel_packet_check_parts(d, h, p);
    if (rc != 0)
        return rc;
    /* region_check bounded image_bytes by the definition region and
     * staged_bytes by the temp buffer the descriptor names. */
    return restore_sum(h, p, image, image + kernel_packet_pad8(p->image_bytes), (void *)(uintptr_t)d->definition_base,
                       (void *)(uintptr_t)d->temp_base, sum);
}
