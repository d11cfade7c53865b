/*
 * simdev — the simulated accelerator inside simpler.
 *
 * simdev models a stream/graph-capture device runtime (ACL graph capture,
 * CUDA graphs) in-process: per-device HBM with a real allocator, engines
 * (AICPU threads, AICore threads), streams that run asynchronously and in
 * order off the caller's thread, events, stream capture into graphs and
 * graph replay. The capture refusals reproduce what was measured on real
 * hardware (docs/simdev.md has the table and the ACL/CUDA mapping).
 *
 * Conventions for every function below unless its comment says otherwise:
 * - returns SIMDEV_SUCCESS (0) or one of the SIMDEV_ERROR_* codes;
 * - a call that returns an error has no effect (nothing is enqueued,
 *   recorded, allocated or freed, and output arguments are not written),
 *   with one exception, as on a real device whose capture cannot be
 *   repaired: when recording an operation (a node, an event record, or a
 *   wait by a stream already in the capture) into an active capture fails
 *   for want of host memory, the call returns MEMORY_ALLOCATION and the capture
 *   becomes INVALIDATED (later operations on its streams return
 *   STREAM_CAPTURE_INVALIDATED; end returns it too and ends the capture);
 *   a fork that fails so leaves the capture as it was;
 * - NULL where a handle or output pointer is required -> INVALID_PARAM;
 *   a handle that was destroyed or never created -> INVALID_HANDLE;
 *   a stream or event used while the current device is not the device it
 *   was created on -> INVALID_DEVICE;
 * - all functions are thread-safe; the current device is per thread.
 * Device pointers are host addresses (this is a simulator), but programs
 * must reach device memory only through the memcpy/memset calls or kernels.
 */
#ifndef SIMPLER_SIMDEV_H
#define SIMPLER_SIMDEV_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define SIMDEV_API __attribute__((visibility("default")))
#else
#define SIMDEV_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes (ACL-style numbers; the capture ones as measured) ---- */
#define SIMDEV_SUCCESS 0
#define SIMDEV_ERROR_INVALID_PARAM 107000
#define SIMDEV_ERROR_INVALID_DEVICE 107001
#define SIMDEV_ERROR_INVALID_HANDLE 107002
#define SIMDEV_ERROR_CAPTURE_DEPENDENCY 107024
#define SIMDEV_ERROR_STREAM_UNJOINED 107025
#define SIMDEV_ERROR_STREAM_CAPTURED 107027
#define SIMDEV_ERROR_EVENT_CAPTURED 107028
#define SIMDEV_ERROR_CAPTURE_MODE_NOT_SUPPORT 107030
#define SIMDEV_ERROR_STREAM_CAPTURE_CONFLICT 107032
#define SIMDEV_ERROR_STREAM_CAPTURE_UNMATCHED 107036
#define SIMDEV_ERROR_STREAM_CAPTURE_WRONG_THREAD 107038
#define SIMDEV_ERROR_REPEAT_INITIALIZE 100002 /* configure after first use */
#define SIMDEV_ERROR_NOT_READY 207000
#define SIMDEV_ERROR_MEMORY_ALLOCATION 207001
#define SIMDEV_ERROR_KERNEL_FAULT 507000
#define SIMDEV_ERROR_STREAM_CAPTURE_INVALIDATED 507903

/* ---- limits ---- */
#define SIMDEV_MAX_DEVICES 8
#define SIMDEV_MAX_ENGINE_THREADS 64       /* per engine pool of one device */
#define SIMDEV_ALLOC_ALIGN 1024            /* every simdev_malloc base */
#define SIMDEV_KERNEL_ARGS_MAX (8u << 20)  /* bytes copied by value per launch */
#define SIMDEV_STREAM_RING_OPS 1024        /* queued ops per stream before enqueue blocks */
#define SIMDEV_STREAM_RING_ARG_BYTES (16u << 20) /* queued argument bytes per stream (reserved lazily: pages are touched only when used) */

