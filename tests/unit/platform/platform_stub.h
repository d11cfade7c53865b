/*
 * A platform table whose every entry succeeds and records which entry was
 * called last, for tests of the table plumbing (no device behind it).
 */
#ifndef SIMPLER_TEST_PLATFORM_STUB_H
#define SIMPLER_TEST_PLATFORM_STUB_H

#include "platform/platform_counter.h"
#include "platform/platform_ops.h"

typedef struct {
    int last;         /* PLATFORM_CALL_* of the last entry reached */
    uint64_t reached; /* calls that reached the stub */
} platform_stub;

#define STUB_HIT(user, call) (((platform_stub *)(user))->last = (call), ((platform_stub *)(user))->reached++, 0)

static inline int stub_mem_alloc(void *u, void **p, size_t s)
{
    (void)s;
    *p = (void *)(uintptr_t)0x400000;
    return STUB_HIT(u, PLATFORM_CALL_MEM_ALLOC);
}
static inline int stub_mem_free(void *u, void *p) { (void)p; return STUB_HIT(u, PLATFORM_CALL_MEM_FREE); }
static inline int stub_memcpy_sync(void *u, void *d, const void *s, size_t n)
{
    (void)d, (void)s, (void)n;
    return STUB_HIT(u, PLATFORM_CALL_MEMCPY_SYNC);
}
static inline int stub_memset_sync(void *u, void *d, int v, size_t n)
{
    (void)d, (void)v, (void)n;
    return STUB_HIT(u, PLATFORM_CALL_MEMSET_SYNC);
}
static inline int stub_memcpy_async(void *u, void *d, const void *s, size_t n, platform_stream *st)
{
    (void)d, (void)s, (void)n, (void)st;
    return STUB_HIT(u, PLATFORM_CALL_MEMCPY_ASYNC);
}
static inline int stub_memset_async(void *u, void *d, int v, size_t n, platform_stream *st)
{
    (void)d, (void)v, (void)n, (void)st;
    return STUB_HIT(u, PLATFORM_CALL_MEMSET_ASYNC);
}
static inline int stub_mem_peek(void *u, void *d, const void *s, size_t n)
{
    (void)d, (void)s, (void)n;
    return STUB_HIT(u, PLATFORM_CALL_MEM_PEEK);
}
static inline int stub_mem_signal(void *u, void *w, uint32_t v)
{
    (void)w, (void)v;
    return STUB_HIT(u, PLATFORM_CALL_MEM_SIGNAL);
}
static inline int stub_stream_create(void *u, platform_stream **s) { (void)s; return STUB_HIT(u, PLATFORM_CALL_STREAM_CREATE); }
static inline int stub_stream_destroy(void *u, platform_stream *s) { (void)s; return STUB_HIT(u, PLATFORM_CALL_STREAM_DESTROY); }
static inline int stub_stream_synchronize(void *u, platform_stream *s) { (void)s; return STUB_HIT(u, PLATFORM_CALL_STREAM_SYNCHRONIZE); }
static inline int stub_streams_synchronize(void *u, platform_stream *const *s, uint32_t n)
{
    (void)s, (void)n;
    return STUB_HIT(u, PLATFORM_CALL_STREAMS_SYNCHRONIZE);
}
static inline int stub_stream_query(void *u, platform_stream *s) { (void)s; return STUB_HIT(u, PLATFORM_CALL_STREAM_QUERY); }
static inline int stub_stream_wait_event(void *u, platform_stream *s, platform_event *e)
{
    (void)s, (void)e;
    return STUB_HIT(u, PLATFORM_CALL_STREAM_WAIT_EVENT);
}
static inline int stub_event_create(void *u, platform_event **e) { (void)e; return STUB_HIT(u, PLATFORM_CALL_EVENT_CREATE); }
static inline int stub_event_destroy(void *u, platform_event *e) { (void)e; return STUB_HIT(u, PLATFORM_CALL_EVENT_DESTROY); }
static inline int stub_event_record(void *u, platform_event *e, platform_stream *s)
{
    (void)e, (void)s;
    return STUB_HIT(u, PLATFORM_CALL_EVENT_RECORD);
}
static inline int stub_event_synchronize(void *u, platform_event *e) { (void)e; return STUB_HIT(u, PLATFORM_CALL_EVENT_SYNCHRONIZE); }
static inline int stub_event_query(void *u, platform_event *e) { (void)e; return STUB_HIT(u, PLATFORM_CALL_EVENT_QUERY); }
static inline int stub_launch_kernel(void *u, platform_stream *s, int engine, platform_kernel_fn fn, uint32_t b,
                                     const void *a, size_t n)
{
    (void)s, (void)engine, (void)fn, (void)b, (void)a, (void)n;
    return STUB_HIT(u, PLATFORM_CALL_LAUNCH_KERNEL);
}
static inline int stub_launch_host_func(void *u, platform_stream *s, void (*fn)(void *), void *d)
{
    (void)s, (void)fn, (void)d;
    return STUB_HIT(u, PLATFORM_CALL_LAUNCH_HOST_FUNC);
}
static inline int stub_capture_get_info(void *u, platform_stream *s, int *st)
{
    (void)s, (void)st;
    return STUB_HIT(u, PLATFORM_CALL_CAPTURE_GET_INFO);
}
static inline int stub_set_device(void *u, int d) { (void)d; return STUB_HIT(u, PLATFORM_CALL_SET_DEVICE); }
static inline int stub_get_device(void *u, int *d) { (void)d; return STUB_HIT(u, PLATFORM_CALL_GET_DEVICE); }
static inline int stub_reset_device(void *u, int d) { (void)d; return STUB_HIT(u, PLATFORM_CALL_RESET_DEVICE); }
static inline int stub_device_synchronize(void *u) { return STUB_HIT(u, PLATFORM_CALL_DEVICE_SYNCHRONIZE); }
static inline int stub_device_info(void *u, platform_device_info *o) { (void)o; return STUB_HIT(u, PLATFORM_CALL_DEVICE_INFO); }

