#define _GNU_SOURCE
/* The replay's image-check skip end to end, over real simdev and the
 * "vadd" fixture image: a kernel-mode scheduler skips graph_image_check
 * for an image restored under the packet checksum it last accepted
 * (docs/kernel-mode.md, "What a launch does"). Captured graphs are
 * replayed, then a captured packet whose image graph_image_check
 * refuses, with both checksums recomputed (so only the image check can
 * refuse it), then the original again: the corrupted one must be
 * checked and refused, and the original must still compute the golden
 * afterwards, with one graph and with two alternating ones.
 *
 * The corrupted packet is made on its way to the device: the context
 * calls the device through a copy of the simdev platform table whose
 * launch_kernel changes the packet scheduler's arguments while
 * `corrupting` is set, so the capture records the changed bytes. */
#include "support.h"

#include <string.h>

#include "context/context.h"
#include "device/device_status.h"
#include "device/kernel_packet.h"
#include "graph/graph_image.h"
#include "kernel/kernel_state.h"
#include "kernel_fixture.h"
#include "../program/image_fixture.h"

/* ---- the corrupting platform table ---- */

static platform_ops corrupting_ops;
static int corrupting;
/* The last packet scheduler launch's packet checksum and image. */
static uint64_t last_checksum;
static uint8_t last_image[1u << 15];
static size_t last_image_bytes;
static _Alignas(64) uint8_t corrupted_args[1u << 16];

/* The packet's image with a reserved header word set, which
 * graph_image_check refuses and nothing else reads, and the checksums
 * recomputed: the packet check and the restore accept it. */
static void corrupt_image_resealed(uint8_t *args)
{
    const SimplerKernelInvocationHeader *h = kernel_packet_header_of(args);
    kernel_graph_packet *p = (kernel_graph_packet *)(uintptr_t)kernel_packet_of(args);
    uint8_t *bytes = (uint8_t *)(uintptr_t)kernel_packet_image_of(args);
    ((graph_image_header *)(void *)bytes)->reserved = 1;
    p->head_checksum = kernel_packet_head_checksum(h, p);
    p->checksum = kernel_packet_checksum(h, p, bytes, bytes + kernel_packet_pad8(p->image_bytes));
}

static int corrupting_launch(void *user, platform_stream *stream, int engine, platform_kernel_fn fn,
                             uint32_t block_dim, const void *args, size_t args_size)
{
    const platform_ops *inner = platform_ops_simdev();
    if (corrupting && fn == kernel_packet_scheduler_kernel) {
        assert_true(args_size <= sizeof(corrupted_args));
        memcpy(corrupted_args, args, args_size);
        corrupt_image_resealed(corrupted_args);
        args = corrupted_args;
    }
    if (fn == kernel_packet_scheduler_kernel) {
        last_checksum = kernel_packet_of(args)->checksum;
        last_image_bytes = (size_t)kernel_packet_of(args)->image_bytes;
        assert_true(last_image_bytes <= sizeof(last_image));
        memcpy(last_image, kernel_packet_image_of(args), last_image_bytes);
    }
    (void)user;
    return inner->launch_kernel(inner->user, stream, engine, fn, block_dim, args, args_size);
}

/* A kernel context over the corrupting table, ready to launch graphs of
 * up to `rounds_max` rounds. */
static void open_corruptible(kfix *k, uint64_t rounds_max)
{
    SimplerKernelCtxControl c = kfix_plan(&image, rounds_max);
    corrupting_ops = *platform_ops_simdev();
    corrupting_ops.launch_kernel = corrupting_launch;
    corrupting = 0;
    kfix_open_over(k, &image, &c, &corrupting_ops);
}

/* The graph of one launch of `rounds` over `d` whose packet carries the
 * corrupted image. */
static simdev_graph_t capture_corrupted(kfix *k, const kbufs *d, uint64_t rounds)
{
    corrupting = 1;
    simdev_graph_t g = kfix_capture(k, d, rounds);
    corrupting = 0;
    return g;
}

/* ---- replays ---- */

/* The image of a packet as captured, to compare with the definition
 * region. */
typedef struct image_copy {
    uint8_t bytes[sizeof(last_image)];
    size_t size;
} image_copy;

static void image_copy_take(image_copy *c)
{
    memcpy(c->bytes, last_image, last_image_bytes);
    c->size = last_image_bytes;
}

/* The definition region holds exactly `c`: the last replay restored its
 * own image over the refused one's, every byte. */
static void assert_definition_holds(kfix *k, const image_copy *c)
{
    const void *definition = (const void *)(uintptr_t)kernel_state_of(k->ctx)->frozen.definition_base;
    assert_memory_equal(definition, c->bytes, c->size);
}

/* The checksum of the image the context's scheduler last accepted: a
 * replay restored under it skips the image check. */
static uint64_t image_passed(kfix *k)
{
    return kernel_state_of(k->ctx)->status->image_passed;
}

/* One replay of `g` on `stream` over fresh inputs (seeded `seed`):
 * the output matches the golden for `rounds`. */
static void replay_golden(simdev_graph_t g, simdev_stream_t stream, kfix *k, const kbufs *d, vadd_buffers *v,
                          uint64_t rounds, float seed)
{
    int runtime = 0;
    kbufs_upload(d, v, seed);
    assert_int_equal(simdev_graph_launch(g, stream), SIMDEV_SUCCESS);
    int sync = simdev_stream_synchronize(stream);
    if (sync != SIMDEV_SUCCESS) {
        (void)simpler_kernel_mode_errors(k->ctx, &runtime, NULL);
        fail_msg("replay seeded %.0f: stream %d, device error %d", (double)seed, sync, runtime);
    }
    assert_int_equal(kbufs_check(d, v, rounds), 0);
}