typedef struct simdev_stream *simdev_stream_t;
typedef struct simdev_event *simdev_event_t;
typedef struct simdev_graph *simdev_graph_t;

typedef enum {
    SIMDEV_CAPTURE_MODE_GLOBAL = 0,
    SIMDEV_CAPTURE_MODE_THREAD_LOCAL = 1,
    SIMDEV_CAPTURE_MODE_RELAXED = 2
} simdev_capture_mode;

typedef enum {
    SIMDEV_CAPTURE_STATUS_NONE = 0,
    SIMDEV_CAPTURE_STATUS_ACTIVE = 1,
    SIMDEV_CAPTURE_STATUS_INVALIDATED = 2
} simdev_capture_status;

typedef enum { SIMDEV_ENGINE_AICPU = 0, SIMDEV_ENGINE_AICORE = 1 } simdev_engine;

/* A kernel body: called once per block, blocks of one launch run
 * concurrently on the engine's threads (in waves when block_dim exceeds the
 * pool). `args` points at the launch's own copy of the argument bytes. */
typedef void (*simdev_kernel_fn)(uint32_t block_idx, uint32_t block_dim, const void *args);

/* ---- configuration ---- */
typedef struct {
    uint32_t struct_size;    /* must equal sizeof(simdev_config) */
    uint32_t device_count;   /* 1..SIMDEV_MAX_DEVICES */
    uint64_t hbm_bytes;      /* per device, >= 1 MiB, multiple of SIMDEV_ALLOC_ALIGN */
    uint32_t aic_cores;      /* AICore pool = aic_cores + aiv_cores threads */
    uint32_t aiv_cores;
    uint32_t aicpu_threads;  /* AICPU pool threads, >= 1 */
    uint32_t debug_fill;     /* nonzero: fill fresh allocations 0xA5, freed ones 0xDD */
    uint32_t engine_affinity; /* 1: AICPU and AICore pool threads on disjoint CPU sets; 0: no placement */
    uint32_t reserved0;      /* must be zero */
    uint64_t reserved[3];    /* must be zero */
} simdev_config;

/* Defaults: 2 devices, 256 MiB HBM each, 2 AIC + 4 AIV cores, 3 AICPU
 * threads, debug fill on, engine affinity on; each may be overridden by
 * the environment (SIMDEV_DEVICE_COUNT, SIMDEV_HBM_BYTES, SIMDEV_AIC_CORES,
 * SIMDEV_AIV_CORES, SIMDEV_AICPU_THREADS, SIMDEV_ENGINE_AFFINITY) when
 * simdev starts without simdev_configure.
 *
 * Engine affinity: the AICPU and the AICores are separate processors on
 * the device, so with affinity on simdev splits the CPUs that the thread
 * starting simdev may use in two: the first max(1, n * aicpu / (aicpu + aicore))
 * for every device's AICPU pool threads, the rest for the AICore pool
 * threads. With fewer than 2 CPUs, or a placement the system refuses,
 * threads run wherever the OS puts them. */
SIMDEV_API int simdev_config_default(simdev_config *config);
/* Before first use (or after simdev_finalize); afterwards REPEAT_INITIALIZE.
 * Invalid fields -> INVALID_PARAM. */
SIMDEV_API int simdev_configure(const simdev_config *config);
/* The configuration in force (starts simdev with defaults if needed). */
SIMDEV_API int simdev_get_config(simdev_config *out);
/* Tears everything down (waits for all streams, frees HBM, joins threads).
 * Handles become invalid; simdev may be configured again. For tests and
 * leak checkers; refuses with STREAM_CAPTURED while a capture is active. */
SIMDEV_API int simdev_finalize(void);

/* ---- devices ---- */
SIMDEV_API int simdev_set_device(int device_id);   /* per thread; out of range -> INVALID_DEVICE */
SIMDEV_API int simdev_get_device(int *device_id);  /* default device 0 */
/* Waits for the device's streams, destroys its streams, events and graphs,
 * frees all its HBM allocations and clears its stream faults. Refused with
 * STREAM_CAPTURED while a capture is active on the device. */