static inline platform_ops platform_stub_ops(platform_stub *stub)
{
    platform_ops ops = {
        .user = stub,
        .mem_alloc = stub_mem_alloc,
        .mem_free = stub_mem_free,
        .memcpy_sync = stub_memcpy_sync,
        .memset_sync = stub_memset_sync,
        .memcpy_async = stub_memcpy_async,
        .memset_async = stub_memset_async,
        .mem_peek = stub_mem_peek,
        .mem_signal = stub_mem_signal,
        .stream_create = stub_stream_create,
        .stream_destroy = stub_stream_destroy,
        .stream_synchronize = stub_stream_synchronize,
        .streams_synchronize = stub_streams_synchronize,
        .stream_query = stub_stream_query,
        .stream_wait_event = stub_stream_wait_event,
        .event_create = stub_event_create,
        .event_destroy = stub_event_destroy,
        .event_record = stub_event_record,
        .event_synchronize = stub_event_synchronize,
        .event_query = stub_event_query,
        .launch_kernel = stub_launch_kernel,
        .launch_host_func = stub_launch_host_func,
        .capture_get_info = stub_capture_get_info,
        .set_device = stub_set_device,
        .get_device = stub_get_device,
        .reset_device = stub_reset_device,
        .device_synchronize = stub_device_synchronize,
        .device_info = stub_device_info,
    };
    stub->last = -1;
    stub->reached = 0;
    return ops;
}

/* Calls entry `call` of `ops` with harmless arguments; returns its code. */
static inline int platform_stub_call(const platform_ops *ops, int call)
{
    void *p = NULL;
    platform_stream *s = NULL;
    platform_event *e = NULL;
    int i = 0;
    platform_device_info info;
    void *u = ops->user;

    switch (call) {
    case PLATFORM_CALL_MEM_ALLOC: return ops->mem_alloc(u, &p, 1024);
    case PLATFORM_CALL_MEM_FREE: return ops->mem_free(u, p);
    case PLATFORM_CALL_MEMCPY_SYNC: return ops->memcpy_sync(u, p, p, 0);
    case PLATFORM_CALL_MEMSET_SYNC: return ops->memset_sync(u, p, 0, 0);
    case PLATFORM_CALL_MEMCPY_ASYNC: return ops->memcpy_async(u, p, p, 0, s);
    case PLATFORM_CALL_MEMSET_ASYNC: return ops->memset_async(u, p, 0, 0, s);
    case PLATFORM_CALL_MEM_PEEK: return ops->mem_peek(u, p, p, 0);
    case PLATFORM_CALL_MEM_SIGNAL: return ops->mem_signal(u, p, 0);
    case PLATFORM_CALL_STREAM_CREATE: return ops->stream_create(u, &s);
    case PLATFORM_CALL_STREAM_DESTROY: return ops->stream_destroy(u, s);
    case PLATFORM_CALL_STREAM_SYNCHRONIZE: return ops->stream_synchronize(u, s);
    case PLATFORM_CALL_STREAMS_SYNCHRONIZE: return ops->streams_synchronize(u, &s, 1);
    case PLATFORM_CALL_STREAM_QUERY: return ops->stream_query(u, s);
    case PLATFORM_CALL_STREAM_WAIT_EVENT: return ops->stream_wait_event(u, s, e);
    case PLATFORM_CALL_EVENT_CREATE: return ops->event_create(u, &e);
    case PLATFORM_CALL_EVENT_DESTROY: return ops->event_destroy(u, e);
    case PLATFORM_CALL_EVENT_RECORD: return ops->event_record(u, e, s);
    case PLATFORM_CALL_EVENT_SYNCHRONIZE: return ops->event_synchronize(u, e);
    case PLATFORM_CALL_EVENT_QUERY: return ops->event_query(u, e);
    case PLATFORM_CALL_LAUNCH_KERNEL: return ops->launch_kernel(u, s, PLATFORM_ENGINE_AICPU, NULL, 1, NULL, 0);
    case PLATFORM_CALL_LAUNCH_HOST_FUNC: return ops->launch_host_func(u, s, NULL, NULL);
    case PLATFORM_CALL_CAPTURE_GET_INFO: return ops->capture_get_info(u, s, &i);
    case PLATFORM_CALL_SET_DEVICE: return ops->set_device(u, 0);
    case PLATFORM_CALL_GET_DEVICE: return ops->get_device(u, &i);
    case PLATFORM_CALL_RESET_DEVICE: return ops->reset_device(u, 0);
    case PLATFORM_CALL_DEVICE_SYNCHRONIZE: return ops->device_synchronize(u);
    case PLATFORM_CALL_DEVICE_INFO: return ops->device_info(u, &info);
    default: return -1;
    }
}

#endif
