/* The default platform table: a thin forwarding layer over simdev. */
#define _GNU_SOURCE /* syscall() for the futex wake */
#include "platform/platform_ops.h"

#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <simpler/simdev.h>

#include "common/host_alloc.h"

/* Every simdev call runs in device scope, so host allocations simdev makes
 * on the caller's thread are not counted as the runtime's own. */
#define DEVICE_CALL(call) (host_alloc_device_scope_enter(), host_alloc_device_scope_leave(call))

_Static_assert(PLATFORM_ALLOC_ALIGN == SIMDEV_ALLOC_ALIGN, "platform alignment is simdev's");
_Static_assert(PLATFORM_KERNEL_ARGS_MAX == SIMDEV_KERNEL_ARGS_MAX, "kernel argument limit is simdev's");
_Static_assert(PLATFORM_ENGINE_THREADS_MAX == SIMDEV_MAX_ENGINE_THREADS, "engine pool limit is simdev's");
_Static_assert((int)PLATFORM_ENGINE_AICPU == (int)SIMDEV_ENGINE_AICPU, "engine numbering is simdev's");
_Static_assert((int)PLATFORM_ENGINE_AICORE == (int)SIMDEV_ENGINE_AICORE, "engine numbering is simdev's");
_Static_assert((int)PLATFORM_CAPTURE_STATUS_NONE == (int)SIMDEV_CAPTURE_STATUS_NONE, "capture numbering");
_Static_assert((int)PLATFORM_CAPTURE_STATUS_ACTIVE == (int)SIMDEV_CAPTURE_STATUS_ACTIVE, "capture numbering");
_Static_assert((int)PLATFORM_CAPTURE_STATUS_INVALIDATED == (int)SIMDEV_CAPTURE_STATUS_INVALIDATED,
               "capture numbering");

/* Opaque platform handles are simdev handles under another name. */
static simdev_stream_t sd_stream(platform_stream *stream)
{
    return (simdev_stream_t)(void *)stream;
}

static simdev_event_t sd_event(platform_event *event)
{
    return (simdev_event_t)(void *)event;
}

static int sd_mem_alloc(void *user, void **dev_ptr, size_t size)
{
    (void)user;
    return DEVICE_CALL(simdev_malloc(dev_ptr, size));
}

static int sd_mem_free(void *user, void *dev_ptr)
{
    (void)user;
    return DEVICE_CALL(simdev_free(dev_ptr));
}

static int sd_memcpy_sync(void *user, void *dst, const void *src, size_t size)
{
    (void)user;
    return DEVICE_CALL(simdev_memcpy(dst, src, size));
}

static int sd_memset_sync(void *user, void *dev_ptr, int value, size_t size)
{
    (void)user;
    return DEVICE_CALL(simdev_memset(dev_ptr, value, size));
}

static int sd_memcpy_async(void *user, void *dst, const void *src, size_t size, platform_stream *stream)
{
    (void)user;
    return DEVICE_CALL(simdev_memcpy_async(dst, src, size, sd_stream(stream)));
}

static int sd_memset_async(void *user, void *dev_ptr, int value, size_t size, platform_stream *stream)
{
    (void)user;
    return DEVICE_CALL(simdev_memset_async(dev_ptr, value, size, sd_stream(stream)));
}

/* simdev device memory is host memory: a peek is a copy with acquire
 * ordering, which pairs with the device's release stores. Aligned words
 * (64-bit when everything is 8-aligned, else 32-bit) are read with
 * atomic loads, since the device may be storing to them
 * (a status word) while the host peeks; anything else is a plain copy
 * after a fence. */