SIMDEV_API int simdev_reset_device(int device_id);

/* ---- memory (current device) ---- */
/* Allocates `size` > 0 bytes aligned to SIMDEV_ALLOC_ALIGN. Exhaustion ->
 * MEMORY_ALLOCATION with nothing changed. Allowed during capture (not a
 * graph node). */
SIMDEV_API int simdev_malloc(void **dev_ptr, size_t size);
/* Frees a base returned by simdev_malloc on the current device. A pointer
 * that is not a live base (double free, interior, foreign) -> INVALID_PARAM;
 * MEMORY_ALLOCATION when the allocator's host bookkeeping cannot grow (the
 * block then stays allocated). */
SIMDEV_API int simdev_free(void *dev_ptr);
/* Synchronous copy/set, immediate (does not wait for streams). At least one
 * side of a memcpy, and the target of a memset, must lie inside one live
 * allocation of the current device, entirely; else INVALID_PARAM. Refused
 * with CAPTURE_MODE_NOT_SUPPORT, as CUDA's interaction modes say: a thread
 * interacting in GLOBAL mode (the default) by its own GLOBAL/THREAD_LOCAL
 * capture or any other thread's GLOBAL capture; in THREAD_LOCAL mode only
 * by its own; in RELAXED mode never. */
SIMDEV_API int simdev_memcpy(void *dst, const void *src, size_t size);
SIMDEV_API int simdev_memset(void *dev_ptr, int value, size_t size);
/* Stream-ordered copy/set; the pointers are used when the op runs (or
 * replays): host memory behind `src` must stay valid until then. */
SIMDEV_API int simdev_memcpy_async(void *dst, const void *src, size_t size, simdev_stream_t stream);
SIMDEV_API int simdev_memset_async(void *dev_ptr, int value, size_t size, simdev_stream_t stream);

typedef struct {
    uint64_t hbm_bytes;
    uint64_t committed_bytes;  /* live allocations, rounded to the alignment */
    uint64_t high_water_bytes;
    uint64_t live_allocations;
} simdev_mem_info;
SIMDEV_API int simdev_get_mem_info(int device_id, simdev_mem_info *out);

/* ---- streams and events (created on the current device) ---- */
SIMDEV_API int simdev_stream_create(simdev_stream_t *stream);
/* Waits for the stream's queued work, then destroys it. A stream in an
 * active capture -> STREAM_CAPTURED. */
SIMDEV_API int simdev_stream_destroy(simdev_stream_t stream);
/* Blocks until queued work is done. Returns the stream's sticky kernel
 * fault if one happened. On a capturing stream -> STREAM_CAPTURED. */
SIMDEV_API int simdev_stream_synchronize(simdev_stream_t stream);
/* 0 when all queued work is done, NOT_READY when pending, the sticky fault
 * when the stream failed; on a capturing stream -> STREAM_CAPTURED. */
SIMDEV_API int simdev_stream_query(simdev_stream_t stream);
/* Blocks until the queued work of each of `count` streams is done, as
 * simdev_stream_synchronize on each in turn, and returns the first sticky
 * fault in list order (every stream is waited for, also after a faulted
 * one), or SUCCESS. The order of the waits is simdev's: with engine
 * affinity, a caller on one engine's CPUs first waits for the streams
 * whose newest work is a kernel of that engine, which finish beside it,
 * and so is woken on its own CPU. count 0 -> SUCCESS. NULL `streams` with
 * count > 0, or count > SIMDEV_STREAMS_SYNC_MAX -> INVALID_PARAM; a bad
 * handle, a stream of another device or a capturing stream -> the code
 * simdev_stream_synchronize gives it; then nothing is waited for.
 * Counted as one SIMDEV_CALL_SYNCHRONIZE. */
