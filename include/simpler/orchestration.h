/*
 * simpler — what an orchestration function and a kernel may call.
 *
 * Orchestration and kernel binaries are ELF shared objects that the
 * runtime dlopen()s with RTLD_LOCAL from a callable image, so they must not
 * reference any libsimpler symbol. Everything here is therefore either plain
 * data or a static inline wrapper that calls through the ops table the
 * runtime hands in; including this header adds no undefined symbol.
 *
 * Orchestration entry (named in the callable image header):
 *
 *     int entry(SimplerOrch *orch, const ChipStorageTaskArgs *args);
 *
 * It runs on the host, describes tasks and returns 0. It may read the
 * call's scalars, shapes and tensor descriptors, but must never dereference
 * a tensor address: caller tensors live on the device (or are staged there)
 * and intermediates have no address until the device adds the heap base.
 *
 * Kernel entry (exported by every child binary):
 *
 *     void kernel_entry(const SimplerKernelArgs *args);
 */
#ifndef SIMPLER_ORCHESTRATION_H
#define SIMPLER_ORCHESTRATION_H

#include <stddef.h>
#include <stdint.h>

#include "simpler/task_args.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIMPLER_ORCH_ABI_VERSION 1
#define SIMPLER_KERNEL_ABI_VERSION 1

/* Tensors and scalars of one task together; bound by the 32-entry child
 * signature of the callable image. */
#define SIMPLER_MAX_TASK_ARGS 32

/* Core types of a task, the same values as a child's in simpler/callable.h
 * (the identical definitions may coexist). */
#ifndef SIMPLER_CORE_TYPE_AIC
#define SIMPLER_CORE_TYPE_AIC 0 /* cube */
#define SIMPLER_CORE_TYPE_AIV 1 /* vector */
#endif

/* Address space of a tensor created by simpler_orch_tensor_create: its
 * buffer_addr is an offset into the graph heap, which the device rebases.
 * Only the runtime produces it; callers never pass it in their arguments. */
#define SIMPLER_ADDRESS_SPACE_GRAPH_HEAP 2

typedef struct SimplerOrch SimplerOrch;

/* One tensor argument of simpler_orch_submit_views: the tensor of view
 * handle `view` with its start_offset replaced by `start_offset`
 * (elements), with a SIMPLER_TAG_* tag, exactly as simpler_orch_add_view
 * takes them. 16 bytes, no padding. */
typedef struct SimplerOrchViewArg {
    uint64_t start_offset;
    uint32_t view;
    uint32_t tag;
} SimplerOrchViewArg;

/* The runtime's side of the orchestration API. Every entry returns 0 or a
 * negative PTO_RUNTIME_ERR_* status; a failed call has no effect on the
 * graph, and the first failure is also kept by the runtime, which then
 * fails the whole build with it. After that, describing calls (create,
 * begin, add, submit) return that status without reading their
 * arguments, so an orchestration may ignore returns.
 *
 * Task arguments are described between args_begin and submit: tensors and
 * scalars in the order the kernel's signature lists them. */
typedef struct SimplerOrchOps {
    uint32_t struct_size; /* sizeof(SimplerOrchOps) */
    uint32_t abi_version; /* SIMPLER_ORCH_ABI_VERSION */
    /* Allocates a dense row-major intermediate of `dtype` and `shapes`
     * (ndims 1..5) on the graph heap (1024-aligned) and describes it in
     * *out with address_space SIMPLER_ADDRESS_SPACE_GRAPH_HEAP. */
    int (*tensor_create)(SimplerOrch *orch, uint8_t dtype, uint32_t ndims, const uint32_t *shapes,
                         ChipTensor *out);
    /* Starts a new task's argument list (discarding an unsubmitted one). */
    int (*args_begin)(SimplerOrch *orch);
    /* Appends a tensor argument with a SIMPLER_TAG_* tag. OUTPUT requires a
     * graph-heap tensor; OUTPUT_EXISTING, INPUT and INOUT take any. */
    int (*add_tensor)(SimplerOrch *orch, const ChipTensor *tensor, uint32_t tag);
    /* Appends a 64-bit scalar argument. */
    int (*add_scalar)(SimplerOrch *orch, uint64_t value);
    /* Submits the task: kernel `func_id` (0..1023) on `core_type`. */
    int (*submit)(SimplerOrch *orch, int32_t func_id, uint32_t core_type);
    /* Readers of the call's arguments (the same data as the entry's
     * `args`): counts, scalar i, tensor descriptor i. */
    int32_t (*arg_tensor_count)(const SimplerOrch *orch);
    int32_t (*arg_scalar_count)(const SimplerOrch *orch);
    int (*arg_scalar)(const SimplerOrch *orch, int32_t index, uint64_t *out);
    int (*arg_tensor)(const SimplerOrch *orch, int32_t index, ChipTensor *out);
    /* ---- appended after the first release: call them through the
     * wrappers below, which check struct_size first ---- */
    /* Checks `tensor` once as add_tensor checks every argument (reserved
     * bytes, dtype, shapes and strides, its view inside its buffer, its
     * address space and address) and names it for the rest of the build:
     * *view_out = a view handle, numbered from 0 in the order made. At
     * most SIMPLER_ORCH_VIEW_MAX per build. */
    int (*view_make)(SimplerOrch *orch, const ChipTensor *tensor, uint32_t *view_out);
    /* Appends a tensor argument with a SIMPLER_TAG_* tag: the tensor of
     * view handle `view` with its start_offset replaced by
     * `start_offset`, exactly as add_tensor of that tensor would, but
     * checking only what differs per use (the tag against the address
     * space, and the view inside the buffer at the new start). */
    int (*add_view)(SimplerOrch *orch, uint32_t view, uint64_t start_offset, uint32_t tag);
    /* One whole task in one call: args_begin, add_view of each of
     * `count` (view, start_offset, tag) entries in order, then submit
     * (func_id, core_type). */
    int (*submit_views)(SimplerOrch *orch, int32_t func_id, uint32_t core_type, const SimplerOrchViewArg *args,
                        uint32_t count);
} SimplerOrchOps;

