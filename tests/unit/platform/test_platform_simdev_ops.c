/* The default platform table forwards to simdev: results, codes and
 * simdev's own counters all show the call went through. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "simdev_setup.h"
#include "support.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include <simpler/simdev.h>

#include "device/device_wait.h"
#include "platform/platform_ops.h"

static int setup(void **state)
{
    (void)state;
    return simdev_setup_configure(2, (uint64_t)16 << 20, 1, 2, 1);
}

static int teardown(void **state)
{
    (void)state;
    simdev_fault_clear();
    simdev_set_device(0);
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

static simdev_counters counters(void)
{
    simdev_counters c;
    assert_int_equal(simdev_get_counters(&c), SIMDEV_SUCCESS);
    return c;
}

static void platform_simdev_memory_entries_reach_simdev(void **state)
{
    const platform_ops *ops = platform_ops_simdev();
    simdev_counters before = counters();
    simdev_mem_info info;
    void *dev = NULL;
    unsigned char in[3000], out[3000];
    (void)state;

    assert_null(ops->user);
    assert_int_equal(ops->mem_alloc(ops->user, &dev, sizeof(in)), SIMDEV_SUCCESS);
    assert_non_null(dev);
    assert_int_equal((uintptr_t)dev % PLATFORM_ALLOC_ALIGN, 0);
    assert_int_equal(simdev_get_mem_info(0, &info), SIMDEV_SUCCESS);
    assert_int_equal(info.live_allocations, 1);

    for (size_t i = 0; i < sizeof(in); i++)
        in[i] = (unsigned char)(i * 7u);
    assert_int_equal(ops->memcpy_sync(ops->user, dev, in, sizeof(in)), SIMDEV_SUCCESS);
    assert_int_equal(ops->memset_sync(ops->user, (char *)dev + 100, 0x5A, 10), SIMDEV_SUCCESS);
    assert_int_equal(ops->memcpy_sync(ops->user, out, dev, sizeof(out)), SIMDEV_SUCCESS);
    memset(in + 100, 0x5A, 10);
    assert_memory_equal(in, out, sizeof(in));

    /* simdev's own codes come back unchanged. */
    assert_int_equal(ops->mem_free(ops->user, (char *)dev + 1024), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(ops->mem_free(ops->user, dev), SIMDEV_SUCCESS);
    assert_int_equal(simdev_get_mem_info(0, &info), SIMDEV_SUCCESS);
    assert_int_equal(info.live_allocations, 0);

    simdev_counters after = counters();
    assert_int_equal(after.malloc_calls - before.malloc_calls, 1);
    assert_int_equal(after.free_calls - before.free_calls, 2);
    assert_int_equal(after.memcpy_sync_calls - before.memcpy_sync_calls, 2);
    assert_int_equal(after.memset_calls - before.memset_calls, 1);
}

static atomic_uint kernel_blocks;
static atomic_uint kernel_arg;
static atomic_int host_func_ran;

static void count_blocks(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_idx, (void)block_dim;
    uint32_t value;
    memcpy(&value, args, sizeof(value));
    atomic_fetch_add(&kernel_blocks, 1);
    atomic_store(&kernel_arg, value);
}

static void mark_host_func(void *user_data)
{
    atomic_store(&host_func_ran, *(int *)user_data);
}