#define SIMDEV_STREAMS_SYNC_MAX 64u
SIMDEV_API int simdev_streams_synchronize(const simdev_stream_t *streams, uint32_t count);
/* Waits for every stream of the current device; returns the first sticky
 * fault. Any active capture on the device -> STREAM_CAPTURED. Waits in
 * the order simdev_streams_synchronize does. */
SIMDEV_API int simdev_device_synchronize(void);

SIMDEV_API int simdev_event_create(simdev_event_t *event);
SIMDEV_API int simdev_event_destroy(simdev_event_t event);
/* Captures the stream's current position into the event (each record
 * replaces the previous one). On a capturing stream the record is a
 * capture point, not a node. */
SIMDEV_API int simdev_event_record(simdev_event_t event, simdev_stream_t stream);
/* The stream waits for the event's latest record at the time of this call
 * (a never-recorded event is complete). A non-capturing stream waiting on an
 * event recorded in an active capture joins that capture (fork). A
 * capturing stream waiting on an event recorded outside the capture ->
 * CAPTURE_DEPENDENCY. */
SIMDEV_API int simdev_stream_wait_event(simdev_stream_t stream, simdev_event_t event);
/* Block until / ask whether the latest record completed; a record inside
 * an active capture -> EVENT_CAPTURED. */
SIMDEV_API int simdev_event_synchronize(simdev_event_t event);
SIMDEV_API int simdev_event_query(simdev_event_t event);

/* ---- work ---- */
/* Enqueues fn on `engine` with `block_dim` (1..SIMDEV_MAX_ENGINE_THREADS*16)
 * blocks; args_size (0..SIMDEV_KERNEL_ARGS_MAX) bytes at `args` are copied
 * before the call returns (args may be NULL only when args_size is 0). */
SIMDEV_API int simdev_launch_kernel(simdev_stream_t stream, simdev_engine engine, simdev_kernel_fn fn,
                                    uint32_t block_dim, const void *args, size_t args_size);
/* Runs fn(user_data) on the stream's own thread, in order. fn must not call
 * synchronizing simdev functions. */
SIMDEV_API int simdev_launch_host_func(simdev_stream_t stream, void (*fn)(void *), void *user_data);
/* From inside a kernel body: the launch fails with `code` (nonzero); its
 * stream becomes faulted (sticky): later kernels, copies and host funcs on
 * it are skipped, event records still complete, and synchronize/query
 * return the code. Outside a kernel -> INVALID_PARAM. */
SIMDEV_API int simdev_kernel_report_fault(int code);

/* ---- capture ---- */
SIMDEV_API int simdev_capture_begin(simdev_stream_t stream, simdev_capture_mode mode);
/* Ends the capture begun on `stream`. Success writes a new graph. Every
 * stream forked into the capture must have been joined back into `stream`
 * (STREAM_UNJOINED otherwise: the capture ends, no graph). Not capturing ->
 * STREAM_CAPTURE_UNMATCHED; a GLOBAL/THREAD_LOCAL capture ended by another
 * thread -> STREAM_CAPTURE_WRONG_THREAD (capture stays active); an
 * invalidated capture -> STREAM_CAPTURE_INVALIDATED (capture ends). */
SIMDEV_API int simdev_capture_end(simdev_stream_t stream, simdev_graph_t *graph);
/* status, and the graph under construction when ACTIVE (graph may be NULL). */
SIMDEV_API int simdev_capture_get_info(simdev_stream_t stream, simdev_capture_status *status,
                                       simdev_graph_t *graph);
/* Swaps the calling thread's capture interaction mode (default GLOBAL). */
SIMDEV_API int simdev_capture_thread_exchange_mode(simdev_capture_mode *mode);

/* ---- graphs ---- */
/* Replays every node with its recorded arguments, honouring recorded
 * cross-stream dependencies (independent branches run concurrently), after
 * prior work on `stream`; later work on `stream` waits for it. Launches of
 * one graph are serialized. */
