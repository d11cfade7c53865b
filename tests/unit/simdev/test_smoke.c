/*
 * simdev smoke tests: the basic path through each part of the device
 * (heap, streams and engines, capture and replay, steady-state enqueue).
 * The conformance suite covers the contract exhaustively.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "common/host_alloc.h"
#include "simdev/sd_internal.h"
#include "simpler/simdev.h"

#if defined(__SANITIZE_ADDRESS__)
#define SMOKE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SMOKE_ASAN 1
#endif
#endif
#ifdef SMOKE_ASAN
#include <sanitizer/asan_interface.h>
#endif

static int setup(void **state)
{
    (void)state;
    simdev_config config;
    simdev_config_default(&config);
    config.hbm_bytes = 16u << 20;
    config.device_count = 1;
    return simdev_configure(&config) == SIMDEV_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

struct add_args {
    uint32_t *dst;
    uint32_t count;
    uint32_t add;
};

/* Adds `add` to every word; blocks split the words between them. */
static void add_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    const struct add_args *a = args;
    for (uint32_t i = block_idx; i < a->count; i += block_dim)
        a->dst[i] += a->add;
}

static void read_words(const uint32_t *dev, uint32_t *host, size_t count)
{
    assert_int_equal(simdev_memcpy(host, dev, count * sizeof(*host)), SIMDEV_SUCCESS);
}

static void smoke_malloc_is_aligned_and_free_returns_committed_bytes(void **state)
{
    (void)state;
    void *a = NULL, *b = NULL;
    assert_int_equal(simdev_malloc(&a, 100), SIMDEV_SUCCESS);
    assert_int_equal(simdev_malloc(&b, 3000), SIMDEV_SUCCESS);
    assert_int_equal((uintptr_t)a % SIMDEV_ALLOC_ALIGN, 0);
    assert_int_equal((uintptr_t)b % SIMDEV_ALLOC_ALIGN, 0);
    assert_ptr_equal((uint8_t *)a + 1024, b);
    simdev_mem_info info;
    assert_int_equal(simdev_get_mem_info(0, &info), SIMDEV_SUCCESS);
    assert_int_equal(info.committed_bytes, 1024 + 3072);
    assert_int_equal(info.live_allocations, 2);
    assert_int_equal(simdev_free(a), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(a), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_free((uint8_t *)b + 8), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_free(b), SIMDEV_SUCCESS);
    assert_int_equal(simdev_get_mem_info(0, &info), SIMDEV_SUCCESS);
    assert_int_equal(info.committed_bytes, 0);
    assert_int_equal(info.high_water_bytes, 1024 + 3072);
    /* Coalesced: the first fit is the region's base again. */
    void *c = NULL;
    assert_int_equal(simdev_malloc(&c, 4096), SIMDEV_SUCCESS);
    assert_ptr_equal(c, a);
    assert_int_equal(simdev_free(c), SIMDEV_SUCCESS);
}

static void smoke_fresh_allocation_reads_debug_fill(void **state)
{
    (void)state;
    uint8_t *dev = NULL, host[64];
    assert_int_equal(simdev_malloc((void **)&dev, sizeof(host)), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy(host, dev, sizeof(host)), SIMDEV_SUCCESS);
    for (size_t i = 0; i < sizeof(host); i++)
        assert_int_equal(host[i], 0xA5);
    assert_int_equal(simdev_free(dev), SIMDEV_SUCCESS);
}

/* White-box on the heap itself: freed bytes are poisoned under ASan (a
 * stale device pointer faults at once) and otherwise hold the 0xDD fill. */
