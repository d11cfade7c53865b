/* The device side of the kernel-mode packet (src/device/kernel_packet.h),
 * through kernel_packet_check_restore, the check the scheduler body
 * runs: a well-formed packet passes and is restored byte for byte (the
 * image into the definition region, the staged bytes into the temp
 * buffer, nothing past them, also over a region holding most of the
 * image already); every malformed header or packet field, a
 * stale generation and a region other than the frozen ones are refused
 * with their status before anything is written, and a corrupted byte
 * (found by the full checksum while the packet is restored) leaves the
 * restored spans zero, never the refused bytes; the status words say
 * why, and every core is told to quit. Runs the AICPU body on the test
 * thread over host memory (simdev device memory is host memory). */
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include "support.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "device/device_handshake.h"
#include "device/device_status.h"
#include "device/kernel_packet.h"
#include "graph/requirements.h"

#define TASKS 4u
#define IMAGE_BYTES 500u
#define REGION_BYTES 65536u
#define SENTINEL 0xee

#define STAGED_BYTES 40u /* the staged world's: two staged entries */
#define STAGED_COUNT 2

typedef struct world {
    uint8_t *runtime, *definition, *scheduler, *heap, *temp;
    kernel_status_words *words;
    kernel_slot_record *slot;
    uint8_t *args;
    uint32_t staged_bytes; /* 0, or STAGED_BYTES in the staged world */
} world;

static world w;

static uint8_t *region(void)
{
    uint8_t *p = aligned_alloc(1024, REGION_BYTES);
    assert_non_null(p);
    memset(p, SENTINEL, REGION_BYTES);
    return p;
}

static device_run_desc *desc_of(void)
{
    return (device_run_desc *)w.args;
}

static SimplerKernelInvocationHeader *header_of(void)
{
    return (SimplerKernelInvocationHeader *)(desc_of() + 1);
}

static kernel_graph_packet *packet_of(void)
{
    return (kernel_graph_packet *)(header_of() + 1);
}

static uint8_t *image_of(void)
{
    return (uint8_t *)(packet_of() + 1);
}

static uint8_t *staged_of(void)
{
    return image_of() + kernel_packet_pad8(IMAGE_BYTES);
}

static void reseal(void)
{
    kernel_graph_packet *p = packet_of();
    p->head_checksum = kernel_packet_head_checksum(header_of(), p);
    p->checksum = kernel_packet_checksum(header_of(), p, image_of(), staged_of());
}

static void frozen_fill(kernel_frozen_regions *f)
{
    memset(f, 0, sizeof(*f));
    f->heap_base = (uint64_t)(uintptr_t)w.heap, f->heap_bytes = REGION_BYTES;
    f->temp_base = (uint64_t)(uintptr_t)w.temp, f->temp_bytes = REGION_BYTES;
    f->runtime_base = (uint64_t)(uintptr_t)w.runtime, f->runtime_bytes = REGION_BYTES;
    f->definition_base = (uint64_t)(uintptr_t)w.definition, f->definition_bytes = REGION_BYTES;
    f->scheduler_base = (uint64_t)(uintptr_t)w.scheduler, f->scheduler_bytes = REGION_BYTES;
}

static void desc_fill(device_run_desc *d)
{
    const kernel_frozen_regions *f = &w.words->frozen;
    memset(d, 0, sizeof(*d));
    d->version = DEVICE_RUN_DESC_VERSION;
    d->desc_bytes = sizeof(*d);
    d->aic_count = 1, d->aiv_count = 2;
    d->task_count = TASKS;
    d->image_bytes = IMAGE_BYTES;
    d->generation = 5;
    d->heap_base = f->heap_base, d->heap_bytes = f->heap_bytes;
    d->temp_base = f->temp_base, d->temp_bytes = f->temp_bytes;
    d->runtime_base = f->runtime_base, d->runtime_bytes = f->runtime_bytes;
    d->definition_base = f->definition_base, d->definition_bytes = f->definition_bytes;
    d->scheduler_base = f->scheduler_base, d->scheduler_bytes = f->scheduler_bytes;
    d->status_addr = (uint64_t)(uintptr_t)&w.words->run;
    d->kernels = &w.slot->table;
}

