#define _GNU_SOURCE
/* Kernel mode end to end over real simdev: eager launches, capture in
 * GLOBAL mode and replay with fresh inputs copied in place, two captured
 * graphs without cross-talk, the packet copied by value, the three-stream
 * fork/join of the captured graph, and zero allocations across 1,000
 * launches. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/host_alloc.h"
#include "context/context_internal.h"
#include "kernel_fixture.h"
#include "../program/image_fixture.h"

#define REPLAYS 8u
#define ZERO_ALLOC_LAUNCHES 1000u

static void kernel_eager_launch_computes_the_golden(void **state)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    (void)state;
    kfix_open_plan(&k, &image, 4);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 1.0f);
    kfix_assert_golden(&k, &d, &v, 4);
    kbufs_free(&d);
    kfix_close(&k);
}

static void kernel_captured_launch_replays_with_fresh_inputs_in_place(void **state)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    (void)state;
    kfix_open_plan(&k, &image, 3);
    kbufs_alloc(&d);
    simdev_graph_t captured = kfix_capture(&k, &d, 3);
    for (uint32_t r = 0; r < REPLAYS; r++) {
        kbufs_upload(&d, &v, 10.0f * (float)r);
        assert_int_equal(simdev_graph_launch(captured, k.stream), SIMDEV_SUCCESS);
        int sync = simdev_stream_synchronize(k.stream), runtime = 0;
        (void)simpler_kernel_mode_errors(k.ctx, &runtime, NULL);
        if (sync != 0)
            fail_msg("replay %u: stream %d, runtime error %d", r, sync, runtime);
        assert_int_equal(kbufs_check(&d, &v, 3), 0);
    }
    assert_int_equal(simdev_graph_destroy(captured), SIMDEV_SUCCESS);
    kbufs_free(&d);
    kfix_close(&k);
}

static void kernel_two_captured_graphs_replay_alternately_without_cross_talk(void **state)
{
    static vadd_buffers v1, v2;
    kfix k;
    kbufs d1, d2;
    (void)state;
    kfix_open_plan(&k, &image, 5);
    kbufs_alloc(&d1);
    kbufs_alloc(&d2);
    simdev_graph_t g1 = kfix_capture(&k, &d1, 1);
    simdev_graph_t g2 = kfix_capture(&k, &d2, 5);
    for (uint32_t r = 0; r < REPLAYS; r++) {
        kbufs_upload(&d1, &v1, (float)r);
        kbufs_upload(&d2, &v2, 100.0f + (float)r);
        assert_int_equal(simdev_graph_launch(r % 2 ? g2 : g1, k.stream), SIMDEV_SUCCESS);
        assert_int_equal(simdev_graph_launch(r % 2 ? g1 : g2, k.stream), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
        assert_int_equal(kbufs_check(&d1, &v1, 1), 0);
        assert_int_equal(kbufs_check(&d2, &v2, 5), 0);
    }
    assert_int_equal(simdev_graph_destroy(g1), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(g2), SIMDEV_SUCCESS);
    kbufs_free(&d1);
    kbufs_free(&d2);
    kfix_close(&k);
}

static void kernel_unsynchronized_eager_launches_do_not_cross_talk(void **state)
{
    enum { CALLS = 6 };
    static vadd_buffers v[CALLS];
    kbufs d[CALLS];
    kfix k;
    (void)state;
    kfix_open_plan(&k, &image, CALLS);
    for (int i = 0; i < CALLS; i++) {
        kbufs_alloc(&d[i]);
        kbufs_upload(&d[i], &v[i], 3.0f * (float)i);
    }
    for (int i = 0; i < CALLS; i++)
        assert_int_equal(kfix_launch(&k, &d[i], (uint64_t)i), 0);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    for (int i = 0; i < CALLS; i++) {
        assert_int_equal(kbufs_check(&d[i], &v[i], (uint64_t)i), 0);
        kbufs_free(&d[i]);
    }
    kfix_close(&k);
}

static void kernel_args_overwritten_after_launch_do_not_change_the_result(void **state)
{
    static vadd_buffers v;
    static ChipStorageTaskArgs args;
    kfix k;
    kbufs d, other;
    (void)state;
    kfix_open_plan(&k, &image, 7);
    kbufs_alloc(&d);
    kbufs_alloc(&other);
    kbufs_upload(&d, &v, 2.0f);
    /* Block the caller stream so the launch cannot have run when the
     * args are overwritten. */
    vadd_args_make(&args, d.a, d.b, d.f, SIMPLER_ADDRESS_SPACE_DEVICE, 2, 0);
    assert_int_equal(simpler_kernel_mode_launch(k.ctx, KFIX_ID, &args, k.stream), 0);
    vadd_args_make(&args, other.a, other.b, other.f, SIMPLER_ADDRESS_SPACE_DEVICE, 7, 0);
    memset(&args, 0xa5, sizeof(args));
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&d, &v, 2), 0);
    kbufs_free(&d);
    kbufs_free(&other);
    kfix_close(&k);
}