static void heap_freed_bytes_are_poisoned_or_filled(void **state)
{
    (void)state;
    struct sd_heap heap;
    uint8_t *p = NULL;
    assert_int_equal(sd_heap_init(&heap, 1u << 20, 1), 0);
    assert_int_equal(sd_heap_alloc(&heap, 100, (void **)&p), 0);
    assert_int_equal(sd_heap_contains(&heap, p, 100), 1);
    assert_int_equal(sd_heap_contains(&heap, p, 101), 0);
    assert_int_equal(sd_heap_free(&heap, p), 0);
    assert_int_equal(sd_heap_contains(&heap, p, 1), 0);
#ifdef SMOKE_ASAN
    assert_int_equal(__asan_address_is_poisoned(p), 1);
    assert_int_equal(__asan_address_is_poisoned(p + 99), 1);
#else
    assert_int_equal(p[0], 0xDD);
    assert_int_equal(p[99], 0xDD);
#endif
    sd_heap_deinit(&heap);
}

static void smoke_kernel_on_stream_sees_its_copied_args(void **state)
{
    (void)state;
    enum { WORDS = 100 };
    uint32_t *dev = NULL, host[WORDS];
    simdev_stream_t stream = NULL;
    assert_int_equal(simdev_malloc((void **)&dev, sizeof(host)), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset_async(dev, 0, sizeof(host), stream), SIMDEV_SUCCESS);
    struct add_args args = {dev, WORDS, 5};
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICORE, add_kernel, 20, &args, sizeof(args)),
                     SIMDEV_SUCCESS);
    args.add = 1000;  /* copied at enqueue: the queued launch keeps 5 */
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    read_words(dev, host, WORDS);
    for (int i = 0; i < WORDS; i++)
        assert_int_equal(host[i], 5);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(dev), SIMDEV_SUCCESS);
}

/* origin adds 1, side (forked) adds 10 to another buffer, origin joins. */
static void smoke_capture_replays_both_lanes_each_launch(void **state)
{
    (void)state;
    uint32_t *x = NULL, *y = NULL, host[4];
    simdev_stream_t origin = NULL, side = NULL;
    simdev_event_t fork = NULL, join = NULL;
    assert_int_equal(simdev_malloc((void **)&x, 16), SIMDEV_SUCCESS);
    assert_int_equal(simdev_malloc((void **)&y, 16), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset(x, 0, 16), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset(y, 0, 16), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_create(&origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_create(&side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_create(&fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_create(&join), SIMDEV_SUCCESS);
    assert_int_equal(simdev_capture_begin(origin, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    struct add_args ax = {x, 4, 1}, ay = {y, 4, 10};
    assert_int_equal(simdev_launch_kernel(origin, SIMDEV_ENGINE_AICORE, add_kernel, 2, &ax, sizeof(ax)), 0);
    assert_int_equal(simdev_event_record(fork, origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(side, fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(side, SIMDEV_ENGINE_AICPU, add_kernel, 1, &ay, sizeof(ay)), 0);
    assert_int_equal(simdev_event_record(join, side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(origin, join), SIMDEV_SUCCESS);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(origin, &graph), SIMDEV_SUCCESS);
    size_t nodes = 0;
    assert_int_equal(simdev_graph_node_count(graph, &nodes), SIMDEV_SUCCESS);
    assert_int_equal(nodes, 2);
    read_words(x, host, 4);
    assert_int_equal(host[0], 0);  /* captured, not run */
    for (int i = 0; i < 3; i++)
        assert_int_equal(simdev_graph_launch(graph, origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(origin), SIMDEV_SUCCESS);
    read_words(x, host, 4);
    assert_int_equal(host[3], 3);
    read_words(y, host, 4);
    assert_int_equal(host[3], 30);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(join), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(x), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(y), SIMDEV_SUCCESS);
}

static void noop_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    (void)args;
}

/* Three times the op ring, so the ring wraps and enqueue waits for room. */
static void smoke_steady_state_enqueue_allocates_nothing(void **state)
{
    (void)state;
    simdev_stream_t stream = NULL;
    simdev_event_t event = NULL;
    uint8_t args[200] = {0};
    assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_create(&event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, noop_kernel, 1, args, sizeof(args)), 0);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    uint64_t before = host_alloc_count();
    for (int i = 0; i < 3 * SIMDEV_STREAM_RING_OPS; i++) {
        assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, noop_kernel, 2, args, sizeof(args)), 0);
        if (i % 64 == 0)
            assert_int_equal(simdev_event_record(event, stream), SIMDEV_SUCCESS);
    }
    assert_int_equal(host_alloc_count(), before);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_query(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(event), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

/* Adds the last argument byte of a largest launch to the counter its first
 * bytes point at. */
static void ends_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    const uint8_t *bytes = args;
    atomic_uint *sum = *(atomic_uint *const *)args;
    atomic_fetch_add(sum, bytes[SIMDEV_KERNEL_ARGS_MAX - 1]);
}

/* Small launches push the argument ring off its start, so the largest
 * launches after them wrap; each must still arrive whole. */
static void smoke_largest_arguments_arrive_whole_across_ring_wrap(void **state)
{
    (void)state;
    simdev_stream_t stream = NULL;
    static atomic_uint sum;
    atomic_uint *sum_ptr = &sum;
    atomic_store(&sum, 0);
    uint8_t *args = calloc(1, SIMDEV_KERNEL_ARGS_MAX);
    assert_non_null(args);
    memcpy(args, &sum_ptr, sizeof(sum_ptr));
    args[SIMDEV_KERNEL_ARGS_MAX - 1] = 7;
    assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, noop_kernel, 1, args, 100), 0);
        assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, ends_kernel, 1, args,
                                              SIMDEV_KERNEL_ARGS_MAX), 0);
    }
    free(args);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&sum), 3 * 7);
}