/* A fresh, well-formed world before every test: a packet of
 * `staged_bytes` staged bytes (0 or STAGED_BYTES). */
static void world_make_staged(uint32_t staged_bytes)
{
    w.staged_bytes = staged_bytes;
    w.runtime = region(), w.definition = region(), w.scheduler = region(), w.heap = region(), w.temp = region();
    w.words = calloc(1, sizeof(*w.words));
    w.slot = calloc(1, sizeof(*w.slot));
    w.args = aligned_alloc(64, ((size_t)kernel_packet_args_bytes(IMAGE_BYTES, staged_bytes) + 127) / 64 * 64);
    frozen_fill(&w.words->frozen);
    w.slot->callable_id = 3, w.slot->tensor_count = 3, w.slot->scalar_count = 2, w.slot->table.generation = 5;
    desc_fill(desc_of());
    SimplerKernelInvocationHeader *h = header_of();
    memset(h, 0, sizeof(*h));
    h->abi_version = SIMPLER_KERNEL_INVOCATION_ABI_VERSION, h->header_size = sizeof(*h);
    h->mode = SIMPLER_MODE_KERNEL, h->callable_id = 3, h->generation = 5;
    h->tensor_count = 3, h->scalar_count = 2;
    h->host_copy_tensor_count = staged_bytes != 0 ? STAGED_COUNT : 0;
    h->payload_bytes = kernel_packet_payload_bytes(IMAGE_BYTES, staged_bytes);
    kernel_graph_packet *p = packet_of();
    memset(p, 0, sizeof(*p));
    p->format_version = KERNEL_PACKET_FORMAT_VERSION, p->packet_bytes = sizeof(*p);
    p->task_count = TASKS, p->image_bytes = IMAGE_BYTES;
    p->staged_count = staged_bytes != 0 ? STAGED_COUNT : 0, p->staged_bytes = staged_bytes;
    p->slot_addr = (uint64_t)(uintptr_t)w.slot, p->status_addr = (uint64_t)(uintptr_t)w.words;
    p->regions = w.words->frozen;
    for (uint32_t i = 0; i < kernel_packet_pad8(IMAGE_BYTES); i++)
        image_of()[i] = (uint8_t)(i * 7u);
    for (uint32_t i = 0; i < staged_bytes; i++)
        staged_of()[i] = (uint8_t)(i * 13u + 1u);
    reseal();
}

static int world_make(void **state)
{
    (void)state;
    world_make_staged(0);
    return 0;
}

static int world_make_with_staged_bytes(void **state)
{
    (void)state;
    world_make_staged(STAGED_BYTES);
    return 0;
}

static int world_free(void **state)
{
    (void)state;
    free(w.runtime), free(w.definition), free(w.scheduler), free(w.heap), free(w.temp);
    free(w.words), free(w.slot), free(w.args);
    return 0;
}

/* The working regions hold their SENTINEL fill, but the first
 * `def_zeroed` bytes of the definition region and `temp_zeroed` of the
 * temp buffer, which read zero; the runtime arena too unless
 * `runtime_written` (the body's quit signals). */
static void assert_regions_hold(uint32_t def_zeroed, uint32_t temp_zeroed, int runtime_written)
{
    for (uint32_t i = 0; i < REGION_BYTES; i++) {
        uint8_t def = i < def_zeroed ? 0 : SENTINEL;
        uint8_t temp = i < temp_zeroed ? 0 : SENTINEL;
        if (w.definition[i] != def || w.temp[i] != temp || w.heap[i] != SENTINEL || w.scheduler[i] != SENTINEL ||
            (!runtime_written && w.runtime[i] != SENTINEL))
            fail_msg("byte %u of a region was written", i);
    }
}

/* The packet is refused with `status` by the check alone, which writes
 * nothing but zeros over the first `def_zeroed` bytes of the definition
 * region and `temp_zeroed` of the temp buffer (the image's and the
 * staged bytes' spans, on a full-checksum refusal); then running the
 * body writes nothing more but the status words and the quit signals. */