static void kernel_captured_graph_forks_and_joins_three_streams(void **state)
{
    kfix k;
    kbufs d;
    size_t nodes = 0;
    char path[] = "/tmp/simpler_kernel_dot_XXXXXX";
    (void)state;
    kfix_open_plan(&k, &image, 1);
    kbufs_alloc(&d);
    simdev_graph_t captured = kfix_capture(&k, &d, 1);
    /* memset + executor + scheduler + status check: four work nodes. */
    assert_int_equal(simdev_graph_node_count(captured, &nodes), SIMDEV_SUCCESS);
    assert_true(nodes >= 4);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(simdev_graph_debug_dot(captured, path), SIMDEV_SUCCESS);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char dot[1 << 16];
    size_t n = fread(dot, 1, sizeof(dot) - 1, f);
    dot[n] = '\0';
    fclose(f);
    unlink(path);
    /* Nodes on three lanes: the caller's, the AICPU and the AICore stream. */
    assert_non_null(strstr(dot, "lane 0"));
    assert_non_null(strstr(dot, "lane 1"));
    assert_non_null(strstr(dot, "lane 2"));
    assert_int_equal(simdev_graph_destroy(captured), SIMDEV_SUCCESS);
    kbufs_free(&d);
    kfix_close(&k);
}

typedef struct bases {
    size_t committed;
    uint64_t heap, temp;
    void *regions[ARENA_REGION_COUNT]; /* gm_heap, gm_sm, runtime pool */
    void *trace;
} bases;

static bases bases_of(kfix *k)
{
    const simpler_context *ctx = k->ctx;
    bases b = {committed_device_memory_ctx(k->ctx), get_arena_bank_gm_heap_base_ctx(k->ctx, 0),
               get_retained_temp_addr_ctx(k->ctx, 0), {NULL, NULL, NULL}, ctx->trace.base};
    for (int r = 0; r < ARENA_REGION_COUNT; r++) {
        b.regions[r] = arena_bank_base(&ctx->bank, r);
        assert_non_null(b.regions[r]);
    }
    assert_int_not_equal(b.heap, 0);
    return b;
}

static void kernel_eager_launches_allocate_sync_query_and_create_nothing(void **state)
{
    static vadd_buffers v;
    simdev_counters before, after;
    kfix k;
    kbufs d;
    (void)state;
    kfix_open_plan(&k, &image, 2);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 5.0f);
    bases b0 = bases_of(&k);
    uint64_t allocs = host_alloc_count(), frees = host_free_count();
    assert_int_equal(simdev_get_thread_counters(&before), SIMDEV_SUCCESS);
    for (uint32_t i = 0; i < ZERO_ALLOC_LAUNCHES; i++)
        assert_int_equal(kfix_launch(&k, &d, 2), 0);
    assert_int_equal(simdev_get_thread_counters(&after), SIMDEV_SUCCESS);
    assert_int_equal(host_alloc_count(), allocs);
    assert_int_equal(host_free_count(), frees);
    kfix_assert_no_forbidden_calls(&before, &after);
    /* gate, executor, scheduler, dismiss, status check */
    assert_int_equal(after.kernel_launches - before.kernel_launches, 5 * ZERO_ALLOC_LAUNCHES);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&d, &v, 2), 0);
    bases b1 = bases_of(&k);
    assert_memory_equal(&b0, &b1, sizeof(b0));
    kbufs_free(&d);
    kfix_close(&k);
}

static void kernel_captured_launches_allocate_sync_query_and_create_nothing(void **state)
{
    static vadd_buffers v;
    simdev_counters before, after;
    simdev_graph_t captured = NULL;
    kfix k;
    kbufs d;
    (void)state;
    kfix_open_plan(&k, &image, 2);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 6.0f);
    bases b0 = bases_of(&k);
    assert_int_equal(simdev_capture_begin(k.stream, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    assert_int_equal(simdev_get_thread_counters(&before), SIMDEV_SUCCESS);
    /* simdev allocates graph nodes while it records (device scope); the
     * runtime itself allocates and frees nothing. */
    uint64_t allocs = host_alloc_count_runtime(), device_allocs = host_alloc_count();
    for (uint32_t i = 0; i < ZERO_ALLOC_LAUNCHES; i++)
        assert_int_equal(kfix_launch(&k, &d, 2), 0);
    assert_int_equal(host_alloc_count_runtime(), allocs);
    assert_true(host_alloc_count() > device_allocs);
    assert_int_equal(simdev_get_thread_counters(&after), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_end(k.stream, &captured), SIMDEV_SUCCESS);
    kfix_assert_no_forbidden_calls(&before, &after);
    /* gate, executor, scheduler, dismiss, status check */
    assert_int_equal(after.kernel_launches - before.kernel_launches, 5 * ZERO_ALLOC_LAUNCHES);
    /* Replays: the runtime is not called at all; its capacity stays put. */
    for (uint32_t r = 0; r < 2; r++)
        assert_int_equal(simdev_graph_launch(captured, k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&d, &v, 2), 0);
    bases b1 = bases_of(&k);
    assert_memory_equal(&b0, &b1, sizeof(b0));
    assert_int_equal(simdev_graph_destroy(captured), SIMDEV_SUCCESS);
    kbufs_free(&d);
    kfix_close(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_eager_launch_computes_the_golden),
        cmocka_unit_test(kernel_captured_launch_replays_with_fresh_inputs_in_place),
        cmocka_unit_test(kernel_two_captured_graphs_replay_alternately_without_cross_talk),
        cmocka_unit_test(kernel_unsynchronized_eager_launches_do_not_cross_talk),
        cmocka_unit_test(kernel_args_overwritten_after_launch_do_not_change_the_result),
        cmocka_unit_test(kernel_captured_graph_forks_and_joins_three_streams),
        cmocka_unit_test(kernel_eager_launches_allocate_sync_query_and_create_nothing),
        cmocka_unit_test(kernel_captured_launches_allocate_sync_query_and_create_nothing),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