static void platform_simdev_stream_entries_enqueue_in_order(void **state)
{
    const platform_ops *ops = platform_ops_simdev();
    platform_stream *stream = NULL;
    platform_stream *other = NULL;
    platform_event *event = NULL;
    void *dev = NULL;
    uint32_t value = 42;
    uint32_t host[256];
    static int mark = 7;
    simdev_counters before = counters();
    (void)state;
    atomic_store(&kernel_blocks, 0);
    atomic_store(&host_func_ran, 0);

    assert_int_equal(ops->stream_create(ops->user, &stream), SIMDEV_SUCCESS);
    assert_int_equal(ops->stream_create(ops->user, &other), SIMDEV_SUCCESS);
    assert_int_equal(ops->event_create(ops->user, &event), SIMDEV_SUCCESS);
    assert_int_equal(ops->mem_alloc(ops->user, &dev, sizeof(host)), SIMDEV_SUCCESS);

    assert_int_equal(ops->memset_async(ops->user, dev, 0, sizeof(host), stream), SIMDEV_SUCCESS);
    assert_int_equal(ops->memcpy_async(ops->user, dev, &value, sizeof(value), stream), SIMDEV_SUCCESS);
    /* memcpy_async reads `value` when it runs; the launch instead copies
     * its argument bytes at enqueue, so `arg` may change at once. */
    uint32_t arg = 9;
    assert_int_equal(ops->launch_kernel(ops->user, stream, PLATFORM_ENGINE_AICPU, count_blocks, 3, &arg, sizeof(arg)),
                     SIMDEV_SUCCESS);
    arg = 0;
    assert_int_equal(ops->launch_host_func(ops->user, stream, mark_host_func, &mark), SIMDEV_SUCCESS);
    assert_int_equal(ops->event_record(ops->user, event, stream), SIMDEV_SUCCESS);
    assert_int_equal(ops->stream_wait_event(ops->user, other, event), SIMDEV_SUCCESS);
    assert_int_equal(ops->stream_synchronize(ops->user, other), SIMDEV_SUCCESS);
    assert_int_equal(ops->event_synchronize(ops->user, event), SIMDEV_SUCCESS);
    assert_int_equal(ops->event_query(ops->user, event), SIMDEV_SUCCESS);
    assert_int_equal(ops->stream_synchronize(ops->user, stream), SIMDEV_SUCCESS);
    assert_int_equal(ops->stream_query(ops->user, stream), SIMDEV_SUCCESS);
    assert_int_equal(ops->device_synchronize(ops->user), SIMDEV_SUCCESS);

    assert_int_equal(atomic_load(&kernel_blocks), 3);
    assert_int_equal(atomic_load(&kernel_arg), 9);
    assert_int_equal(atomic_load(&host_func_ran), 7);
    assert_int_equal(ops->memcpy_sync(ops->user, host, dev, sizeof(host)), SIMDEV_SUCCESS);
    assert_int_equal(host[0], 42);
    assert_int_equal(host[1], 0);

    /* An engine outside the platform's numbering never reaches simdev. */
    assert_int_equal(ops->launch_kernel(ops->user, stream, 2, count_blocks, 1, NULL, 0), SIMDEV_ERROR_INVALID_PARAM);

    assert_int_equal(ops->mem_free(ops->user, dev), SIMDEV_SUCCESS);
    assert_int_equal(ops->event_destroy(ops->user, event), SIMDEV_SUCCESS);
    assert_int_equal(ops->stream_destroy(ops->user, other), SIMDEV_SUCCESS);
    assert_int_equal(ops->stream_destroy(ops->user, stream), SIMDEV_SUCCESS);

    simdev_counters after = counters();
    assert_int_equal(after.stream_create_calls - before.stream_create_calls, 2);
    assert_int_equal(after.event_create_calls - before.event_create_calls, 1);
    assert_int_equal(after.kernel_launches - before.kernel_launches, 1);
    assert_int_equal(after.host_func_calls - before.host_func_calls, 1);
    assert_int_equal(after.event_record_calls - before.event_record_calls, 1);
    assert_int_equal(after.event_wait_calls - before.event_wait_calls, 1);
    assert_int_equal(after.memcpy_async_calls - before.memcpy_async_calls, 1);
}