static void assert_refused_leaving(int status, uint32_t def_zeroed, uint32_t temp_zeroed)
{
    assert_int_equal(kernel_packet_check_restore(w.args), status);
    assert_regions_hold(def_zeroed, temp_zeroed, 0);
    /* Sealed as the host seals it, after any change a test made: the
     * packet check, not the seal, is what refuses here. */
    desc_of()->seal = device_run_desc_seal_of(desc_of());
    kernel_packet_scheduler_kernel(0, 1, w.args);
    assert_regions_hold(def_zeroed, temp_zeroed, 1);
    assert_int_equal(atomic_load(&w.words->run), status);
    assert_int_equal(atomic_load(&w.words->sticky), status);
    const device_run_desc *d = desc_of();
    for (uint32_t c = 0; c < d->aic_count + d->aiv_count; c++)
        assert_int_equal(atomic_load(&device_core_slot_at(d, c)->state), DEVICE_SLOT_QUIT);
}

static void assert_refused(int status)
{
    assert_refused_leaving(status, 0, 0);
}

/* The restoring check of a well-formed packet: 0, the image byte for
 * byte in the definition region and nothing past it, the same checksum
 * as the plain one; a corrupted byte past the image's first block is
 * still refused (the restore does not stop at what it copied). */
static void packet_check_restore_copies_exactly_the_image(void **state)
{
    (void)state;
    assert_int_equal(kernel_packet_check_restore(w.args), 0);
    assert_memory_equal(w.definition, image_of(), IMAGE_BYTES);
    for (uint32_t i = IMAGE_BYTES; i < REGION_BYTES; i++)
        if (w.definition[i] != SENTINEL || w.temp[i] != SENTINEL)
            fail_msg("byte %u past the image was written", i);
    assert_int_equal(kernel_packet_checksum_copy(header_of(), packet_of(), image_of(), image_of(), NULL, NULL),
                     packet_of()->checksum);
    image_of()[IMAGE_BYTES - 1] ^= 0x01; /* the tail */
    assert_int_equal(kernel_packet_check_restore(w.args), KERNEL_PACKET_ERR_CHECKSUM);
    for (uint32_t i = 0; i < IMAGE_BYTES; i++)
        if (w.definition[i] != 0)
            fail_msg("byte %u of a refused image was left", i);
}

/* A replay restores over the image the last execution left: the
 * restore skips the blocks the definition region already holds, so a
 * region differing from the image in any 16-byte quarter of a 64-byte
 * block, or in the tail past the last whole block, still ends up
 * holding the image byte for byte. */
static void packet_restore_over_a_near_copy_stores_every_difference(void **state)
{
    static const uint32_t stale[] = {0, 64 + 17, 128 + 39, 192 + 63, IMAGE_BYTES - 1};
    (void)state;
    assert_int_equal(kernel_packet_check_restore(w.args), 0);
    for (size_t i = 0; i < sizeof(stale) / sizeof(stale[0]); i++)
        w.definition[stale[i]] ^= 0x5a;
    assert_int_equal(kernel_packet_check_restore(w.args), 0);
    assert_memory_equal(w.definition, image_of(), IMAGE_BYTES);
    for (uint32_t i = IMAGE_BYTES; i < REGION_BYTES; i++)
        if (w.definition[i] != SENTINEL)
            fail_msg("byte %u past the image was written", i);
}

static void packet_well_formed_passes_the_check(void **state)
{
    (void)state;
    assert_int_equal(kernel_packet_check_restore(w.args), 0);
    assert_memory_equal(w.definition, image_of(), IMAGE_BYTES);
}

/* With staged bytes: accepted, the image in the definition region and
 * the staged bytes at the base of the temp buffer, byte for byte, and
 * nothing past either span written. */
static void packet_staged_bytes_restored_into_the_temp_buffer(void **state)
{
    (void)state;
    assert_int_equal(kernel_packet_check_restore(w.args), 0);
    assert_memory_equal(w.definition, image_of(), IMAGE_BYTES);
    assert_memory_equal(w.temp, staged_of(), STAGED_BYTES);
    for (uint32_t i = 0; i < REGION_BYTES; i++)
        if ((i >= IMAGE_BYTES && w.definition[i] != SENTINEL) || (i >= STAGED_BYTES && w.temp[i] != SENTINEL) ||
            w.heap[i] != SENTINEL || w.scheduler[i] != SENTINEL || w.runtime[i] != SENTINEL)
            fail_msg("byte %u past the restored spans was written", i);
}