/* View handles one build can hold (view_make). */
#define SIMPLER_ORCH_VIEW_MAX 256u

/* The handle an orchestration entry receives. The runtime embeds it as the
 * first member of its own builder state. */
struct SimplerOrch {
    const SimplerOrchOps *ops;
};

static inline int simpler_orch_tensor_create(SimplerOrch *orch, uint8_t dtype, uint32_t ndims,
                                             const uint32_t *shapes, ChipTensor *out)
{
    return orch->ops->tensor_create(orch, dtype, ndims, shapes, out);
}

static inline int simpler_orch_args_begin(SimplerOrch *orch)
{
    return orch->ops->args_begin(orch);
}

static inline int simpler_orch_add_input(SimplerOrch *orch, const ChipTensor *tensor)
{
    return orch->ops->add_tensor(orch, tensor, SIMPLER_TAG_INPUT);
}

static inline int simpler_orch_add_output(SimplerOrch *orch, const ChipTensor *tensor)
{
    return orch->ops->add_tensor(orch, tensor, SIMPLER_TAG_OUTPUT);
}

static inline int simpler_orch_add_inout(SimplerOrch *orch, const ChipTensor *tensor)
{
    return orch->ops->add_tensor(orch, tensor, SIMPLER_TAG_INOUT);
}

static inline int simpler_orch_add_output_existing(SimplerOrch *orch, const ChipTensor *tensor)
{
    return orch->ops->add_tensor(orch, tensor, SIMPLER_TAG_OUTPUT_EXISTING);
}

static inline int simpler_orch_add_no_dep(SimplerOrch *orch, const ChipTensor *tensor)
{
    return orch->ops->add_tensor(orch, tensor, SIMPLER_TAG_NO_DEP);
}

static inline int simpler_orch_add_scalar(SimplerOrch *orch, uint64_t value)
{
    return orch->ops->add_scalar(orch, value);
}

static inline int simpler_orch_submit(SimplerOrch *orch, int32_t func_id, uint32_t core_type)
{
    return orch->ops->submit(orch, func_id, core_type);
}

/* Whether the runtime's ops table has the op at `member` (a runtime older
 * than this header hands in a shorter table). */
#define SIMPLER_ORCH_HAS_OP(orch, member)                                                                           \
    ((orch)->ops->struct_size >= offsetof(SimplerOrchOps, member) + sizeof((orch)->ops->member))

/* Checks `tensor` (borrowed for the call) once and names its view for
 * the rest of the build in *view_out, so that the tasks using it can add
 * it with simpler_orch_add_view at the cost of a bounds check, not a
 * whole descriptor check, per argument: the tile loop's way to pass
 * many windows of one tensor. Everything add_tensor refuses in a tensor
 * (whatever the tag) is refused here, with the same status: -1005
 * (PTO_RUNTIME_ERR_INVALID_ARGUMENT) for NULL, a malformed view, a view
 * outside its buffer, a HOST tensor outside every staged caller tensor,
 * or a graph-heap tensor outside the heap; -1004 when the build already
 * holds SIMPLER_ORCH_VIEW_MAX handles. A handle names the tensor as it
 * was at this call, whatever the caller does with `tensor` afterwards,
 * and is valid until the build ends (in later builds the same number
 * names nothing, or another build's view). Like every describing call it
 * fails the whole build on failure, and returns the build's status at
 * once after an earlier failure. A runtime that predates view handles
 * makes this return -1003 (PTO_RUNTIME_ERR_INVALID_STATE), writing
 * nothing. */
static inline int simpler_orch_view_make(SimplerOrch *orch, const ChipTensor *tensor, uint32_t *view_out)
{
    if (!SIMPLER_ORCH_HAS_OP(orch, view_make))
        return -1003;
    return orch->ops->view_make(orch, tensor, view_out);
}

