/*
 * simpler — the runtime C ABI: status codes, contexts, program mode, kernel
 * mode, memory helpers, sizing and introspection.
 *
 * Conventions for every function below unless its comment says otherwise:
 * - it returns 0 or a negative PTO_RUNTIME_ERR_* status (simpler_strerror
 *   names it); -1..-999 are errors latched on the device, reported negated;
 * - a call that fails has no effect: nothing is allocated, loaded, enqueued
 *   or recorded, and output arguments are not written;
 * - a NULL context, or a NULL pointer where one is required, returns
 *   PTO_RUNTIME_ERR_INVALID_ARGUMENT (-1005);
 * - calls on one context are serialized by the caller (a context is not
 *   internally locked unless its comment says so); different contexts may
 *   be used from different threads at once. simpler_strerror and the pure
 *   sizing functions are thread-safe. The device's capture rules still
 *   span threads: while any thread captures a stream in GLOBAL mode, the
 *   device refuses synchronous copies to every thread in the default
 *   (GLOBAL) interaction mode (simdev_capture_thread_exchange_mode
 *   changes a thread's), so calls that copy synchronously (simpler_run,
 *   the memory helpers, trace export) fail with -1008 on any context
 *   until that capture ends.
 */
#ifndef SIMPLER_RUNTIME_C_API_H
#define SIMPLER_RUNTIME_C_API_H

#include <stddef.h>
#include <stdint.h>

#include "simpler/task_args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes: one table generates the enum and the names
 * and messages simpler_strerror returns. ---- */
#define SIMPLER_STATUS_TABLE(X)                                                                  \
    X(PTO_RUNTIME_SUCCESS, 0, "success")                                                         \
    X(PTO_RUNTIME_ERR_INTERNAL, -1000, "an internal invariant broke; the log line before says what") \
    X(PTO_RUNTIME_ERR_UNSUPPORTED, -1001, "valid request this build or context cannot honour")  \
    X(PTO_RUNTIME_ERR_PREPARED_INCOMPATIBLE, -1002, "launch is incompatible with prepared state") \
    X(PTO_RUNTIME_ERR_INVALID_STATE, -1003, "request is out of order for the context's lifecycle") \
    X(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED, -1004, "request exceeds the frozen capacity")            \
    X(PTO_RUNTIME_ERR_INVALID_ARGUMENT, -1005, "malformed argument (NULL, range, layout, image)") \
    X(PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT, -1006, "callable id has no prepared callable")      \
    X(PTO_RUNTIME_ERR_OUT_OF_MEMORY, -1007, "host or device allocation failed")                  \
    X(PTO_RUNTIME_ERR_DEVICE, -1008, "a device operation failed")                                \
    X(PTO_DEVICE_ERR_IMAGE_INVALID, -1, "the device scheduler refused the graph image")             \
    X(PTO_DEVICE_ERR_PACKET_INVALID, -2, "the run descriptor is malformed or disagrees with the image") \
    X(PTO_DEVICE_ERR_GENERATION, -3, "the callable was reloaded since this launch was built")      \
    X(PTO_DEVICE_ERR_MISSING_KERNEL, -4, "a task's func_id names no kernel of the callable")       \
    X(PTO_DEVICE_ERR_CAPACITY, -5, "a region the graph needs exceeds its device capacity")         \
    X(PTO_DEVICE_ERR_CORE_TYPE, -6, "a task's core type differs from its kernel's")                \
    X(PTO_DEVICE_ERR_NO_CORE, -7, "no core of a task's core type was launched (too few cores, or a start plan without that type)") \
    X(PTO_DEVICE_ERR_PACKET_HEADER, -16, "the launch packet's header, format or lengths are wrong") \
    X(PTO_DEVICE_ERR_PACKET_CHECKSUM, -17, "the launch packet's checksum disagrees with its bytes") \
    X(PTO_DEVICE_ERR_PACKET_SLOT, -18, "the launch packet disagrees with its callable slot")       \
    X(PTO_DEVICE_ERR_PACKET_REGION, -19, "the launch packet names a region other than the frozen ones") \
    X(PTO_DEVICE_ERR_ARG_SLOT_EMPTY, -20, "the argument slot holds no packet (never written)")       \
    X(PTO_DEVICE_ERR_ARG_SLOT_STALE, -21, "the slot's packet predates a new prepare of its callable") \
    X(PTO_DEVICE_ERR_EXECUTION_OVERLAP, -23, "another execution of the context was running; this one ran nothing")

#define SIMPLER_STATUS_ENUM_ENTRY(name, value, message) name = (value),
typedef enum SimplerStatus { SIMPLER_STATUS_TABLE(SIMPLER_STATUS_ENUM_ENTRY) } SimplerStatus;
#undef SIMPLER_STATUS_ENUM_ENTRY