static int sd_mem_peek(void *user, void *host_dst, const void *dev_src, size_t bytes)
{
    (void)user;
    if (bytes == 0)
        return SIMDEV_SUCCESS;
    if (host_dst == NULL || dev_src == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    if ((((uintptr_t)dev_src | (uintptr_t)host_dst | bytes) & 7u) == 0) {
        /* 64-bit words (the gate's owner) are read whole, never torn. */
        const uint64_t *src = dev_src;
        uint64_t *dst = host_dst;
        for (size_t i = 0; i < bytes / 8; i++)
            dst[i] = __atomic_load_n(&src[i], __ATOMIC_ACQUIRE);
        return SIMDEV_SUCCESS;
    }
    if ((((uintptr_t)dev_src | (uintptr_t)host_dst | bytes) & 3u) == 0) {
        const uint32_t *src = dev_src;
        uint32_t *dst = host_dst;
        for (size_t i = 0; i < bytes / 4; i++)
            dst[i] = __atomic_load_n(&src[i], __ATOMIC_ACQUIRE);
        return SIMDEV_SUCCESS;
    }
    atomic_thread_fence(memory_order_acquire);
    memcpy(host_dst, dev_src, bytes);
    return SIMDEV_SUCCESS;
}

/* A doorbell: simdev's device threads wait on their words with futexes
 * (device/device_wait.c), so the store is followed by a wake of them
 * all. */
static int sd_mem_signal(void *user, void *dev_word, uint32_t value)
{
    (void)user;
    if (dev_word == NULL || ((uintptr_t)dev_word & 3u) != 0)
        return SIMDEV_ERROR_INVALID_PARAM;
    __atomic_store_n((uint32_t *)dev_word, value, __ATOMIC_RELEASE);
    syscall(SYS_futex, (uint32_t *)dev_word, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
    return SIMDEV_SUCCESS;
}

static int sd_stream_create(void *user, platform_stream **stream)
{
    simdev_stream_t created = NULL;
    int rc;

    (void)user;
    if (stream == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    rc = DEVICE_CALL(simdev_stream_create(&created));
    if (rc == SIMDEV_SUCCESS)
        *stream = (platform_stream *)(void *)created;
    return rc;
}

static int sd_stream_destroy(void *user, platform_stream *stream)
{
    (void)user;
    return DEVICE_CALL(simdev_stream_destroy(sd_stream(stream)));
}

static int sd_stream_synchronize(void *user, platform_stream *stream)
{
    (void)user;
    return DEVICE_CALL(simdev_stream_synchronize(sd_stream(stream)));
}

_Static_assert(PLATFORM_STREAMS_SYNC_MAX == SIMDEV_STREAMS_SYNC_MAX, "one bound for both");

static int sd_streams_synchronize(void *user, platform_stream *const *streams, uint32_t count)
{
    (void)user;
    simdev_stream_t each[SIMDEV_STREAMS_SYNC_MAX];
    for (uint32_t i = 0; streams != NULL && i < count && i < SIMDEV_STREAMS_SYNC_MAX; i++)
        each[i] = sd_stream(streams[i]);
    return DEVICE_CALL(simdev_streams_synchronize(streams != NULL ? each : NULL, count));
}

static int sd_stream_query(void *user, platform_stream *stream)
{
    (void)user;
    return DEVICE_CALL(simdev_stream_query(sd_stream(stream)));
}

static int sd_stream_wait_event(void *user, platform_stream *stream, platform_event *event)
{
    (void)user;
    return DEVICE_CALL(simdev_stream_wait_event(sd_stream(stream), sd_event(event)));
}

static int sd_event_create(void *user, platform_event **event)
{
    simdev_event_t created = NULL;
    int rc;

    (void)user;
    if (event == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    rc = DEVICE_CALL(simdev_event_create(&created));
    if (rc == SIMDEV_SUCCESS)
        *event = (platform_event *)(void *)created;
    return rc;
}

static int sd_event_destroy(void *user, platform_event *event)
{
    (void)user;
    return DEVICE_CALL(simdev_event_destroy(sd_event(event)));
}

static int sd_event_record(void *user, platform_event *event, platform_stream *stream)
{
    (void)user;
    return DEVICE_CALL(simdev_event_record(sd_event(event), sd_stream(stream)));
}

static int sd_event_synchronize(void *user, platform_event *event)
{
    (void)user;
    return DEVICE_CALL(simdev_event_synchronize(sd_event(event)));
}

static int sd_event_query(void *user, platform_event *event)
{
    (void)user;
    return DEVICE_CALL(simdev_event_query(sd_event(event)));
}

static int sd_launch_kernel(void *user, platform_stream *stream, int engine, platform_kernel_fn fn,
                            uint32_t block_dim, const void *args, size_t args_size)
{
    (void)user;
    if (engine != PLATFORM_ENGINE_AICPU && engine != PLATFORM_ENGINE_AICORE)
        return SIMDEV_ERROR_INVALID_PARAM;
    return DEVICE_CALL(simdev_launch_kernel(sd_stream(stream), (simdev_engine)engine, fn, block_dim, args, args_size));
}

static int sd_launch_host_func(void *user, platform_stream *stream, void (*fn)(void *), void *user_data)
{
    (void)user;
    return DEVICE_CALL(simdev_launch_host_func(sd_stream(stream), fn, user_data));
}

static int sd_capture_get_info(void *user, platform_stream *stream, int *status)
{
    simdev_capture_status got = SIMDEV_CAPTURE_STATUS_NONE;
    int rc;

    (void)user;
    if (status == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    rc = DEVICE_CALL(simdev_capture_get_info(sd_stream(stream), &got, NULL));
    if (rc == SIMDEV_SUCCESS)
        *status = (int)got;
    return rc;
}

static int sd_set_device(void *user, int device_id)
{
    (void)user;
    return DEVICE_CALL(simdev_set_device(device_id));
}

static int sd_get_device(void *user, int *device_id)
{
    (void)user;
    return DEVICE_CALL(simdev_get_device(device_id));
}

static int sd_reset_device(void *user, int device_id)
{
    (void)user;
    return DEVICE_CALL(simdev_reset_device(device_id));
}

static int sd_device_synchronize(void *user)
{
    (void)user;
    return DEVICE_CALL(simdev_device_synchronize());
}

static int sd_device_info(void *user, platform_device_info *out)
{
    simdev_config config;
    int rc;

    (void)user;
    if (out == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    rc = DEVICE_CALL(simdev_get_config(&config));
    if (rc != SIMDEV_SUCCESS)
        return rc;
    out->aic_cores = config.aic_cores;
    out->aiv_cores = config.aiv_cores;
    out->aicpu_threads = config.aicpu_threads;
    out->device_count = config.device_count;
    out->hbm_bytes = config.hbm_bytes;
    return SIMDEV_SUCCESS;
}

static const platform_ops simdev_table = {
    .user = NULL,
    .mem_alloc = sd_mem_alloc,
    .mem_free = sd_mem_free,
    .memcpy_sync = sd_memcpy_sync,
    .memset_sync = sd_memset_sync,
    .memcpy_async = sd_memcpy_async,
    .memset_async = sd_memset_async,
    .mem_peek = sd_mem_peek,
    .mem_signal = sd_mem_signal,
    .stream_create = sd_stream_create,
    .stream_destroy = sd_stream_destroy,
    .stream_synchronize = sd_stream_synchronize,
    .streams_synchronize = sd_streams_synchronize,
    .stream_query = sd_stream_query,
    .stream_wait_event = sd_stream_wait_event,
    .event_create = sd_event_create,
    .event_destroy = sd_event_destroy,
    .event_record = sd_event_record,
    .event_synchronize = sd_event_synchronize,
    .event_query = sd_event_query,
    .launch_kernel = sd_launch_kernel,
    .launch_host_func = sd_launch_host_func,
    .capture_get_info = sd_capture_get_info,
    .set_device = sd_set_device,
    .get_device = sd_get_device,
    .reset_device = sd_reset_device,
    .device_synchronize = sd_device_synchronize,
    .device_info = sd_device_info,
};

const platform_ops *platform_ops_simdev(void)
{
    return &simdev_table;
}
