/*
 * platform_ops — the one seam between the runtime and a device.
 *
 * The runtime never calls simdev_* directly: it holds a `platform_ops`
 * table and calls through it. The default table (platform_ops_simdev)
 * forwards to simdev; tests substitute their own tables (a fake allocator,
 * or the counting wrapper of platform_counter.h) to count calls and to fail
 * the k-th one. A real backend would be one more table.
 *
 * Every entry returns a device status code in simdev's numbering
 * (SIMDEV_SUCCESS = 0, SIMDEV_ERROR_* otherwise) and has the effect the
 * simdev function of the same name documents in <simpler/simdev.h>; a call
 * that fails has no effect. platform_status() (platform_status.h) turns a
 * device code into a PTO_RUNTIME_ERR_* status.
 *
 * Each entry receives the table's `user` pointer first, so a wrapper can
 * keep its state without globals. Handles are opaque to the runtime: a
 * platform_stream or platform_event is whatever the backend says it is
 * (for simdev, a simdev_stream_t / simdev_event_t).
 */
#ifndef SIMPLER_PLATFORM_OPS_H
#define SIMPLER_PLATFORM_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "platform/platform_limits.h"

typedef struct platform_stream platform_stream;

/* The most streams one streams_synchronize takes (simdev's bound). */
#define PLATFORM_STREAMS_SYNC_MAX 64u
typedef struct platform_event platform_event;

/* Same numbering as simdev_engine. */
enum { PLATFORM_ENGINE_AICPU = 0, PLATFORM_ENGINE_AICORE = 1 };

/* Same numbering as simdev_capture_status. */
enum {
    PLATFORM_CAPTURE_STATUS_NONE = 0,
    PLATFORM_CAPTURE_STATUS_ACTIVE = 1,
    PLATFORM_CAPTURE_STATUS_INVALIDATED = 2
};

/* A kernel body, as simdev_kernel_fn. */
typedef void (*platform_kernel_fn)(uint32_t block_idx, uint32_t block_dim, const void *args);

/* What the runtime needs to know about the device it runs on. */
typedef struct {
    uint32_t aic_cores;
    uint32_t aiv_cores;
    uint32_t aicpu_threads;
    uint32_t device_count;
    uint64_t hbm_bytes;
} platform_device_info;

typedef struct platform_ops {
    void *user; /* passed first to every entry; may be NULL */

    /* memory (current device) */
    int (*mem_alloc)(void *user, void **dev_ptr, size_t size);
    int (*mem_free)(void *user, void *dev_ptr);
    int (*memcpy_sync)(void *user, void *dst, const void *src, size_t size);
    int (*memset_sync)(void *user, void *dev_ptr, int value, size_t size);
    int (*memcpy_async)(void *user, void *dst, const void *src, size_t size, platform_stream *stream);
    int (*memset_async)(void *user, void *dev_ptr, int value, size_t size, platform_stream *stream);
    /* Copies `bytes` of device memory the device has already published
     * at dev_src to the host at host_dst now, with acquire ordering: no
     * stream, no synchronization, allowed during capture (simdev: device
     * memory is host memory). For polling words the device writes with
     * release stores (a status word, trace records). NULL dev_src or
     * host_dst with bytes > 0 is an invalid parameter. */
    int (*mem_peek)(void *user, void *host_dst, const void *dev_src, size_t bytes);
    /* Stores `value` into the 32-bit device word at dev_word now, with
     * release ordering, and wakes every device thread waiting on that
     * word: a doorbell write from the host, no stream, no
     * synchronization. The runtime uses it only to dismiss cores that a
     * half-enqueued chain left waiting (simdev: an atomic store and a
     * futex wake). A NULL or misaligned dev_word is an invalid
     * parameter. */
    int (*mem_signal)(void *user, void *dev_word, uint32_t value);

    /* streams */
    int (*stream_create)(void *user, platform_stream **stream);
    int (*stream_destroy)(void *user, platform_stream *stream);
    int (*stream_synchronize)(void *user, platform_stream *stream);
    /* As stream_synchronize on each of `count` streams (at most
     * PLATFORM_STREAMS_SYNC_MAX), in the order the backend finds cheapest;
     * returns the first failing code in list order, every stream waited
     * for (simdev: simdev_streams_synchronize). */
    int (*streams_synchronize)(void *user, platform_stream *const *streams, uint32_t count);
    int (*stream_query)(void *user, platform_stream *stream);
    int (*stream_wait_event)(void *user, platform_stream *stream, platform_event *event);

    /* events */
    int (*event_create)(void *user, platform_event **event);
    int (*event_destroy)(void *user, platform_event *event);
    int (*event_record)(void *user, platform_event *event, platform_stream *stream);
    int (*event_synchronize)(void *user, platform_event *event);
    int (*event_query)(void *user, platform_event *event);

    /* work; `engine` is a PLATFORM_ENGINE_* value, args copied at enqueue */
    int (*launch_kernel)(void *user, platform_stream *stream, int engine, platform_kernel_fn fn,
                         uint32_t block_dim, const void *args, size_t args_size);
    int (*launch_host_func)(void *user, platform_stream *stream, void (*fn)(void *), void *user_data);

    /* capture: *status is a PLATFORM_CAPTURE_STATUS_* value */
    int (*capture_get_info)(void *user, platform_stream *stream, int *status);

    /* devices */
    int (*set_device)(void *user, int device_id);
    int (*get_device)(void *user, int *device_id);
    int (*reset_device)(void *user, int device_id);
    int (*device_synchronize)(void *user);
    int (*device_info)(void *user, platform_device_info *out);
} platform_ops;

/* The default table: every entry forwards to the simdev function of the
 * same name (device_info reads simdev_get_config). A static object, valid
 * for the life of the process; user is NULL. */
const platform_ops *platform_ops_simdev(void);

#endif