/* A corrupted staged byte (the last one: read after the whole image) is
 * refused by the full checksum: both spans are left zero, never the
 * refused bytes, and the body runs no task. */
static void packet_corrupted_staged_byte_refused_both_spans_zero(void **state)
{
    (void)state;
    staged_of()[STAGED_BYTES - 1] ^= 0x04;
    assert_refused_leaving(KERNEL_PACKET_ERR_CHECKSUM, IMAGE_BYTES, STAGED_BYTES);
}

static void packet_header_version_refused(void **state)
{
    (void)state;
    header_of()->abi_version = 2;
    reseal();
    assert_refused(KERNEL_PACKET_ERR_HEADER);
}

static void packet_header_mode_refused(void **state)
{
    (void)state;
    header_of()->mode = SIMPLER_MODE_PROGRAM;
    reseal();
    assert_refused(KERNEL_PACKET_ERR_HEADER);
}

static void packet_header_reserved_nonzero_refused(void **state)
{
    (void)state;
    header_of()->reserved[1] = 1;
    reseal();
    assert_refused(KERNEL_PACKET_ERR_HEADER);
}

static void packet_payload_length_mismatch_refused(void **state)
{
    (void)state;
    header_of()->payload_bytes += 8;
    reseal();
    assert_refused(KERNEL_PACKET_ERR_HEADER);
}

static void packet_format_version_refused(void **state)
{
    (void)state;
    packet_of()->format_version = 9;
    reseal();
    assert_refused(KERNEL_PACKET_ERR_HEADER);
}

static void packet_host_copy_count_mismatch_refused(void **state)
{
    (void)state;
    header_of()->host_copy_tensor_count = 1;
    reseal();
    assert_refused(KERNEL_PACKET_ERR_HEADER);
}

static void packet_stale_generation_refused(void **state)
{
    (void)state;
    w.slot->table.generation = 6; /* the slot was prepared again */
    assert_refused(KERNEL_PACKET_ERR_SLOT);
}

static void packet_counts_against_signature_refused(void **state)
{
    (void)state;
    header_of()->tensor_count = 2;
    reseal();
    assert_refused(KERNEL_PACKET_ERR_SLOT);
}

static void packet_region_other_than_frozen_refused(void **state)
{
    (void)state;
    packet_of()->regions.heap_bytes += 1024;
    reseal();
    assert_refused(KERNEL_PACKET_ERR_REGION);
}

static void packet_descriptor_region_other_than_frozen_refused(void **state)
{
    (void)state;
    desc_of()->scheduler_bytes -= 1024;
    assert_refused(KERNEL_PACKET_ERR_REGION);
}

/* The context has a trace buffer and the descriptor names none: refused,
 * or the scheduler would skip the buffer's reset while the executor,
 * whose descriptor names it, appends the execution's records to the
 * last one's. */
static void packet_descriptor_without_the_frozen_trace_refused(void **state)
{
    static uint64_t trace[512];
    (void)state;
    w.words->frozen.trace_base = (uint64_t)(uintptr_t)trace;
    w.words->frozen.trace_bytes = sizeof(trace);
    packet_of()->regions = w.words->frozen;
    reseal();
    assert_refused(KERNEL_PACKET_ERR_REGION);
}

static int fault_never_called(int code)
{
    fail_msg("the packet descriptor's fault function was called (code %d)", code);
    return 0;
}

/* A kernel-mode descriptor carries no fault function (the status check
 * on the caller stream faults it): one that does is refused, and the
 * function is never called. */
static void packet_descriptor_fault_function_refused_never_called(void **state)
{
    (void)state;
    desc_of()->report_fault = fault_never_called;
    assert_refused(KERNEL_PACKET_ERR_HEADER);
}

static void packet_corrupted_image_byte_refused(void **state)
{
    (void)state;
    image_of()[123] ^= 0x10;
    /* Found while the image is restored: its span of the definition
     * region is left zero, never the refused bytes. */
    assert_refused_leaving(KERNEL_PACKET_ERR_CHECKSUM, IMAGE_BYTES, 0);
}

/* The checksum mixes 64-byte blocks in eight lanes, then single words,
 * then a tail: a flipped bit in any byte of the image (500 bytes: 7
 * blocks, six words and a 4-byte tail) is caught, and so is two words
 * of one block swapped between lanes. */