/* Codes -1..-999 are errors latched on the device during execution,
 * reported negated. The device's own codes are named in the table above
 * (PTO_DEVICE_ERR_*); both modes report the same code for the same fault.
 * An orchestration entry's own failure code is also returned as it is
 * (any value in -1..-999): a code the table names means the device's
 * fault unless the orchestration chose the same value, and any other
 * code in the range is the orchestration's. */
#define SIMPLER_DEVICE_ERROR_MIN (-999)
#define SIMPLER_DEVICE_ERROR_MAX (-1)

/* A stable "NAME: message" string for `code`: an entry of the status table
 * (host statuses and the device's named codes), "PTO_DEVICE_ERROR: error
 * latched on the device or returned by the orchestration" for any other
 * code in -1..-999, and
 * "PTO_RUNTIME_ERR_UNKNOWN: unknown status code" for anything else. Never
 * NULL; the string is static. Thread-safe. */
SIMPLER_API const char *simpler_strerror(int code);

/* Why the calling thread's last refused call refused: one line naming
 * the argument, field or index and the expected versus given value
 * (e.g. "args.tensors[3].dtype = 42: not a SIMPLER_DTYPE_*"). "" when
 * that call succeeded, or refused without a more specific reason than its
 * status. Every simpler call (not the simdev_* ones) clears it on entry,
 * except the readers that cannot fail: simpler_strerror,
 * simpler_last_error_message, simpler_clock_ns, simpler_host_alloc_count,
 * simpler_dtype_size, committed_device_memory_ctx and the get_*
 * introspection getters. The reason is also logged at warning level
 * (SIMPLER_LOG=warn). The string belongs to the calling thread and is
 * valid until its next clearing call. Never NULL. Thread-safe. */
SIMPLER_API const char *simpler_last_error_message(void);

/* ---- clock ---- */

/* Monotonic nanoseconds (CLOCK_MONOTONIC): the clock the device kernels'
 * timings and the trace timestamps read, so host measurements taken with
 * it compare with them directly. Only differences mean anything. Never
 * fails. Thread-safe. */
SIMPLER_API uint64_t simpler_clock_ns(void);

/* ---- limits ---- */
#define SIMPLER_MAX_CALLABLES_PROGRAM 64   /* program-mode callable ids: 0 <= id < 64 */
#define SIMPLER_KERNEL_MAX_CALLABLES 1024  /* kernel-mode callable ids: 0 <= id < 1024 */
#define SIMPLER_KERNEL_REGION_ALIGN 1024   /* runtime-pool regions after the first (simpler_kernel_layout) */
#define SIMPLER_KERNEL_REGISTRY_BYTES 256  /* slot registry at the end of the runtime pool */
#define SIMPLER_KERNEL_MAX_ARG_SLOTS 64    /* CONFIGURE arg_slot_count: 0 <= count <= 64 */

/* ---- kernel context control ---- */
#define SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION 1
#define SIMPLER_KERNEL_CTX_CONFIGURE 1 /* action: record the capacity tuple, before init */
#define SIMPLER_KERNEL_CTX_FREEZE 2    /* action: freeze capacity after a kernel init */
#define SIMPLER_MODE_PROGRAM 0
#define SIMPLER_MODE_KERNEL 1

/* A versioned control block. struct_size must equal sizeof exactly; every
 * reserved word must be zero; a FREEZE carries no payload (mode, every
 * size and arg_slot_count zero). A byte size of 0 in a CONFIGURE means
 * "platform default". arg_slot_count (at most SIMPLER_KERNEL_MAX_ARG_SLOTS)
 * asks init to commit that many argument slots, each a frozen device
 * buffer holding one invocation packet of the largest size the frozen
 * capacity admits (simpler_kernel_mode_write_args); 0, the value every
 * caller that predates the field writes, means no slots and changes
 * nothing else. simpler_kernel_plan_capacity writes 0 there. */
typedef struct SimplerKernelCtxControl {
    uint32_t abi_version;            /* SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION */
    uint32_t struct_size;            /* sizeof(SimplerKernelCtxControl) */
    uint32_t action;                 /* SIMPLER_KERNEL_CTX_CONFIGURE or _FREEZE */
    uint32_t mode;                   /* SIMPLER_MODE_*; CONFIGURE only */
    uint64_t gm_heap_bytes;          /* graph heap */
    uint64_t runtime_arena_bytes;    /* runtime header + task state */
    uint64_t graph_definition_bytes; /* graph definition region */
    uint64_t scheduler_state_bytes;  /* scheduler state region */
    uint64_t retained_temp_bytes;    /* staging for HOST tensors */
    uint32_t task_window;            /* max tasks in one graph */
    uint32_t trace_records;          /* per-task trace records; 0 = no trace */
    uint32_t arg_slot_count;         /* argument slots committed at init; 0 = none */
    uint32_t reserved[7];            /* must be zero */
} SimplerKernelCtxControl;

