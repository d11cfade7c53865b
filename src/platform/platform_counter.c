/* The counting, fault-injecting platform wrapper. */
#include "platform/platform_counter.h"

#include <stddef.h>

/* Every function entry of platform_ops has a PLATFORM_CALL_* value: an
 * entry added to the table without one stops the build here. */
_Static_assert(sizeof(platform_ops) == sizeof(void *) + (PLATFORM_CALL_COUNT - 1) * sizeof(int (*)(void *)),
               "one PLATFORM_CALL_* value per platform_ops entry");

static const char *const call_names[PLATFORM_CALL_COUNT] = {
    "any",
    "mem_alloc", "mem_free", "memcpy_sync", "memset_sync", "memcpy_async", "memset_async", "mem_peek", "mem_signal",
    "stream_create", "stream_destroy", "stream_synchronize", "streams_synchronize",
    "stream_query", "stream_wait_event",
    "event_create", "event_destroy", "event_record", "event_synchronize", "event_query",
    "launch_kernel", "launch_host_func",
    "capture_get_info",
    "set_device", "get_device", "reset_device", "device_synchronize", "device_info",
};

/* Counts one call to `call` and returns the injected code when the arming
 * selects this call, else 0. The arming fires once: the compare-exchange
 * disarms it, so two threads cannot both take the same fault. */
static int enter(platform_counter *c, int call)
{
    uint64_t own = atomic_fetch_add(&c->calls[call], 1) + 1;
    uint64_t total = atomic_fetch_add(&c->calls[PLATFORM_CALL_ANY], 1) + 1;
    int armed = atomic_load(&c->fail_call);
    uint64_t at = atomic_load(&c->fail_at);
    uint64_t seen;

    if (at == 0 || (armed != PLATFORM_CALL_ANY && armed != call))
        return 0;
    seen = armed == PLATFORM_CALL_ANY ? total : own;
    if (seen != at || !atomic_compare_exchange_strong(&c->fail_at, &at, 0))
        return 0;
    atomic_fetch_add(&c->injected, 1);
    return atomic_load(&c->fail_code);
}

static int c_mem_alloc(void *user, void **dev_ptr, size_t size)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_MEM_ALLOC);
    return rc != 0 ? rc : c->inner->mem_alloc(c->inner->user, dev_ptr, size);
}

static int c_mem_free(void *user, void *dev_ptr)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_MEM_FREE);
    return rc != 0 ? rc : c->inner->mem_free(c->inner->user, dev_ptr);
}

static int c_memcpy_sync(void *user, void *dst, const void *src, size_t size)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_MEMCPY_SYNC);
    return rc != 0 ? rc : c->inner->memcpy_sync(c->inner->user, dst, src, size);
}

static int c_memset_sync(void *user, void *dev_ptr, int value, size_t size)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_MEMSET_SYNC);
    return rc != 0 ? rc : c->inner->memset_sync(c->inner->user, dev_ptr, value, size);
}

static int c_memcpy_async(void *user, void *dst, const void *src, size_t size, platform_stream *stream)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_MEMCPY_ASYNC);
    return rc != 0 ? rc : c->inner->memcpy_async(c->inner->user, dst, src, size, stream);
}

static int c_memset_async(void *user, void *dev_ptr, int value, size_t size, platform_stream *stream)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_MEMSET_ASYNC);
    return rc != 0 ? rc : c->inner->memset_async(c->inner->user, dev_ptr, value, size, stream);
}

static int c_mem_peek(void *user, void *host_dst, const void *dev_src, size_t bytes)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_MEM_PEEK);
    return rc != 0 ? rc : c->inner->mem_peek(c->inner->user, host_dst, dev_src, bytes);
}

static int c_mem_signal(void *user, void *dev_word, uint32_t value)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_MEM_SIGNAL);
    return rc != 0 ? rc : c->inner->mem_signal(c->inner->user, dev_word, value);
}

static int c_stream_create(void *user, platform_stream **stream)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_STREAM_CREATE);
    return rc != 0 ? rc : c->inner->stream_create(c->inner->user, stream);
}

static int c_stream_destroy(void *user, platform_stream *stream)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_STREAM_DESTROY);
    return rc != 0 ? rc : c->inner->stream_destroy(c->inner->user, stream);
}

static int c_stream_synchronize(void *user, platform_stream *stream)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_STREAM_SYNCHRONIZE);
    return rc != 0 ? rc : c->inner->stream_synchronize(c->inner->user, stream);
}

static int c_streams_synchronize(void *user, platform_stream *const *streams, uint32_t count)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_STREAMS_SYNCHRONIZE);
    return rc != 0 ? rc : c->inner->streams_synchronize(c->inner->user, streams, count);
}

static int c_stream_query(void *user, platform_stream *stream)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_STREAM_QUERY);
    return rc != 0 ? rc : c->inner->stream_query(c->inner->user, stream);
}

static int c_stream_wait_event(void *user, platform_stream *stream, platform_event *event)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_STREAM_WAIT_EVENT);
    return rc != 0 ? rc : c->inner->stream_wait_event(c->inner->user, stream, event);
}

static int c_event_create(void *user, platform_event **event)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_EVENT_CREATE);
    return rc != 0 ? rc : c->inner->event_create(c->inner->user, event);
}