static void packet_checksum_catches_a_flip_in_every_image_byte(void **state)
{
    (void)state;
    static const uint8_t zeros[IMAGE_BYTES];
    for (uint32_t i = 0; i < IMAGE_BYTES; i++) {
        image_of()[i] ^= (uint8_t)(1u << (i % 8));
        assert_int_equal(kernel_packet_check_restore(w.args), KERNEL_PACKET_ERR_CHECKSUM);
        if (memcmp(w.definition, zeros, IMAGE_BYTES) != 0)
            fail_msg("a flip in byte %u left refused bytes in the definition region", i);
        image_of()[i] ^= (uint8_t)(1u << (i % 8));
    }
    uint64_t a, b;
    memcpy(&a, image_of() + 64, 8);
    memcpy(&b, image_of() + 72, 8);
    assert_true(a != b);
    memcpy(image_of() + 64, &b, 8);
    memcpy(image_of() + 72, &a, 8);
    assert_int_equal(kernel_packet_check_restore(w.args), KERNEL_PACKET_ERR_CHECKSUM);
    memcpy(image_of() + 64, &a, 8);
    memcpy(image_of() + 72, &b, 8);
    assert_int_equal(kernel_packet_check_restore(w.args), 0);
    assert_memory_equal(w.definition, image_of(), IMAGE_BYTES);
}

/* Changes that cancel in a plain sum of a lane's words: the top bit
 * flipped in two words of one lane (image words 0 and 16: lane 0 of
 * blocks 0 and 2), and two different words of one lane swapped (blocks
 * 0 and 1). */
static void packet_checksum_catches_changes_a_lane_sum_would_miss(void **state)
{
    (void)state;
    uint8_t *img = image_of();
    img[7] ^= 0x80;
    img[128 + 7] ^= 0x80;
    assert_int_equal(kernel_packet_check_restore(w.args), KERNEL_PACKET_ERR_CHECKSUM);
    img[7] ^= 0x80;
    img[128 + 7] ^= 0x80;
    assert_int_equal(kernel_packet_check_restore(w.args), 0);
    uint64_t a, b;
    memcpy(&a, img, 8);
    memcpy(&b, img + 64, 8);
    assert_true(a != b);
    memcpy(img, &b, 8);
    memcpy(img + 64, &a, 8);
    assert_int_equal(kernel_packet_check_restore(w.args), KERNEL_PACKET_ERR_CHECKSUM);
    memcpy(img, &a, 8);
    memcpy(img + 64, &b, 8);
    assert_int_equal(kernel_packet_check_restore(w.args), 0);
}

static void packet_corrupted_header_byte_refused(void **state)
{
    (void)state;
    ((uint8_t *)header_of())[20] ^= 0x01; /* generation's high half: slot and checksum disagree */
    w.slot->table.generation = header_of()->generation;
    desc_of()->generation = header_of()->generation;
    assert_refused(KERNEL_PACKET_ERR_CHECKSUM);
}

/* A corruption that changes the descriptor's, the header's and the
 * packet's lengths together (consistent with each other, within the
 * frozen regions) is refused before any length is trusted: the block
 * ends right before a page the process may not read, and the check must
 * not touch it (the device body gets a pointer, not the block's size). */
static void packet_lengths_changed_together_refused_without_reading_past_the_block(void **state)
{
    (void)state;
    size_t bytes = (size_t)kernel_packet_args_bytes(IMAGE_BYTES, 0);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (bytes + page - 1) / page * page;
    uint8_t *map = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    assert_int_equal(mprotect(map + span, page, PROT_NONE), 0);
    uint8_t *block = map + span - bytes; /* ends at the guard page; 8-aligned */
    memcpy(block, w.args, bytes);
    assert_int_equal(kernel_packet_check_restore(block), 0);
    uint64_t longer = IMAGE_BYTES + 1024;
    ((device_run_desc *)(void *)block)->image_bytes = longer;
    SimplerKernelInvocationHeader *h = (SimplerKernelInvocationHeader *)(void *)(block + sizeof(device_run_desc));
    kernel_graph_packet *p = (kernel_graph_packet *)(h + 1);
    h->payload_bytes = kernel_packet_payload_bytes(longer, 0);
    p->image_bytes = longer;
    memset(w.definition, SENTINEL, REGION_BYTES);
    assert_int_equal(kernel_packet_check_restore(block), KERNEL_PACKET_ERR_CHECKSUM);
    assert_regions_hold(0, 0, 0); /* a head-checksum refusal writes nothing */
    assert_int_equal(munmap(map, span + page), 0);
}