static void platform_simdev_capture_get_info_reports_status(void **state)
{
    const platform_ops *ops = platform_ops_simdev();
    platform_stream *stream = NULL;
    simdev_graph_t graph = NULL;
    int status = -1;
    (void)state;

    assert_int_equal(ops->stream_create(ops->user, &stream), SIMDEV_SUCCESS);
    assert_int_equal(ops->capture_get_info(ops->user, stream, &status), SIMDEV_SUCCESS);
    assert_int_equal(status, PLATFORM_CAPTURE_STATUS_NONE);

    assert_int_equal(simdev_capture_begin((simdev_stream_t)(void *)stream, SIMDEV_CAPTURE_MODE_RELAXED),
                     SIMDEV_SUCCESS);
    assert_int_equal(ops->capture_get_info(ops->user, stream, &status), SIMDEV_SUCCESS);
    assert_int_equal(status, PLATFORM_CAPTURE_STATUS_ACTIVE);
    /* The refusals simdev measures reach the caller unchanged. */
    assert_int_equal(ops->stream_synchronize(ops->user, stream), SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(simdev_capture_end((simdev_stream_t)(void *)stream, &graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);

    assert_int_equal(ops->capture_get_info(ops->user, stream, NULL), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(ops->stream_destroy(ops->user, stream), SIMDEV_SUCCESS);
}

static void publish_word(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    _Atomic uint32_t *word;
    (void)block_idx, (void)block_dim;
    memcpy(&word, args, sizeof(word));
    atomic_store_explicit(word, 0xC0FFEEu, memory_order_release);
}

static void platform_simdev_mem_peek_reads_published_memory_without_a_call(void **state)
{
    const platform_ops *ops = platform_ops_simdev();
    platform_stream *stream = NULL;
    simdev_graph_t graph = NULL;
    void *dev = NULL;
    uint32_t seen = 0;
    unsigned char in[256], out[256];
    int status = -1;
    (void)state;

    assert_int_equal(ops->mem_alloc(ops->user, &dev, 4096), SIMDEV_SUCCESS);
    assert_int_equal(ops->stream_create(ops->user, &stream), SIMDEV_SUCCESS);
    for (size_t i = 0; i < sizeof(in); i++)
        in[i] = (unsigned char)(i * 3u + 1u);
    assert_int_equal(ops->memcpy_sync(ops->user, (char *)dev + 64, in, sizeof(in)), SIMDEV_SUCCESS);
    assert_int_equal(ops->launch_kernel(ops->user, stream, PLATFORM_ENGINE_AICPU, publish_word, 1, &dev,
                                        sizeof(dev)),
                     SIMDEV_SUCCESS);
    assert_int_equal(ops->stream_synchronize(ops->user, stream), SIMDEV_SUCCESS);

    /* While the stream captures, a peek still reads now, and enqueues
     * nothing: neither the capture nor simdev's copy counters see it. */
    simdev_counters before = counters();
    assert_int_equal(simdev_capture_begin((simdev_stream_t)(void *)stream, SIMDEV_CAPTURE_MODE_GLOBAL),
                     SIMDEV_SUCCESS);
    assert_int_equal(ops->mem_peek(ops->user, &seen, dev, sizeof(seen)), SIMDEV_SUCCESS);
    assert_int_equal(seen, 0xC0FFEEu);
    assert_int_equal(ops->mem_peek(ops->user, out, (char *)dev + 64, sizeof(out)), SIMDEV_SUCCESS);
    assert_memory_equal(in, out, sizeof(in));
    assert_int_equal(ops->capture_get_info(ops->user, stream, &status), SIMDEV_SUCCESS);
    assert_int_equal(status, PLATFORM_CAPTURE_STATUS_ACTIVE);
    assert_int_equal(simdev_capture_end((simdev_stream_t)(void *)stream, &graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    simdev_counters after = counters();
    assert_int_equal(after.memcpy_sync_calls, before.memcpy_sync_calls);
    assert_int_equal(after.memcpy_async_calls, before.memcpy_async_calls);

    /* Zero bytes is a no-op whatever the pointers; NULL with bytes is not. */
    assert_int_equal(ops->mem_peek(ops->user, NULL, NULL, 0), SIMDEV_SUCCESS);
    assert_int_equal(ops->mem_peek(ops->user, NULL, dev, 4), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(ops->mem_peek(ops->user, &seen, NULL, 4), SIMDEV_ERROR_INVALID_PARAM);

    assert_int_equal(ops->stream_destroy(ops->user, stream), SIMDEV_SUCCESS);
    assert_int_equal(ops->mem_free(ops->user, dev), SIMDEV_SUCCESS);
}

/* A device kernel blocked on a word (as a core waits on its bell) until
 * the host's doorbell changes it, then reports what it saw. */
static void wait_for_word(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    _Atomic uint32_t *word;
    (void)block_idx, (void)block_dim;
    memcpy(&word, args, sizeof(word));
    atomic_store_explicit(&word[1], 1u, memory_order_release); /* waiting */
    while (atomic_load_explicit(&word[0], memory_order_acquire) == 0)
        device_wait_block(&word[0], 0);
    atomic_store_explicit(&word[2], atomic_load(&word[0]), memory_order_release);
}

static void platform_simdev_mem_signal_stores_and_wakes_a_blocked_waiter(void **state)
{
    const platform_ops *ops = platform_ops_simdev();
    platform_stream *stream = NULL;
    void *dev = NULL;
    uint32_t seen = 0;
    (void)state;

    assert_int_equal(ops->mem_alloc(ops->user, &dev, 4096), SIMDEV_SUCCESS);
    assert_int_equal(ops->memset_sync(ops->user, dev, 0, 64), SIMDEV_SUCCESS);
    assert_int_equal(ops->stream_create(ops->user, &stream), SIMDEV_SUCCESS);
    assert_int_equal(ops->launch_kernel(ops->user, stream, PLATFORM_ENGINE_AICPU, wait_for_word, 1, &dev,
                                        sizeof(dev)),
                     SIMDEV_SUCCESS);
    /* Let the kernel reach its wait, then ring: it must wake and see the
     * stored value (a store without the wake would leave it blocked). */
    do {
        assert_int_equal(ops->mem_peek(ops->user, &seen, (char *)dev + 4, sizeof(seen)), SIMDEV_SUCCESS);
    } while (seen == 0);
    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    simdev_counters before = counters();
    assert_int_equal(ops->mem_signal(ops->user, dev, 0xBE11u), SIMDEV_SUCCESS);
    assert_int_equal(ops->stream_synchronize(ops->user, stream), SIMDEV_SUCCESS);
    assert_int_equal(ops->mem_peek(ops->user, &seen, (char *)dev + 8, sizeof(seen)), SIMDEV_SUCCESS);
    assert_int_equal(seen, 0xBE11u);
    simdev_counters after = counters();
    assert_int_equal(after.memcpy_sync_calls, before.memcpy_sync_calls);
    assert_int_equal(after.memset_calls, before.memset_calls);

    assert_int_equal(ops->mem_signal(ops->user, NULL, 1), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(ops->mem_signal(ops->user, (char *)dev + 2, 1), SIMDEV_ERROR_INVALID_PARAM);

    assert_int_equal(ops->stream_destroy(ops->user, stream), SIMDEV_SUCCESS);
    assert_int_equal(ops->mem_free(ops->user, dev), SIMDEV_SUCCESS);
}

static void platform_simdev_device_entries_follow_simdev(void **state)
{
    const platform_ops *ops = platform_ops_simdev();
    platform_device_info info;
    simdev_config config;
    int device = -1;
    (void)state;

    assert_int_equal(simdev_get_config(&config), SIMDEV_SUCCESS);
    assert_int_equal(ops->device_info(ops->user, &info), SIMDEV_SUCCESS);
    assert_int_equal(info.aic_cores, config.aic_cores);
    assert_int_equal(info.aiv_cores, config.aiv_cores);
    assert_int_equal(info.aicpu_threads, config.aicpu_threads);
    assert_int_equal(info.device_count, config.device_count);
    assert_int_equal(info.hbm_bytes, config.hbm_bytes);
    assert_int_equal(info.aic_cores, 1);
    assert_int_equal(info.aiv_cores, 2);
    assert_int_equal(ops->device_info(ops->user, NULL), SIMDEV_ERROR_INVALID_PARAM);

    assert_int_equal(ops->set_device(ops->user, 1), SIMDEV_SUCCESS);
    assert_int_equal(ops->get_device(ops->user, &device), SIMDEV_SUCCESS);
    assert_int_equal(device, 1);
    assert_int_equal(ops->set_device(ops->user, 2), SIMDEV_ERROR_INVALID_DEVICE);
    assert_int_equal(ops->get_device(ops->user, &device), SIMDEV_SUCCESS);
    assert_int_equal(device, 1);

    void *dev = NULL;
    simdev_mem_info mem;
    assert_int_equal(ops->mem_alloc(ops->user, &dev, 4096), SIMDEV_SUCCESS);
    assert_int_equal(simdev_get_mem_info(1, &mem), SIMDEV_SUCCESS);
    assert_int_equal(mem.live_allocations, 1);
    assert_int_equal(ops->reset_device(ops->user, 1), SIMDEV_SUCCESS);
    assert_int_equal(simdev_get_mem_info(1, &mem), SIMDEV_SUCCESS);
    assert_int_equal(mem.live_allocations, 0);
    assert_int_equal(ops->set_device(ops->user, 0), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(platform_simdev_memory_entries_reach_simdev, setup, teardown),
        cmocka_unit_test_setup_teardown(platform_simdev_stream_entries_enqueue_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(platform_simdev_capture_get_info_reports_status, setup, teardown),
        cmocka_unit_test_setup_teardown(platform_simdev_mem_peek_reads_published_memory_without_a_call, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(platform_simdev_mem_signal_stores_and_wakes_a_blocked_waiter, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(platform_simdev_device_entries_follow_simdev, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