/* Large argument blocks (the streaming ring copy's sizes: 32 KiB and up,
 * any tail past the last 64-byte block) arrive byte for byte. The first
 * words name the mismatch counter and the size; the rest is a pattern. */
typedef struct pattern_head {
    atomic_uint *bad;
    uint64_t bytes;
} pattern_head;

static uint8_t pattern_byte(size_t i)
{
    return (uint8_t)(i * 31u + 7u + (i >> 8));
}

static void pattern_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx;
    (void)block_dim;
    const pattern_head *h = args;
    const uint8_t *bytes = args;
    unsigned bad = 0;
    for (size_t i = sizeof(*h); i < h->bytes; i++)
        bad += bytes[i] != pattern_byte(i);
    atomic_fetch_add(h->bad, bad);
}

static void smoke_large_arguments_arrive_byte_for_byte(void **state)
{
    (void)state;
    static const size_t sizes[] = {32u << 10, (32u << 10) + 1, (96u << 10) + 17, (100u << 10) + 63, 200000};
    simdev_stream_t stream = NULL;
    static atomic_uint bad;
    atomic_store(&bad, 0);
    uint8_t *args = malloc(200000 + 1);
    assert_non_null(args);
    assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
    for (int round = 0; round < 3; round++)
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            /* From an odd source address too: the copy's loads assume no alignment. */
            uint8_t *src = args + (round == 1);
            pattern_head h = {&bad, sizes[k]};
            for (size_t i = 0; i < sizes[k]; i++)
                src[i] = pattern_byte(i);
            memcpy(src, &h, sizeof(h));
            assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, pattern_kernel, 1, src, sizes[k]), 0);
            assert_int_equal(simdev_launch_kernel(stream, SIMDEV_ENGINE_AICPU, noop_kernel, 1, src, 100), 0);
        }
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
    free(args);
    assert_int_equal(atomic_load(&bad), 0);
}

/* One fork/join capture with a kernel per lane; returns the first failing
 * status, ending (or abandoning) the capture so the streams are free. */