/* A page the process may not touch: an address there faults if read. */
static uint8_t *guard_page(size_t *page)
{
    *page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, *page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    return map;
}

/* A packet whose slot_addr was corrupted (the descriptor still names the
 * real slot record) is refused without reading where it points. */
static void packet_slot_address_the_descriptor_does_not_name_refused_unread(void **state)
{
    (void)state;
    size_t page;
    uint8_t *guard = guard_page(&page);
    packet_of()->slot_addr = (uint64_t)(uintptr_t)guard;
    reseal();
    assert_refused(KERNEL_PACKET_ERR_SLOT);
    assert_int_equal(munmap(guard, page), 0);
}

/* Likewise a corrupted status_addr: refused without being read, and the
 * body reports the refusal through the descriptor's status word (the
 * real status words), not through the corrupted address. */
static void packet_status_address_the_descriptor_does_not_name_refused_unread(void **state)
{
    (void)state;
    size_t page;
    uint8_t *guard = guard_page(&page);
    packet_of()->status_addr = (uint64_t)(uintptr_t)guard;
    reseal();
    assert_refused(KERNEL_PACKET_ERR_REGION);
    assert_int_equal(munmap(guard, page), 0);
}

/* A misaligned address is refused as a malformed header even when the
 * descriptor was corrupted to agree with it. */
static void packet_misaligned_addresses_refused(void **state)
{
    (void)state;
    kernel_graph_packet *p = packet_of();
    p->slot_addr += 4;
    desc_of()->kernels = (const device_kernel_table *)(uintptr_t)(p->slot_addr + offsetof(kernel_slot_record, table));
    reseal();
    assert_int_equal(kernel_packet_check_restore(w.args), KERNEL_PACKET_ERR_HEADER);
    assert_regions_hold(0, 0, 0);
    world_free(NULL), world_make(NULL);
    p = packet_of();
    p->status_addr += 4;
    reseal();
    assert_int_equal(kernel_packet_check_restore(w.args), KERNEL_PACKET_ERR_HEADER);
    assert_regions_hold(0, 0, 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, world_make, world_free)
    const struct CMUnitTest tests[] = {
        T(packet_well_formed_passes_the_check),
        T(packet_check_restore_copies_exactly_the_image),
        T(packet_restore_over_a_near_copy_stores_every_difference),
        cmocka_unit_test_setup_teardown(packet_staged_bytes_restored_into_the_temp_buffer,
                                        world_make_with_staged_bytes, world_free),
        cmocka_unit_test_setup_teardown(packet_corrupted_staged_byte_refused_both_spans_zero,
                                        world_make_with_staged_bytes, world_free),
        T(packet_header_version_refused),
        T(packet_header_mode_refused),
        T(packet_header_reserved_nonzero_refused),
        T(packet_payload_length_mismatch_refused),
        T(packet_format_version_refused),
        T(packet_host_copy_count_mismatch_refused),
        T(packet_stale_generation_refused),
        T(packet_counts_against_signature_refused),
        T(packet_region_other_than_frozen_refused),
        T(packet_descriptor_region_other_than_frozen_refused),
        T(packet_descriptor_without_the_frozen_trace_refused),
        T(packet_descriptor_fault_function_refused_never_called),
        T(packet_corrupted_image_byte_refused),
        T(packet_checksum_catches_a_flip_in_every_image_byte),
        T(packet_checksum_catches_changes_a_lane_sum_would_miss),
        T(packet_corrupted_header_byte_refused),
        T(packet_lengths_changed_together_refused_without_reading_past_the_block),
        T(packet_slot_address_the_descriptor_does_not_name_refused_unread),
        T(packet_status_address_the_descriptor_does_not_name_refused_unread),
        T(packet_misaligned_addresses_refused),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