/* A capturing stream -> INVALID_PARAM (graphs do not nest into captures). */
SIMDEV_API int simdev_graph_launch(simdev_graph_t graph, simdev_stream_t stream);
/* Waits for the graph's pending replays, then destroys it. */
SIMDEV_API int simdev_graph_destroy(simdev_graph_t graph);
SIMDEV_API int simdev_graph_node_count(simdev_graph_t graph, size_t *count);
/* Writes the graph as Graphviz DOT (nodes labelled by kind and lane,
 * edges for dependencies). File errors -> INVALID_PARAM. A regular file
 * of the caller's at `path` (or none) is replaced only once the whole
 * graph is written, so a failed write leaves what was there; a symbolic
 * link's target or a file with other hard links is written in place. */
SIMDEV_API int simdev_graph_debug_dot(simdev_graph_t graph, const char *path);

/* ---- counters ---- */
typedef struct {
    uint64_t malloc_calls;
    uint64_t free_calls;
    uint64_t memcpy_sync_calls;
    uint64_t memcpy_async_calls;
    uint64_t memset_calls;          /* sync and async */
    uint64_t synchronize_calls;     /* stream, device and event synchronize */
    uint64_t query_calls;           /* stream and event query */
    uint64_t capture_query_calls;   /* capture_get_info */
    uint64_t stream_create_calls;
    uint64_t event_create_calls;
    uint64_t kernel_launches;
    uint64_t graph_launches;
    uint64_t event_record_calls;
    uint64_t event_wait_calls;
    uint64_t host_func_calls;
    uint64_t stream_destroy_calls;
    uint64_t event_destroy_calls;
    uint64_t capture_begin_calls;
    uint64_t capture_end_calls;
    uint64_t graph_destroy_calls;
} simdev_counters;

/* Calls made (including refused ones), since start or simdev_finalize:
 * process-wide, by the calling thread, or on one device (calls made while
 * it was the current device). */
SIMDEV_API int simdev_get_counters(simdev_counters *out);
SIMDEV_API int simdev_get_thread_counters(simdev_counters *out);
SIMDEV_API int simdev_get_device_counters(int device_id, simdev_counters *out);

/* ---- fault injection ---- */
typedef enum {
    SIMDEV_CALL_ANY = 0, /* every counted call below */
    SIMDEV_CALL_MALLOC,
    SIMDEV_CALL_FREE,
    SIMDEV_CALL_MEMCPY_SYNC,
    SIMDEV_CALL_MEMCPY_ASYNC,
    SIMDEV_CALL_MEMSET,
    SIMDEV_CALL_SYNCHRONIZE,
    SIMDEV_CALL_QUERY,
    SIMDEV_CALL_CAPTURE_QUERY,
    SIMDEV_CALL_STREAM_CREATE,
    SIMDEV_CALL_EVENT_CREATE,
    SIMDEV_CALL_KERNEL_LAUNCH,
    SIMDEV_CALL_GRAPH_LAUNCH,
    SIMDEV_CALL_EVENT_RECORD,
    SIMDEV_CALL_EVENT_WAIT,
    SIMDEV_CALL_HOST_FUNC,
    SIMDEV_CALL_STREAM_DESTROY,
    SIMDEV_CALL_EVENT_DESTROY,
    SIMDEV_CALL_CAPTURE_BEGIN,
    SIMDEV_CALL_CAPTURE_END,
    SIMDEV_CALL_GRAPH_DESTROY,
    SIMDEV_CALL_CLASS_COUNT
} simdev_call_class;

/* Arms one fault: the nth (1-based) call of `cls` made from now on, by any
 * thread, returns `code` (nonzero) without any effect. Re-arming a class
 * replaces its previous arming. */
SIMDEV_API int simdev_fault_inject(simdev_call_class cls, uint64_t nth, int code);
/* Disarms every injected fault. */
SIMDEV_API int simdev_fault_clear(void);

/* Stable name of a status code ("SIMDEV_ERROR_STREAM_CAPTURED"), or
 * "SIMDEV_ERROR_UNKNOWN". Never NULL. */
SIMDEV_API const char *simdev_error_name(int code);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLER_SIMDEV_H */