/* Appends a tensor argument to the open task: the tensor of handle
 * `view` with its start_offset replaced by `start_offset` (elements),
 * with a SIMPLER_TAG_* tag. The graph, its dependencies and the kernel's
 * argument are exactly those of add_tensor with that tensor. Returns 0;
 * -1005 for a handle this build did not make, a tag that is not a
 * SIMPLER_TAG_*, OUTPUT on a tensor that is not on the graph heap or
 * OUTPUT_EXISTING on one that is, a view that does not end inside its
 * buffer at `start_offset`, or more than SIMPLER_MAX_TASK_ARGS
 * arguments; -1003 outside args_begin..submit, or with a runtime that
 * predates view handles; -1004 when the graph's argument limit is
 * reached. Fails the build on failure, like add_tensor. */
static inline int simpler_orch_add_view(SimplerOrch *orch, uint32_t view, uint64_t start_offset, uint32_t tag)
{
    if (!SIMPLER_ORCH_HAS_OP(orch, add_view))
        return -1003;
    return orch->ops->add_view(orch, view, start_offset, tag);
}

/* Describes and submits one task whose arguments are all view-handle
 * windows, in one call: the same as simpler_orch_args_begin, then
 * simpler_orch_add_view(orch, args[i].view, args[i].start_offset,
 * args[i].tag) for i = 0..count-1, then simpler_orch_submit(orch,
 * func_id, core_type), with the same graph, dependencies and kernel
 * arguments as that sequence, at the cost of one call per task. An
 * argument list opened by args_begin and not submitted is discarded, as
 * args_begin would. `args` (borrowed for the call) may be NULL when
 * count is 0. Returns 0; -1005 (PTO_RUNTIME_ERR_INVALID_ARGUMENT) for
 * count > SIMPLER_MAX_TASK_ARGS, NULL args with count > 0, a bad
 * func_id or core_type, or any entry add_view would refuse (a handle
 * this build did not make, a tag that is not a SIMPLER_TAG_*, OUTPUT
 * on a tensor that is not on the graph heap or OUTPUT_EXISTING on one
 * that is, a window that does not end inside its buffer); -1004
 * (PTO_RUNTIME_ERR_CAPACITY_EXCEEDED) when the task window or the
 * graph's argument, edge or dependency-map limits would be exceeded;
 * -1003 (PTO_RUNTIME_ERR_INVALID_STATE) with a runtime that predates
 * this call (nothing is called then, so an orchestration may fall back
 * to the three calls). Like every describing call, a refusal adds no
 * task and fails the whole build, and after an earlier failure the call
 * returns the build's status without reading its arguments. */
static inline int simpler_orch_submit_views(SimplerOrch *orch, int32_t func_id, uint32_t core_type,
                                            const SimplerOrchViewArg *args, uint32_t count)
{
    if (!SIMPLER_ORCH_HAS_OP(orch, submit_views))
        return -1003;
    return orch->ops->submit_views(orch, func_id, core_type, args, count);
}

static inline int32_t simpler_orch_tensor_count(const SimplerOrch *orch)
{
    return orch->ops->arg_tensor_count(orch);
}

static inline int32_t simpler_orch_scalar_count(const SimplerOrch *orch)
{
    return orch->ops->arg_scalar_count(orch);
}

static inline int simpler_orch_scalar(const SimplerOrch *orch, int32_t index, uint64_t *out)
{
    return orch->ops->arg_scalar(orch, index, out);
}

static inline int simpler_orch_tensor(const SimplerOrch *orch, int32_t index, ChipTensor *out)
{
    return orch->ops->arg_tensor(orch, index, out);
}

/* Shape dim `dim` of the call's tensor `index`, or 0 when out of range. */
static inline uint32_t simpler_orch_shape(const SimplerOrch *orch, int32_t index, uint32_t dim)
{
    ChipTensor t;
    if (dim >= SIMPLER_MAX_TENSOR_DIMS || orch->ops->arg_tensor(orch, index, &t) != 0)
        return 0;
    return t.shapes[dim];
}

/* What a kernel receives for one block of one task. The runtime owns every
 * pointer; they are valid only during the call. tensors[i] is the task's
 * i-th tensor argument with buffer_addr rewritten to the real device
 * address (address_space DEVICE), so element (i0..in) lives at
 * buffer_addr + (start_offset + sum(ik * strides[k])) * dtype size. */
typedef struct SimplerKernelArgs {
    uint32_t struct_size;   /* sizeof(SimplerKernelArgs) */
    uint32_t abi_version;   /* SIMPLER_KERNEL_ABI_VERSION */
    int32_t func_id;
    uint32_t task_id;       /* index of the task in its graph */
    uint32_t tensor_count;  /* entries in tensors */
    uint32_t scalar_count;  /* entries in scalars */
    uint32_t block_idx;     /* this block, 0..block_dim-1 */
    uint32_t block_dim;
    uint32_t core_id;       /* the AICore running the block */
    uint32_t core_type;     /* SIMPLER_CORE_TYPE_AIC or _AIV */
    const ChipTensor *tensors;
    const uint64_t *scalars;
} SimplerKernelArgs;

typedef int (*SimplerOrchEntryFn)(SimplerOrch *orch, const ChipStorageTaskArgs *args);
typedef void (*SimplerKernelEntryFn)(const SimplerKernelArgs *args);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLER_ORCHESTRATION_H */