/* One replay of the corrupted `bad` on `stream`: refused by the image
 * check (-1) before any task ran (the output keeps its -1 fill), the
 * first error of the context. */
static void replay_refused(simdev_graph_t bad, simdev_stream_t stream, kfix *k, const kbufs *d, vadd_buffers *v)
{
    int runtime = 0;
    kbufs_upload(d, v, 7.0f); /* the output reads -1 */
    assert_int_equal(simdev_graph_launch(bad, stream), SIMDEV_SUCCESS);
    assert_int_not_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_errors(k->ctx, &runtime, NULL), 0);
    assert_int_equal(runtime, DEVICE_ERR_IMAGE_INVALID);
    float f[VADD_N];
    assert_int_equal(simdev_memcpy(f, d->f, sizeof(f)), SIMDEV_SUCCESS);
    for (uint32_t i = 0; i < VADD_N; i++)
        if (f[i] != -1.0f)
            fail_msg("element %u of the output was written by a refused execution", i);
}

/* A refused execution faulted its caller stream (simdev faults are
 * sticky); the replays after it run on a fresh one. */
static void close_refused(kfix *k, simdev_stream_t fresh)
{
    assert_int_equal(simdev_stream_destroy(fresh), SIMDEV_SUCCESS);
    assert_int_equal(finalize_device(k->ctx), 0);
    destroy_device_context(k->ctx);
    assert_int_equal(simdev_stream_destroy(k->stream), SIMDEV_SUCCESS);
}

/* One captured graph replayed twice (the second skips the image check:
 * same checksum), then its corrupted twin, refused by the image check
 * although its checksums agree, then the original twice more: the
 * definition region held the refused image, and each replay restores
 * and checks its own. Every accepted replay matches the golden. */
static void replay_accepted_then_corrupted_refused_then_original_again(void **state)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    simdev_stream_t fresh = NULL;
    (void)state;
    open_corruptible(&k, 3);
    kbufs_alloc(&d);
    static image_copy original;
    simdev_graph_t g = kfix_capture(&k, &d, 3);
    uint64_t accepted = last_checksum;
    image_copy_take(&original);
    simdev_graph_t bad = capture_corrupted(&k, &d, 3);
    assert_int_not_equal(last_checksum, accepted);
    replay_golden(g, k.stream, &k, &d, &v, 3, 1.0f);
    replay_golden(g, k.stream, &k, &d, &v, 3, 2.0f);
    assert_true(image_passed(&k) == accepted);
    replay_refused(bad, k.stream, &k, &d, &v);
    /* The refused image was not recorded: the next replay of the
     * original, restored under the checksum recorded, skips the check. */
    assert_true(image_passed(&k) == accepted);
    assert_int_equal(simdev_stream_create(&fresh), SIMDEV_SUCCESS);
    replay_golden(g, fresh, &k, &d, &v, 3, 3.0f);
    assert_definition_holds(&k, &original);
    replay_golden(g, fresh, &k, &d, &v, 3, 4.0f);
    assert_int_equal(simdev_graph_destroy(bad), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(g), SIMDEV_SUCCESS);
    kbufs_free(&d);
    close_refused(&k, fresh);
}

/* Two captured graphs (2 and 5 rounds, their own buffers) replayed
 * alternately, the corrupted twin of the first right after an accepted
 * replay of the first (so the checksum it last accepted is its twin's
 * original), then the two alternately again, the first one first. */
static void two_graphs_alternate_around_a_refused_corrupted_twin(void **state)
{
    static vadd_buffers v1, v2;
    kfix k;
    kbufs d1, d2;
    simdev_stream_t fresh = NULL;
    (void)state;
    open_corruptible(&k, 5);
    kbufs_alloc(&d1);
    kbufs_alloc(&d2);
    static image_copy first;
    simdev_graph_t g1 = kfix_capture(&k, &d1, 2);
    uint64_t accepted = last_checksum;
    image_copy_take(&first);
    simdev_graph_t g2 = kfix_capture(&k, &d2, 5);
    simdev_graph_t bad = capture_corrupted(&k, &d1, 2);
    for (uint32_t r = 0; r < 2; r++) {
        replay_golden(g1, k.stream, &k, &d1, &v1, 2, 10.0f + (float)r);
        replay_golden(g2, k.stream, &k, &d2, &v2, 5, 20.0f + (float)r);
    }
    replay_golden(g1, k.stream, &k, &d1, &v1, 2, 12.0f);
    assert_true(image_passed(&k) == accepted);
    replay_refused(bad, k.stream, &k, &d1, &v1);
    assert_true(image_passed(&k) == accepted);
    assert_int_equal(simdev_stream_create(&fresh), SIMDEV_SUCCESS);
    for (uint32_t r = 0; r < 2; r++) {
        replay_golden(g1, fresh, &k, &d1, &v1, 2, 30.0f + (float)r);
        assert_definition_holds(&k, &first);
        replay_golden(g2, fresh, &k, &d2, &v2, 5, 40.0f + (float)r);
    }
    assert_int_equal(simdev_graph_destroy(bad), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(g1), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(g2), SIMDEV_SUCCESS);
    kbufs_free(&d1);
    kbufs_free(&d2);
    close_refused(&k, fresh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(replay_accepted_then_corrupted_refused_then_original_again),
        cmocka_unit_test(two_graphs_alternate_around_a_refused_corrupted_twin),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