static int capture_once(simdev_stream_t origin, simdev_stream_t side, simdev_event_t fork, simdev_event_t join)
{
    uint8_t args[32] = {0};
    int rc = simdev_capture_begin(origin, SIMDEV_CAPTURE_MODE_GLOBAL);
    if (rc != SIMDEV_SUCCESS)
        return rc;
    int steps[6];
    steps[0] = simdev_launch_kernel(origin, SIMDEV_ENGINE_AICPU, noop_kernel, 1, args, sizeof(args));
    steps[1] = simdev_event_record(fork, origin);
    steps[2] = simdev_stream_wait_event(side, fork);
    steps[3] = simdev_launch_kernel(side, SIMDEV_ENGINE_AICORE, noop_kernel, 2, args, sizeof(args));
    steps[4] = simdev_event_record(join, side);
    steps[5] = simdev_stream_wait_event(origin, join);
    simdev_graph_t graph = NULL;
    rc = simdev_capture_end(origin, &graph);
    if (rc == SIMDEV_ERROR_MEMORY_ALLOCATION)  /* nothing changed: retry */
        rc = simdev_capture_end(origin, &graph);
    /* A capture whose recording failed must not yield a graph. (A failed
     * fork only leaves the side stream out: its later work ran eagerly.) */
    if (rc == SIMDEV_SUCCESS) {
        assert_int_equal(steps[0], SIMDEV_SUCCESS);
        assert_int_equal(steps[1], SIMDEV_SUCCESS);
    }
    for (int i = 0; i < 6 && rc == SIMDEV_SUCCESS; i++)
        rc = steps[i];
    if (graph != NULL) {
        assert_int_equal(simdev_graph_launch(graph, origin), SIMDEV_SUCCESS);
        assert_int_equal(simdev_stream_synchronize(origin), SIMDEV_SUCCESS);
        assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    }
    return rc;
}

/* Fails host allocation k = 1, 2, ... inside a capture until it goes
 * through: every failure is MEMORY_ALLOCATION, an invalidated capture, or
 * an unjoined side stream (its fork failed), and leaves no capture. */
static void capture_host_allocation_failures_sweep_cleanly(void **state)
{
    (void)state;
    simdev_stream_t origin = NULL, side = NULL;
    simdev_event_t fork = NULL, join = NULL;
    assert_int_equal(simdev_stream_create(&origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_create(&side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_create(&fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_create(&join), SIMDEV_SUCCESS);
    int failures = 0;
    for (uint64_t k = 1; k < 200; k++) {
        host_alloc_fail_nth(k);
        int rc = capture_once(origin, side, fork, join);
        host_alloc_fail_nth(0);
        simdev_capture_status status = SIMDEV_CAPTURE_STATUS_ACTIVE;
        assert_int_equal(simdev_capture_get_info(origin, &status, NULL), SIMDEV_SUCCESS);
        assert_int_equal(status, SIMDEV_CAPTURE_STATUS_NONE);
        assert_int_equal(simdev_capture_get_info(side, &status, NULL), SIMDEV_SUCCESS);
        assert_int_equal(status, SIMDEV_CAPTURE_STATUS_NONE);
        if (rc == SIMDEV_SUCCESS)
            break;
        failures++;
        assert_true(rc == SIMDEV_ERROR_MEMORY_ALLOCATION || rc == SIMDEV_ERROR_STREAM_CAPTURE_INVALIDATED ||
                    rc == SIMDEV_ERROR_CAPTURE_DEPENDENCY);
    }
    assert_true(failures > 5);
    assert_int_equal(capture_once(origin, side, fork, join), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(join), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(origin), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(smoke_malloc_is_aligned_and_free_returns_committed_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(smoke_fresh_allocation_reads_debug_fill, setup, teardown),
        cmocka_unit_test(heap_freed_bytes_are_poisoned_or_filled),
        cmocka_unit_test_setup_teardown(smoke_kernel_on_stream_sees_its_copied_args, setup, teardown),
        cmocka_unit_test_setup_teardown(smoke_capture_replays_both_lanes_each_launch, setup, teardown),
        cmocka_unit_test_setup_teardown(smoke_steady_state_enqueue_allocates_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(smoke_largest_arguments_arrive_whole_across_ring_wrap, setup, teardown),
        cmocka_unit_test_setup_teardown(smoke_large_arguments_arrive_byte_for_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(capture_host_allocation_failures_sweep_cleanly, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