/* What one graph needs, computed on the host. */
typedef struct SimplerGraphRequirements {
    uint64_t gm_heap_bytes;
    uint64_t runtime_arena_bytes;
    uint64_t graph_definition_bytes;
    uint64_t scheduler_state_bytes;
    uint64_t retained_temp_bytes;
    uint64_t task_count;
} SimplerGraphRequirements;

/* The packed runtime pool a CONFIGURE implies: the runtime region at 0,
 * then each nonzero region aligned to SIMPLER_KERNEL_REGION_ALIGN
 * (definition, scheduler), then the slot registry. Byte offsets. */
typedef struct SimplerKernelLayout {
    uint64_t runtime_offset;
    uint64_t runtime_bytes;
    uint64_t definition_offset;
    uint64_t definition_bytes;
    uint64_t scheduler_offset;
    uint64_t scheduler_bytes;
    uint64_t registry_offset;
    uint64_t registry_bytes;
    uint64_t runtime_pool_bytes; /* the packed total */
} SimplerKernelLayout;

SIMPLER_STATIC_ASSERT(sizeof(SimplerKernelCtxControl) == 96, "SimplerKernelCtxControl is 96 bytes");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelCtxControl, struct_size) == 4, "SimplerKernelCtxControl layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelCtxControl, action) == 8, "SimplerKernelCtxControl layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelCtxControl, mode) == 12, "SimplerKernelCtxControl layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelCtxControl, gm_heap_bytes) == 16, "SimplerKernelCtxControl layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelCtxControl, retained_temp_bytes) == 48, "SimplerKernelCtxControl layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelCtxControl, task_window) == 56, "SimplerKernelCtxControl layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelCtxControl, trace_records) == 60, "SimplerKernelCtxControl layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelCtxControl, arg_slot_count) == 64, "SimplerKernelCtxControl layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelCtxControl, reserved) == 68, "SimplerKernelCtxControl layout");
SIMPLER_STATIC_ASSERT(sizeof(SimplerGraphRequirements) == 48, "SimplerGraphRequirements layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerGraphRequirements, task_count) == 40, "SimplerGraphRequirements layout");
SIMPLER_STATIC_ASSERT(sizeof(SimplerKernelLayout) == 72, "SimplerKernelLayout layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerKernelLayout, runtime_pool_bytes) == 64, "SimplerKernelLayout layout");

/* ---- contexts ---- */
typedef void *DeviceContextHandle;

/* Creates an empty context with no execution mode latched. Returns NULL
 * when host memory runs out. Thread-safe. */
SIMPLER_API DeviceContextHandle create_device_context(void);

/* Destroys a context and frees its host memory. A program context is
 * finalized first if it was not. An unclosed kernel context (initialized
 * and not finalized to Closed) is refused: the call then does nothing and
 * the context stays valid. NULL is a no-op. The handle must not be in use
 * by another thread. */
SIMPLER_API void destroy_device_context(DeviceContextHandle ctx);

/* ---- program mode ---- */

/* Latches PROGRAM mode, selects device `device_id` and creates the
 * context's streams; `prewarm_config` (may be NULL; borrowed for the call)
 * commits capacity for calls of that size up front. Initializing again after
 * finalize_device is allowed. Returns 0; -1005 for a NULL ctx, a bad device
 * id or an invalid prewarm_config; -1003 if the context is latched to
 * KERNEL mode or already initialized; -1007 when memory runs out; -1008
 * when a device call fails. On failure nothing is created. */
SIMPLER_API int simpler_init(DeviceContextHandle ctx, int device_id, const CallConfig *prewarm_config);

/* Validates the callable image (`callable` 64-byte aligned,
 * `callable_size` bytes, borrowed for the call: the runtime copies or loads
 * what it needs) and makes it resident under `callable_id` (0 <= id <
 * SIMPLER_MAX_CALLABLES_PROGRAM); the slot generation is bumped. Returns 0;
 * -1005 for a malformed image, an id out of range or a binary dlopen
 * rejects; -1003 before simpler_init, in KERNEL mode, or when the id is
 * already occupied; -1007 when memory runs out. */
SIMPLER_API int simpler_register_callable(DeviceContextHandle ctx, int32_t callable_id, const void *callable,
                                          size_t callable_size);

/* Unloads the callable resident under `callable_id`. Returns 0; -1005 for
 * an id out of range; -1006 when the slot is empty; -1003 before init or in
 * KERNEL mode. */
SIMPLER_API int simpler_unregister_callable(DeviceContextHandle ctx, int32_t callable_id);

/* Runs the resident callable synchronously: builds the graph on the host
 * from `args` (borrowed for the call), commits capacity (growing if
 * needed), stages HOST tensors, runs the graph on the context's streams,
 * waits and copies HOST outputs back. `config` may be NULL (defaults).
 * Everything that can be checked before the run is: the arguments (a
 * tensor with buffer_addr 0 or a buffer that wraps is malformed), the
 * trace file's directory when tracing, and the built graph (every task a
 * kernel of the callable on its core type, with cores of that type), so
 * such a refusal has no effect: nothing runs, no HOST output is written.
 * Returns 0; -1005 for invalid args or config, a trace path whose
 * directory is missing or not writable, or a task naming a kernel the
 * callable lacks or a kernel of the other core type, or a graph with no
 * task; -1001 for a task of
 * a core type the run has no cores of (CallConfig.aicore_count); -1004
 * for a graph the build's task window cannot hold (the window grows by
 * itself up to 65536 tasks; CallConfig.task_window sets a larger one,
 * up to 1 << 20), after which the context's build storage is as it was
 * before the call; -1006
 * for an empty id; -1003 before init or in KERNEL mode; -1007 when memory
 * runs out; -1008 when a device call fails; -1..-999 for an error latched
 * on the device. Every refusal records its reason
 * (simpler_last_error_message). */
SIMPLER_API int simpler_run(DeviceContextHandle ctx, int32_t callable_id, const ChipStorageTaskArgs *args,
                            const CallConfig *config);

/* Where the last completed program-mode run spent its time, in
 * nanoseconds of simpler_clock_ns. The host phases add up to the run
 * after its argument checks; the two device phases are the scheduler's
 * own timings and lie inside launch_ns + wait_ns. */
typedef struct SimplerRunTimes {
    uint32_t struct_size;       /* sizeof(SimplerRunTimes), set by the caller */
    uint32_t reserved;          /* written as zero */
    uint64_t host_build_ns;     /* orchestration, requirements, capacity, image write, descriptor */
    uint64_t upload_ns;         /* HOST tensors staged in, image upload, status word reset */
    uint64_t launch_ns;         /* the chain's enqueue */
    uint64_t wait_ns;           /* enqueue end to both streams idle */
    uint64_t finish_ns;         /* status word read, HOST tensors copied back */
    uint64_t device_prepare_ns; /* scheduler: restore and validation of the image */
    uint64_t device_graph_ns;   /* scheduler: seed to last completion */
} SimplerRunTimes;

SIMPLER_STATIC_ASSERT(sizeof(SimplerRunTimes) == 64, "SimplerRunTimes layout");
SIMPLER_STATIC_ASSERT(offsetof(SimplerRunTimes, device_graph_ns) == 56, "SimplerRunTimes layout");

/* Writes the times of the last completed simpler_run on `ctx` to *out
 * (the caller sets out->struct_size). Reads the scheduler's two timings
 * from the device. Returns 0; -1005 for a NULL ctx or out, or a
 * struct_size other than sizeof(SimplerRunTimes); -1003 when the context
 * is not an initialized program context, or no run has completed since
 * init or since the last run that failed (at any step); -1008 when the
 * device read fails. Nothing is written on failure. Thread-safe (the
 * context's lock). */
SIMPLER_API int simpler_run_times(DeviceContextHandle ctx, SimplerRunTimes *out);

/* The closing entry of both modes. PROGRAM: releases every resource and
 * resets the device the context owns: the reset destroys every stream,
 * event and graph of that device and forgets every allocation on it,
 * whoever made them (another context, a kernel context borrowing the
 * device, the caller's own), so a program context must be the only user
 * of its device. KERNEL: the caller must
 * have quiesced its stream and destroyed graphs referencing the context;
 * releases device resources, events and streams, never resets the device or
 * touches the caller's stream; a failure is kept as the teardown error, the
 * context stays Closing and a retry redoes only what remains. Returns 0;
 * -1005 for NULL; -1003 when there is nothing to close; -1008 when a release
 * fails (kernel mode: retry). */
SIMPLER_API int finalize_device(DeviceContextHandle ctx);

/* ---- memory helpers (program mode owns its device; kernel mode may use
 * them outside capture). They work while the context holds its device:
 * a program context from simpler_init to finalize_device (whose reset
 * drops what they allocated); a kernel context from its first init on,
 * also once Closed, since kernel mode never resets the borrowed device
 * and what they allocated must stay freeable. ---- */

/* Allocates `size` > 0 bytes of device memory on the context's device.
 * Returns NULL for a NULL ctx, size 0, an uninitialized context or
 * exhaustion; simpler_last_error_message() then says which. */
SIMPLER_API void *device_malloc_ctx(DeviceContextHandle ctx, size_t size);
/* Frees a pointer returned by device_malloc_ctx; NULL is a no-op. */
SIMPLER_API void device_free_ctx(DeviceContextHandle ctx, void *dev_ptr);
/* Synchronous copies. Returns 0; -1005 for NULL pointers; -1003 for an
 * uninitialized context; -1008 when the device refuses (e.g. range). */
SIMPLER_API int copy_to_device_ctx(DeviceContextHandle ctx, void *dev, const void *host, size_t size);
SIMPLER_API int copy_from_device_ctx(DeviceContextHandle ctx, void *host, const void *dev, size_t size);
/* Device bytes the context holds committed (arena bank, temp buffer,
 * trace, kernel mode's argument slots); 0 for NULL. */
SIMPLER_API size_t committed_device_memory_ctx(DeviceContextHandle ctx);

/* ---- kernel mode ---- */

/* Returns 1 when this build and context can run kernel mode; 0 when not,
 * which includes a context already latched to program mode (a program
 * context never becomes a kernel one); -1005 for NULL. No effect.
 * Thread-safe (takes the context's lock). */
SIMPLER_API int simpler_kernel_mode_supported(DeviceContextHandle ctx);

/* CONFIGURE (only while the context is New and holds no resources)
 * records the capacity tuple; the same tuple again is a no-op, and a
 * different one is refused unless an init refused the recorded one since
 * it was recorded (then it replaces it, so that a refusal naming one of
 * its fields can be acted on). FREEZE
 * (after a kernel init, while Collecting, when a CONFIGURE with mode
 * SIMPLER_MODE_KERNEL was recorded; once) moves the context to
 * ReadyEnqueued. `control` is borrowed for the call. Returns 0; -1005 for
 * a NULL ctx or control, wrong abi_version or struct_size, unknown action
 * or mode, nonzero reserved, arg_slot_count above
 * SIMPLER_KERNEL_MAX_ARG_SLOTS, a task_window above 1 << 20, or a FREEZE
 * with payload; -1003 for an out-of-order control (CONFIGURE after init
 * or with a different tuple no init refused,
 * FREEZE before init, twice, or without a kernel-mode CONFIGURE). A
 * refused control records nothing. Thread-safe (the context's lock). */
SIMPLER_API int simpler_kernel_mode_ctx_control(DeviceContextHandle ctx, const SimplerKernelCtxControl *control);

/* FREEZE in one call: the same as simpler_kernel_mode_ctx_control with a
 * control block of action SIMPLER_KERNEL_CTX_FREEZE (abi_version and
 * struct_size filled, every other field zero), with the same statuses
 * and effects. After a kernel init, while Collecting, when a CONFIGURE
 * with mode SIMPLER_MODE_KERNEL was recorded, once: moves the context to
 * ReadyEnqueued. Returns 0; -1005 for a NULL ctx; -1003 before init, on a
 * program context, when already frozen or without a kernel-mode
 * CONFIGURE. A refused FREEZE changes nothing. Thread-safe (the
 * context's lock). */
SIMPLER_API int simpler_kernel_mode_freeze(DeviceContextHandle ctx);

/* Validates every argument and capability, then latches KERNEL mode,
 * borrows the current device (must equal `device_id`), creates the
 * context's streams and events and commits the configured capacity (the
 * recorded CONFIGURE, else defaults from `config`). The context must be
 * New, or Closed after finalize_device: a Closed kernel context inits
 * again, and its recorded CONFIGURE still applies. `config` may be NULL;
 * `context_generation` is the caller's tag for this context's life.
 * Returns 0 (the context is Collecting); -1005 for a NULL ctx, a negative
 * device_id, an invalid config or a task window above the graph limit;
 * -1003 for a device mismatch, a PROGRAM latch or a context neither New
 * nor Closed; -1004 when the capacity does not fit (sizes or the launch
 * packet); -1007/-1008 when creation fails (the context is then New
 * again, or Closing with the teardown error kept if the unwind failed).
 * Thread-safe (the context's lock). */
SIMPLER_API int simpler_kernel_mode_init(DeviceContextHandle ctx, int device_id, const CallConfig *config,
                                         uint64_t context_generation);

/* Validates and loads a callable image into slot `callable_id` (0 <= id <
 * SIMPLER_KERNEL_MAX_CALLABLES), bumping the slot generation, and enqueues
 * its registration on the context's AICPU stream, with `caller_stream` (a
 * simdev_stream_t, not NULL) waiting for it. Only work enqueued later on
 * `caller_stream` is ordered after the registration: the caller orders a
 * launch or a replay on any other stream after `caller_stream` itself (an
 * event, or a synchronize), or it races the registration.
 * Outside capture only: a capturing stream is refused. Never synchronizes
 * the caller stream. `callable` is borrowed for the call. Returns 0;
 * -1005 for a NULL ctx, callable or stream, a malformed image or an id
 * out of range; -1003 when the context is not a kernel context in
 * Collecting or ReadyEnqueued, or the stream is capturing; -1007 when
 * memory runs out; -1008 when querying the stream or enqueuing the
 * registration fails. Any failure leaves the slot as it was: the
 * callable it held (or none), its generation, and the dlopen counts. The
 * one exception is a device failure after the registration itself was
 * enqueued (the event ordering the caller stream behind it failed): the
 * device will apply the new registration, so the new callable is
 * installed and the call returns -1008 (-1007). Thread-safe (the
 * context's lock). */
SIMPLER_API int simpler_kernel_mode_prepare_callable(DeviceContextHandle ctx, int32_t callable_id,
                                                     const void *callable, size_t callable_size,
                                                     void *caller_stream);

/* Enqueues one run of the resident callable on `caller_stream` (a
 * simdev_stream_t) and returns; `args` is a ChipStorageTaskArgs, borrowed
 * for the call (its packet is copied). Performs no allocation, free,
 * synchronization, stream/event creation or capture query, so it may be
 * captured and replayed. Returns 0 (enqueued); -1005 for a NULL ctx, args
 * or stream, an id out of range, malformed args (a tensor with
 * buffer_addr 0 or a buffer that wraps included), args whose tensor or
 * scalar count differs from the callable's, or a built graph with a task
 * naming a kernel the callable lacks or a kernel of the other core type,
 * or with no task; -1001 for a task of a core type the context has no cores of; -1006 for
 * an empty id; -1003
 * for a context not in kernel mode or not ReadyEnqueued, which includes a
 * Poisoned one (a sticky device fault seen at entry poisons it);
 * -1004 when the graph exceeds the frozen capacity; -1..-999 when the
 * orchestration fails; -1002 for a stream switch while the previous
 * launch is pending; -1008 when an enqueue fails (when part of the chain
 * was already enqueued the context is then Poisoned). Any refusal before
 * the enqueue has no effect. Execution errors surface on the stream and
 * in simpler_kernel_mode_errors. Thread-safe (the context's lock). */
SIMPLER_API int simpler_kernel_mode_launch(DeviceContextHandle ctx, int32_t callable_id, const void *args,
                                           void *caller_stream);

/* Argument slots (CONFIGURE arg_slot_count): capture one launch_slot,
 * then store each step's arguments into its slot and replay.
 *
 * Validates as simpler_kernel_mode_launch does, plus `slot` <
 * arg_slot_count; builds the graph of `callable_id` on `args` (a
 * ChipStorageTaskArgs, borrowed for the call) on the host against the
 * frozen capacity, and enqueues on `caller_stream` (a simdev_stream_t) the
 * store of the resulting packet into the slot, by value: `args` and the
 * memory of its HOST tensors may be reused as soon as the call returns.
 * HOST input tensors travel inside the packet; a HOST tensor the graph
 * writes is refused (one the signature declares out or inout before the
 * build, so before any -1004 for its staging). The store runs in stream order: a launch_slot (or a
 * replay of one) enqueued after it on the same stream reads this packet.
 * Performs no allocation, free, synchronization, stream/event creation or
 * capture query (so it may itself be captured). Returns 0 (enqueued);
 * -1005 for a NULL ctx, args or stream, an id out of range, a slot
 * >= arg_slot_count, malformed args, counts that differ from the
 * callable's signature, or a HOST tensor the graph writes; -1006 for an
 * empty id; -1003 for a context not in kernel mode or not ReadyEnqueued
 * (Poisoned included); -1004 when the graph exceeds the frozen capacity;
 * -1..-999 when the orchestration fails; -1008 when the enqueue fails. A
 * refusal enqueues nothing: the slot keeps the packet it held.
 * Thread-safe (the context's lock). */
SIMPLER_API int simpler_kernel_mode_write_args(DeviceContextHandle ctx, uint32_t slot, int32_t callable_id,
                                               const void *args, void *caller_stream);

/* Enqueues on `caller_stream` the chain of simpler_kernel_mode_launch,
 * except that its scheduler reads the packet argument slot `slot` holds
 * when the execution runs: it checks it (header, lengths, regions against
 * the frozen ones, generation against the resident callable, checksum),
 * restores the graph and HOST inputs from it and runs it, whatever its
 * task count, as long as write_args admitted it. A captured launch_slot
 * therefore replays whatever write_args last stored before each replay on
 * the stream. On the device, before any task runs, an empty slot fails
 * the execution with device error -20 (KERNEL_PACKET_ERR_ARG_SLOT_EMPTY)
 * and a packet whose callable was prepared again after it was written
 * with -21 (KERNEL_PACKET_ERR_ARG_SLOT_STALE); the caller stream then
 * reports a device error and simpler_kernel_mode_errors the code. Same
 * restricted vocabulary, stream-switch rule and statuses as
 * simpler_kernel_mode_launch: 0 (enqueued); -1005 for a NULL ctx or
 * stream, or a slot >= arg_slot_count; -1003 for a context not in kernel
 * mode or not ReadyEnqueued; -1002 for a stream switch while the previous
 * chain is pending; -1008 when an enqueue fails (Poisoned when part of
 * the chain was enqueued). Thread-safe (the context's lock). */
SIMPLER_API int simpler_kernel_mode_launch_slot(DeviceContextHandle ctx, uint32_t slot, void *caller_stream);

/* Writes the trace of the kernel context's last completed execution to
 * `path` as Chrome/Perfetto JSON (docs/trace.md). The execution is
 * whichever ran last on the device: an eager simpler_kernel_mode_launch,
 * a simpler_kernel_mode_launch_slot, or a replay of a captured one. The
 * file holds one complete event per task on its core's track ("AIC i",
 * "AIV j"), named after its kernel (the image's kernel name, "func N"
 * when the image names none or the callable was replaced since), the
 * scheduler's prepare and dispatch phases on the "scheduler" track, one
 * flow per dependency of the executed graph, and, on the "host" track,
 * the host spans of the launch that built the execution's packet (build,
 * enqueue; write_args' build and store for a slot launch) when the
 * execution is the first one of that packet: an eager launch, or the
 * first replay of a captured one. The runtime does not see the caller's
 * synchronization, so there is no wait span. "otherData" says which
 * execution it is (serial, and runs: executions in a row of that packet)
 * and how many task records the buffer could not hold.
 *
 * The context needs a trace buffer, sized once at init (CONFIGURE
 * trace_records per-task records, or CallConfig.trace for the task
 * window) and never grown; every execution overwrites it, and a graph of
 * more tasks than it holds keeps the first records claimed (the rest are
 * counted as dropped). Call this after the execution of interest has
 * finished: the caller has synchronized every stream that ran one of its
 * launches. Reads device memory synchronously, so not while the calling
 * thread captures. `path` is borrowed; an existing regular file with no
 * other hard link (or none) is replaced once the whole file is written (a
 * new file beside it, with its mode, renamed over it), while a symbolic
 * link, a file with other hard links, a FIFO, a device, or a path too
 * long for the new file's name is written in place through the name. A
 * context that has not executed yet writes a file with no events.
 * Returns 0; -1005 for a NULL ctx or path, or a file that cannot be
 * created, written, closed or renamed; -1003 for a context not in kernel mode,
 * not initialized, Closing or Closed, or without a trace buffer; -1007
 * when host memory runs out; -1007/-1008 when reading device memory
 * fails. Every refusal records its reason (simpler_last_error_message).
 * A failed export that replaces leaves what was at `path` as it was and
 * no partial file; one written in place may leave it partly written.
 * Thread-safe (the context's lock). */
SIMPLER_API int simpler_kernel_mode_trace_export(DeviceContextHandle ctx, const char *path);

/* ---- sizing, host only: no context, no device memory ---- */

/* Computes what running `callable` on `args` needs, by building the graph
 * on the host. Inputs borrowed; `*out` written only on success. Returns 0;
 * -1005 for NULL, a malformed image or args; -1007 when memory runs out;
 * -1..-999 when the orchestration fails. Thread-safe. */
SIMPLER_API int simpler_graph_requirements(const void *callable, size_t callable_size,
                                           const ChipStorageTaskArgs *args, SimplerGraphRequirements *out);

/* Builds the callable's graph on `args` on the host, as
 * simpler_graph_requirements does, and writes it to `path` as Graphviz
 * DOT (docs/graph.md): one node per task, `t<i>` labelled with its index,
 * its kernel's name (the image's, or "func <id>" in an image without
 * names), func_id and core type; one edge per dependency, from the
 * earlier task, labelled with why it exists: RAW (reads what the other
 * wrote), WAR (writes what the other read), WAW (writes what the other
 * wrote), joined with '+' when several hold. Inputs borrowed; an
 * existing file is replaced. Returns 0; -1005 for NULL, a malformed
 * image or args, counts that disagree with the image's signature, a
 * task naming a kernel the callable lacks (or on the wrong core), or a
 * path that cannot be created or replaced; -1004 when the graph exceeds
 * 1 << 20 tasks; -1007 when memory runs out; -1000 when writing fails;
 * -1..-999 when the orchestration fails. A regular file of the caller's
 * at `path` (or none) is replaced only once the whole graph is written,
 * as trace exports do, so a failed call leaves it as it was (no file
 * when there was none); anything else at `path` (a symbolic link's
 * target, a file with other hard links) is written in place and may be
 * left partly written (docs/graph.md). Thread-safe. */
SIMPLER_API int simpler_graph_dot(const void *callable, size_t callable_size, const ChipStorageTaskArgs *args,
                                  const char *path);

/* A reusable host sizing handle: the callable checked and loaded once,
 * and build scratch kept between measurements. */
typedef struct SimplerGraphSizer SimplerGraphSizer;

/* Checks and loads `callable` (borrowed for the call: the handle keeps
 * its own copy of what it needs) and makes build scratch for
 * `task_window` tasks (0 = a default of 1024; at most 1 << 20). On
 * success *out owns the handle (release with simpler_graph_sizer_destroy).
 * Returns 0; -1005 for a NULL callable or out, a malformed image, a
 * binary dlopen rejects, or a task_window above 1 << 20; -1007 when
 * memory runs out. On failure nothing is kept and *out is not written.
 * Thread-safe (distinct calls create distinct handles). */
SIMPLER_API int simpler_graph_sizer_create(const void *callable, size_t callable_size, uint32_t task_window,
                                           SimplerGraphSizer **out);

/* Builds the callable's graph on `args` (borrowed for the call) on the
 * host and writes what running it needs to *out, as
 * simpler_graph_requirements does. When the build runs out of room the
 * scratch is remade for twice the window (up to 1 << 20 tasks) and the
 * build retried; the larger scratch is kept for later calls. Returns 0;
 * -1005 for a NULL argument, malformed args, args whose counts disagree
 * with the image's signature, or a task naming a kernel the callable
 * lacks (or on the wrong core); -1004 when the graph exceeds 1 << 20
 * tasks; -1007 when memory runs out; -1..-999 when the orchestration
 * fails. A failed call has no effect: *out is not written and the handle
 * is as it was. Not thread-safe per handle; distinct handles are
 * independent. */
SIMPLER_API int simpler_graph_sizer_measure(SimplerGraphSizer *sizer, const ChipStorageTaskArgs *args,
                                            SimplerGraphRequirements *out);

/* Unloads the callable and frees the handle. NULL is a no-op. */
SIMPLER_API void simpler_graph_sizer_destroy(SimplerGraphSizer *sizer);

/* Turns the requirements of `count` graphs into a kernel-mode CONFIGURE:
 * the maximum of each region independently, task_window = largest
 * task_count + 1, arg_slot_count 0 (set it yourself for slots). `*configure_out` written only on success. Returns 0;
 * -1005 for NULL or count 0; -1004 when a size overflows or a task_count
 * is 1 << 20 or more (the window would pass init's 1 << 20). Thread-safe. */
SIMPLER_API int simpler_kernel_plan_capacity(const SimplerGraphRequirements *graphs, size_t count,
                                             SimplerKernelCtxControl *configure_out);

/* The packed runtime-pool layout `configure` implies (pure; the
 * argument slots are separate buffers and do not change it). `*out`
 * written only on success. Returns 0; -1005 for NULL or an invalid
 * CONFIGURE (including arg_slot_count above SIMPLER_KERNEL_MAX_ARG_SLOTS or a task_window above 1 << 20); -1004 when
 * the packed total overflows. Thread-safe. */
SIMPLER_API int simpler_kernel_layout(const SimplerKernelCtxControl *configure, SimplerKernelLayout *out);

/* ---- introspection, for tests and tools ---- */

/* Device address of arena bank `bank_id`'s gm_heap region; 0 when absent. */
SIMPLER_API uint64_t get_arena_bank_gm_heap_base_ctx(DeviceContextHandle ctx, uint32_t bank_id);
/* Device address of retained temp slot `slot_id`; 0 when absent. */
SIMPLER_API uint64_t get_retained_temp_addr_ctx(DeviceContextHandle ctx, uint32_t slot_id);
/* dlopens this context made of orchestration binaries (host) and of kernel
 * binaries (AICPU side); 0 for NULL. */
SIMPLER_API size_t get_host_dlopen_count(DeviceContextHandle ctx);
SIMPLER_API size_t get_aicpu_dlopen_count(DeviceContextHandle ctx);
/* Reads the kernel context's first runtime error and first teardown error
 * (0 = none); either output may be NULL. Returns 0; -1005 for NULL ctx;
 * -1003 for a context not in KERNEL mode. Thread-safe (the context's
 * lock). */
SIMPLER_API int simpler_kernel_mode_errors(DeviceContextHandle ctx, int *last_runtime_error, int *teardown_error);

/* The number of host allocations (malloc, calloc, realloc; failed ones
 * included) libsimpler has attempted in this process so far, by the
 * runtime and by simdev together, on every thread (simdev's own threads
 * included). It only grows: take it before and after a call to check
 * that the call allocates nothing (a kernel-mode launch promises that),
 * while no other thread makes library calls that allocate. Thread-safe. */
SIMPLER_API uint64_t simpler_host_alloc_count(void);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLER_RUNTIME_C_API_H */