static int c_event_destroy(void *user, platform_event *event)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_EVENT_DESTROY);
    return rc != 0 ? rc : c->inner->event_destroy(c->inner->user, event);
}

static int c_event_record(void *user, platform_event *event, platform_stream *stream)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_EVENT_RECORD);
    return rc != 0 ? rc : c->inner->event_record(c->inner->user, event, stream);
}

static int c_event_synchronize(void *user, platform_event *event)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_EVENT_SYNCHRONIZE);
    return rc != 0 ? rc : c->inner->event_synchronize(c->inner->user, event);
}

static int c_event_query(void *user, platform_event *event)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_EVENT_QUERY);
    return rc != 0 ? rc : c->inner->event_query(c->inner->user, event);
}

static int c_launch_kernel(void *user, platform_stream *stream, int engine, platform_kernel_fn fn,
                           uint32_t block_dim, const void *args, size_t args_size)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_LAUNCH_KERNEL);
    return rc != 0 ? rc : c->inner->launch_kernel(c->inner->user, stream, engine, fn, block_dim, args, args_size);
}

static int c_launch_host_func(void *user, platform_stream *stream, void (*fn)(void *), void *user_data)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_LAUNCH_HOST_FUNC);
    return rc != 0 ? rc : c->inner->launch_host_func(c->inner->user, stream, fn, user_data);
}

static int c_capture_get_info(void *user, platform_stream *stream, int *status)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_CAPTURE_GET_INFO);
    return rc != 0 ? rc : c->inner->capture_get_info(c->inner->user, stream, status);
}

static int c_set_device(void *user, int device_id)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_SET_DEVICE);
    return rc != 0 ? rc : c->inner->set_device(c->inner->user, device_id);
}

static int c_get_device(void *user, int *device_id)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_GET_DEVICE);
    return rc != 0 ? rc : c->inner->get_device(c->inner->user, device_id);
}

static int c_reset_device(void *user, int device_id)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_RESET_DEVICE);
    return rc != 0 ? rc : c->inner->reset_device(c->inner->user, device_id);
}

static int c_device_synchronize(void *user)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_DEVICE_SYNCHRONIZE);
    return rc != 0 ? rc : c->inner->device_synchronize(c->inner->user);
}

static int c_device_info(void *user, platform_device_info *out)
{
    platform_counter *c = user;
    int rc = enter(c, PLATFORM_CALL_DEVICE_INFO);
    return rc != 0 ? rc : c->inner->device_info(c->inner->user, out);
}

static const platform_ops counting_template = {
    .user = NULL,
    .mem_alloc = c_mem_alloc,
    .mem_free = c_mem_free,
    .memcpy_sync = c_memcpy_sync,
    .memset_sync = c_memset_sync,
    .memcpy_async = c_memcpy_async,
    .memset_async = c_memset_async,
    .mem_peek = c_mem_peek,
    .mem_signal = c_mem_signal,
    .stream_create = c_stream_create,
    .stream_destroy = c_stream_destroy,
    .stream_synchronize = c_stream_synchronize,
    .streams_synchronize = c_streams_synchronize,
    .stream_query = c_stream_query,
    .stream_wait_event = c_stream_wait_event,
    .event_create = c_event_create,
    .event_destroy = c_event_destroy,
    .event_record = c_event_record,
    .event_synchronize = c_event_synchronize,
    .event_query = c_event_query,
    .launch_kernel = c_launch_kernel,
    .launch_host_func = c_launch_host_func,
    .capture_get_info = c_capture_get_info,
    .set_device = c_set_device,
    .get_device = c_get_device,
    .reset_device = c_reset_device,
    .device_synchronize = c_device_synchronize,
    .device_info = c_device_info,
};

const platform_ops *platform_ops_counting(const platform_ops *inner, platform_counter *state)
{
    state->ops = counting_template;
    state->ops.user = state;
    state->inner = inner;
    for (int i = 0; i < PLATFORM_CALL_COUNT; i++)
        atomic_init(&state->calls[i], 0);
    atomic_init(&state->injected, 0);
    atomic_init(&state->fail_at, 0);
    atomic_init(&state->fail_call, PLATFORM_CALL_ANY);
    atomic_init(&state->fail_code, 0);
    return &state->ops;
}

uint64_t platform_counter_calls(const platform_counter *state, int call)
{
    if (call < 0 || call >= PLATFORM_CALL_COUNT)
        return 0;
    return atomic_load(&((platform_counter *)state)->calls[call]);
}

uint64_t platform_counter_injected(const platform_counter *state)
{
    return atomic_load(&((platform_counter *)state)->injected);
}

void platform_counter_fail_nth(platform_counter *state, int call, uint64_t nth, int code)
{
    atomic_store(&state->fail_at, 0);
    if (nth == 0 || code == 0 || call < 0 || call >= PLATFORM_CALL_COUNT)
        return;
    atomic_store(&state->fail_call, call);
    atomic_store(&state->fail_code, code);
    /* The target is an absolute count of the selected entry (or of all
     * calls), so "the nth from now on" is the current count plus nth. */
    atomic_store(&state->fail_at, atomic_load(&state->calls[call]) + nth);
}

const char *platform_call_name(int call)
{
    if (call < 0 || call >= PLATFORM_CALL_COUNT)
        return "unknown";
    return call_names[call];
}
