/*
 * graph_orch — the ops an orchestration entry calls, acting on the
 * scratch of the running build. Every op validates fully before it
 * changes anything; a failure is also recorded as the build's status.
 * Once a build has failed, describing ops return that status at once
 * without looking at their arguments: an orchestration that ignores a
 * failed tensor_create must not make the build read what it never set.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "graph/graph_build_internal.h"
#include "graph/graph_status.h"
#include "graph/graph_tensor.h"
#include "graph/tensor_map.h"

static graph_scratch *scratch_of(SimplerOrch *orch)
{
    return (graph_scratch *)(void *)orch;
}

static const graph_scratch *scratch_of_const(const SimplerOrch *orch)
{
    return (const graph_scratch *)(const void *)orch;
}

/* Fails the build with `rc`, the reason the refused op recorded (or
 * `fallback`) prefixed with the op and the argument it was adding. */
static int op_fail(graph_scratch *s, int rc, const char *op)
{
    if (s->status == 0) {
        char inner[SIMPLER_ERROR_REASON_BYTES];
        snprintf(inner, sizeof inner, "%s", simpler_last_error_message());
        simpler_fail(rc, "%s (arg %u): %s", op, s->open_count, inner);
    }
    return graph_build_fail(s, rc);
}

/* Dense row-major strides, each fitting 32 bits. */
static int dense_strides(uint32_t ndims, const uint32_t *shapes, uint32_t *strides, uint64_t *elements)
{
    uint64_t n = 1;
    for (uint32_t d = ndims; d-- > 0;) {
        if (n > UINT32_MAX)
            return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                "tensor_create: the stride of dimension %u (%llu elements) does not fit 32 bits", d,
                                (unsigned long long)n);
        strides[d] = (uint32_t)n;
        if (shapes[d] == 0)
            return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "tensor_create: shapes[%u] = 0: at least 1", d);
        if (n > UINT64_MAX / shapes[d])
            return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                "tensor_create: shapes[%u] = %u: the element count overflows", d, shapes[d]);
        n *= shapes[d];
    }
    *elements = n;
    return 0;
}

/* The two words of a ChipTensor's 16-byte word `w` (0..7). */
static inline graph_u64x2 tensor_word(const ChipTensor *t, uint32_t w)
{
    return *(const graph_u64x2 *)(const void *)((const char *)t + 16 * w);
}

/* The shape of a dense graph-heap tensor of dtype, ndims and shapes
 * (checked) with these strides: its sizes and its bytes 24..72 as six
 * 64-bit lanes (ndims, dtype and address space; then shapes[0..4] and
 * strides[0..4] two to a lane, 0 past ndims). Written out: a loop over
 * a lane array left it on the stack. */
static void create_shape_fill(graph_create_shape *c, uint64_t bytes, uint64_t padded, uint32_t ndims, uint8_t dtype,
                              const uint32_t *shapes, const uint32_t *strides)
{
    _Static_assert(SIMPLER_MAX_TENSOR_DIMS == 5, "five dimensions: words 2, 3 and the low half of 4");
#define TENSOR_LANE(a, d) (ndims > (d) ? (uint64_t)(a)[d] : 0)
    c->w[0] = ndims | (uint64_t)dtype << 32 | (uint64_t)SIMPLER_ADDRESS_SPACE_GRAPH_HEAP << 40;
    c->w[1] = TENSOR_LANE(shapes, 0) | TENSOR_LANE(shapes, 1) << 32;
    c->w[2] = TENSOR_LANE(shapes, 2) | TENSOR_LANE(shapes, 3) << 32;
    c->w[3] = TENSOR_LANE(shapes, 4) | TENSOR_LANE(strides, 0) << 32;
    c->w[4] = TENSOR_LANE(strides, 1) | TENSOR_LANE(strides, 2) << 32;
    c->w[5] = TENSOR_LANE(strides, 3) | TENSOR_LANE(strides, 4) << 32;
#undef TENSOR_LANE
    c->bytes = bytes;
    c->padded = padded;
    c->key = (uint32_t)dtype << 8 | ndims;
    for (uint32_t d = 0; d < SIMPLER_MAX_TENSOR_DIMS; d++)
        c->shapes[d] = d < ndims ? shapes[d] : 0;
}

/* A dense tensor of the graph heap at addr written as eight 16-byte
 * words, each built in registers: memset then field stores was a `rep
 * stos` (about half of tensor_create's time), and field stores left the
 * tensor in pieces that the 16-byte loads of add_tensor (or of the
 * caller's struct copy) could not be served from until they reached the
 * cache. */
static void tensor_write(ChipTensor *out, uint64_t addr, const graph_create_shape *c)
{
    const graph_u64x2 zero = {0, 0};
    graph_u64x2 *w = (graph_u64x2 *)(void *)out;
    w[0] = (graph_u64x2){addr, c->bytes};
    w[1] = (graph_u64x2){0, c->w[0]};
    w[2] = (graph_u64x2){c->w[1], c->w[2]};
    w[3] = (graph_u64x2){c->w[3], c->w[4]};
    w[4] = (graph_u64x2){c->w[5], 0};
    w[5] = zero;
    w[6] = zero;
    w[7] = zero;
}

/* Every tensor_create, with each refusal's reason; the shape it checks
 * becomes the last one (a refusal for the heap alone still leaves it:
 * it depends on dtype, ndims and shapes only). */
static __attribute__((noinline)) int tensor_create_any(graph_scratch *s, uint8_t dtype, uint32_t ndims,
                                                       const uint32_t *shapes, ChipTensor *out)
{
    uint32_t strides[SIMPLER_MAX_TENSOR_DIMS]; /* dense_strides sets the first ndims */
    uint64_t elements = 0;
    uint32_t elem = tensor_dtype_bytes(dtype);
    if (s->status != 0)
        return s->status;
    if (out == NULL || shapes == NULL)
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "tensor_create: %s = NULL",
                                                out == NULL ? "out" : "shapes"));
    if (elem == 0)
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                                "tensor_create: dtype = %u: not a SIMPLER_DTYPE_*", dtype));
    if (ndims == 0 || ndims > SIMPLER_MAX_TENSOR_DIMS)
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                                "tensor_create: ndims = %u: must be 1..%d", ndims,
                                                SIMPLER_MAX_TENSOR_DIMS));
    int rc = dense_strides(ndims, shapes, strides, &elements);
    if (rc != 0)
        return graph_build_fail(s, rc);
    /* elem is a power of two (graph_dtype_shift): a shift, not a divide. */
    if (elements > (UINT64_MAX - GRAPH_HEAP_ALIGN) >> graph_dtype_shift(dtype))
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                                "tensor_create: %llu elements of %u bytes overflow 64 bits",
                                                (unsigned long long)elements, elem));
    uint64_t bytes = elements * elem;
    uint64_t padded = (bytes + GRAPH_HEAP_ALIGN - 1) / GRAPH_HEAP_ALIGN * GRAPH_HEAP_ALIGN;
    create_shape_fill(&s->last_create, bytes, padded, ndims, dtype, shapes, strides);
    if (padded > s->limits.heap_bytes_max - s->g.heap_bytes)
        return graph_build_fail_beyond_window(s, simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                                                "tensor_create: %llu bytes: the graph heap has %llu of its %llu "
                                                "bytes left",
                                                (unsigned long long)padded,
                                                (unsigned long long)(s->limits.heap_bytes_max - s->g.heap_bytes),
                                                (unsigned long long)s->limits.heap_bytes_max));
    tensor_write(out, s->g.heap_bytes, &s->last_create);
    s->g.heap_bytes += padded;
    return 0;
}

/* Whether shapes[0..ndims) are the last created shape's. */
static inline int create_shapes_equal(const graph_create_shape *c, const uint32_t *shapes, uint32_t ndims)
{
    for (uint32_t d = 0; d < ndims; d++)
        if (shapes[d] != c->shapes[d])
            return 0;
    return 1;
}

/* The tensor_create op. A tensor of the last created shape (a task's
 * next output tile) reuses that shape's checked words and sizes; any
 * other call, and any refusal, goes to tensor_create_any. */
static int orch_tensor_create(SimplerOrch *orch, uint8_t dtype, uint32_t ndims, const uint32_t *shapes,
                              ChipTensor *out)
{
    graph_scratch *s = scratch_of(orch);
    const graph_create_shape *c = &s->last_create;
    if (s->status != 0 || out == NULL || shapes == NULL || ndims - 1u >= SIMPLER_MAX_TENSOR_DIMS ||
        c->key != ((uint32_t)dtype << 8 | ndims) || !create_shapes_equal(c, shapes, ndims) ||
        c->padded > s->limits.heap_bytes_max - s->g.heap_bytes)
        return tensor_create_any(s, dtype, ndims, shapes, out);
    tensor_write(out, s->g.heap_bytes, c);
    s->g.heap_bytes += c->padded;
    return 0;
}

void graph_orch_discard_open(graph_scratch *s)
{
    if (s->open && s->g.view_count > s->open_views) {
        s->last_view_valid = 0;
        for (uint32_t i = 0; i < GRAPH_VIEW_CACHE; i++)
            if (s->view_cache[i] > s->open_views)
                s->view_cache[i] = 0;
        s->g.view_count = s->open_views;
        for (uint32_t i = 0; i < s->handle_count; i++)
            if (s->handles[i].view_plus1 > s->open_views)
                s->handles[i].view_plus1 = 0;
    }
    s->open = 0;
    s->open_count = 0;
    s->open_limit = 0;
}

static int orch_args_begin(SimplerOrch *orch)
{
    graph_scratch *s = scratch_of(orch);
    if (s->status != 0)
        return s->status;
    graph_orch_discard_open(s);
    s->open = 1;
    s->open_views = s->g.view_count;
    const uint32_t room = s->limits.arg_max - s->g.arg_count;
    s->open_limit = room < SIMPLER_MAX_TASK_ARGS ? room : SIMPLER_MAX_TASK_ARGS;
    return 0;
}

/* The next free argument record of the open task, or a status (with
 * its reason unless the build had already failed). */
static inline __attribute__((always_inline)) int next_arg(graph_scratch *s, graph_image_arg **out)
{
    int rc = s->status;
    if (rc != 0)
        return rc;
    if (!s->open)
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "no args_begin opened the task's argument list");
    else if (s->open_count >= SIMPLER_MAX_TASK_ARGS)
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "a task takes at most %d arguments",
                          SIMPLER_MAX_TASK_ARGS);
    else if (s->g.arg_count + s->open_count >= s->limits.arg_max)
        rc = simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED, "the graph's %u argument records are used up",
                          s->limits.arg_max);
    *out = &s->g.args[s->g.arg_count + s->open_count];
    return rc;
}

/* A HOST view must lie inside one staged caller tensor; it is addressed
 * at the same place inside that tensor's copy. */
static int resolve_host(const graph_scratch *s, const ChipTensor *t, graph_image_arg *a)
{
    for (uint32_t i = 0; i < s->g.staged_count; i++) {
        const graph_image_staged *st = &s->g.staged[i];
        const ChipTensor *c = &s->call->tensors[st->caller_index];
        if (t->buffer_addr >= c->buffer_addr && t->buffer_bytes <= c->buffer_bytes &&
            t->buffer_addr - c->buffer_addr <= c->buffer_bytes - t->buffer_bytes) {
            a->addr_kind = GRAPH_ADDR_STAGED;
            a->addr = st->temp_offset + (t->buffer_addr - c->buffer_addr);
            a->staged_index = (uint8_t)i;
            return 0;
        }
    }
    return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                        "tensor: HOST buffer 0x%llx (%llu bytes) lies inside no HOST tensor of the call's args",
                        (unsigned long long)t->buffer_addr, (unsigned long long)t->buffer_bytes);
}

static inline __attribute__((always_inline)) int resolve_address(const graph_scratch *s, const ChipTensor *t,
                                                                uint32_t tag, graph_image_arg *a)
{
    int heap = t->address_space == SIMPLER_ADDRESS_SPACE_GRAPH_HEAP;
    /* OUTPUT is the runtime-allocated kind; OUTPUT_EXISTING is the caller's. */
    if (tag == SIMPLER_TAG_OUTPUT && !heap)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "tag = OUTPUT on a tensor of address_space %u: OUTPUT is for tensor_create's tensors "
                            "(use OUTPUT_EXISTING)",
                            t->address_space);
    if (tag == SIMPLER_TAG_OUTPUT_EXISTING && heap)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "tag = OUTPUT_EXISTING on a tensor_create tensor: use OUTPUT");
    a->addr = t->buffer_addr;
    a->staged_index = 0;
    switch (t->address_space) {
    case SIMPLER_ADDRESS_SPACE_GRAPH_HEAP:
        if (t->buffer_addr % GRAPH_HEAP_ALIGN != 0 || t->buffer_addr + t->buffer_bytes > s->g.heap_bytes)
            return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                "tensor.buffer_addr = %llu, buffer_bytes = %llu: not a tensor_create buffer (the "
                                "heap holds %llu bytes, %d-aligned)",
                                (unsigned long long)t->buffer_addr, (unsigned long long)t->buffer_bytes,
                                (unsigned long long)s->g.heap_bytes, GRAPH_HEAP_ALIGN);
        a->addr_kind = GRAPH_ADDR_HEAP;
        return 0;
    case SIMPLER_ADDRESS_SPACE_DEVICE:
        a->addr_kind = GRAPH_ADDR_DEVICE;
        return 0;
    case SIMPLER_ADDRESS_SPACE_HOST:
        return resolve_host(s, t, a);
    default:
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "tensor.address_space = %u: not HOST (0), DEVICE (1) or GRAPH_HEAP", t->address_space);
    }
}

/* The index of `v` in the graph's views: found through the cache, or
 * appended (there is room: a graph holds at most one view per argument,
 * and the caller holds a free argument record). */
uint32_t graph_view_index(graph_scratch *s, const graph_image_view *v)
{
    uint32_t h = v->dtype * 0x9e3779b9u ^ v->ndims;
    for (uint32_t d = 0; d < SIMPLER_MAX_TENSOR_DIMS; d++)
        h = (h ^ v->shapes[d]) * 0x85ebca6bu ^ v->strides[d] * 0xc2b2ae35u;
    uint32_t *slot = &s->view_cache[(h ^ h >> 16) % GRAPH_VIEW_CACHE];
    if (*slot != 0 && memcmp(&s->g.views[*slot - 1], v, sizeof(*v)) == 0)
        return *slot - 1;
    s->g.views[s->g.view_count] = *v;
    *slot = ++s->g.view_count;
    return s->g.view_count - 1;
}

/* The TensorMap address space of an argument's addr_kind (1..3 from
 * resolve_address; anything else counts as the graph heap). */
static uint32_t space_of(uint8_t addr_kind)
{
    static const uint8_t space[4] = {
        [0] = SIMPLER_ADDRESS_SPACE_GRAPH_HEAP,
        [GRAPH_ADDR_DEVICE] = SIMPLER_ADDRESS_SPACE_DEVICE,
        [GRAPH_ADDR_HEAP] = SIMPLER_ADDRESS_SPACE_GRAPH_HEAP,
        [GRAPH_ADDR_STAGED] = SIMPLER_ADDRESS_SPACE_HOST,
    };
    return addr_kind < 4 ? space[addr_kind] : SIMPLER_ADDRESS_SPACE_GRAPH_HEAP;
}

/* A tag's accesses; NO_DEP (and anything past it) has none. */
static uint32_t access_mode(uint32_t tag)
{
    static const uint8_t mode[SIMPLER_TAG_NO_DEP + 1] = {
        [SIMPLER_TAG_INPUT] = GRAPH_ACCESS_READ,
        [SIMPLER_TAG_OUTPUT] = GRAPH_ACCESS_WRITE,
        [SIMPLER_TAG_INOUT] = GRAPH_ACCESS_READ | GRAPH_ACCESS_WRITE,
        [SIMPLER_TAG_OUTPUT_EXISTING] = GRAPH_ACCESS_WRITE,
        [SIMPLER_TAG_NO_DEP] = 0,
    };
    return tag <= SIMPLER_TAG_NO_DEP ? mode[tag] : 0;
}

/* The view key of t (GRAPH_VIEW_KEY_OFFSET): its four words, start_offset
 * masked out. */
static inline void view_key_of(const ChipTensor *t, graph_u64x2 key[GRAPH_VIEW_KEY_WORDS])
{
    const graph_u64x2 high = {0, UINT64_MAX};
    key[0] = tensor_word(t, 1) & high;
    key[1] = tensor_word(t, 2);
    key[2] = tensor_word(t, 3);
    key[3] = tensor_word(t, 4);
}

/* Whether the view key of t equals the last checked view's: four pairs
 * of words compared at once (memcmp would stop at the first difference,
 * which is rare here). */
static int view_key_equal(const graph_scratch *s, const ChipTensor *t)
{
    graph_u64x2 k[GRAPH_VIEW_KEY_WORDS];
    const graph_u64x2 *last = (const graph_u64x2 *)(const void *)s->last_key;
    view_key_of(t, k);
    graph_u64x2 d = (k[0] ^ last[0]) | (k[1] ^ last[1]) | (k[2] ^ last[2]) | (k[3] ^ last[3]);
    return (d[0] | d[1]) == 0;
}

/* graph_tensor_check's checks for a tensor whose view key equals the
 * last checked view's: the reserved words past the key (80..128) and the
 * fields outside it are left. */
static int tensor_check_known_view(const graph_scratch *s, const ChipTensor *t)
{
    graph_u64x2 o = tensor_word(t, 5) | tensor_word(t, 6) | tensor_word(t, 7);
    if ((o[0] | o[1]) != 0 || t->buffer_addr > UINT64_MAX - t->buffer_bytes)
        return graph_tensor_check(t, "tensor", &(uint64_t){0}); /* names the field */
    if (!graph_view_fits(s->last_shift, s->last_extent, t->start_offset, t->buffer_bytes))
        return graph_view_fail(t, "tensor", s->last_extent);
    return 0;
}

/* Checks a tensor whose view is not the last one's, finds or adds its
 * view and makes it the last one. */
static int tensor_check_new_view(graph_scratch *s, const ChipTensor *t)
{
    graph_image_view view;
    memset(&view, 0, sizeof(view));
    int rc = graph_tensor_check(t, "tensor", &view.extent);
    if (rc != 0)
        return rc;
    view.dtype = t->dtype;
    view.ndims = t->ndims;
    memcpy(view.shapes, t->shapes, sizeof(view.shapes));
    memcpy(view.strides, t->strides, sizeof(view.strides));
    s->last_view = graph_view_index(s, &view);
    s->last_extent = view.extent;
    s->last_shift = graph_dtype_shift(t->dtype);
    view_key_of(t, (graph_u64x2 *)(void *)s->last_key);
    s->last_view_valid = 1;
    return 0;
}

/* Every add_tensor, with each refusal's reason: the path of an argument
 * whose view is not the last one's, or whose address is HOST, and of
 * every refused call. */
static __attribute__((noinline)) int add_tensor_any(graph_scratch *s, const ChipTensor *tensor, uint32_t tag)
{
    graph_image_arg *a = NULL;
    int rc = next_arg(s, &a);
    if (rc == 0 && tensor == NULL)
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "tensor = NULL");
    if (rc == 0 && tag > SIMPLER_TAG_NO_DEP)
        rc = simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "tag = %u: not a SIMPLER_TAG_* (0..%d)", tag,
                          SIMPLER_TAG_NO_DEP);
    if (rc == 0) {
        /* Most arguments repeat the view of the one before (a task's
         * input and output tiles): its checks and its index are known. */
        if (s->last_view_valid && view_key_equal(s, tensor))
            rc = tensor_check_known_view(s, tensor);
        else
            rc = tensor_check_new_view(s, tensor);
    }
    /* The record is written field by field in its free slot (past the
     * graph's arguments, so a refusal leaves nothing the graph reads): a
     * local record copied whole was read back in 16-byte loads right
     * after its byte stores, a store-forwarding stall that was about 40%
     * of add_tensor's time. */
    if (rc == 0)
        rc = resolve_address(s, tensor, tag, a);
    if (rc != 0)
        return op_fail(s, rc, "add_tensor");
    a->kind = GRAPH_ARG_TENSOR;
    a->tag = (uint8_t)tag;
    a->view = s->last_view;
    a->buffer_bytes = tensor->buffer_bytes;
    a->start_offset = tensor->start_offset;
    /* The bytes the view touches: inside the buffer (checked above). */
    graph_access *acc = &s->open_access[s->open_count];
    acc->lo = a->addr + (tensor->start_offset << s->last_shift);
    acc->hi = acc->lo + (s->last_extent << s->last_shift);
    acc->space = space_of(a->addr_kind);
    acc->mode = access_mode(tag);
    s->open_count++;
    return 0;
}

/* Tags each address space takes: OUTPUT is the runtime-allocated kind
 * (graph heap), OUTPUT_EXISTING the caller's (resolve_address). */
#define GRAPH_HEAP_TAGS                                                                                           \
    (1u << SIMPLER_TAG_INPUT | 1u << SIMPLER_TAG_OUTPUT | 1u << SIMPLER_TAG_INOUT | 1u << SIMPLER_TAG_NO_DEP)
#define GRAPH_CALLER_TAGS                                                                                         \
    (1u << SIMPLER_TAG_INPUT | 1u << SIMPLER_TAG_INOUT | 1u << SIMPLER_TAG_OUTPUT_EXISTING | 1u << SIMPLER_TAG_NO_DEP)

/* The add_tensor op. The argument most calls add, one whose view is the
 * last checked one's in the graph heap or device memory, is accepted
 * here with the same checks as add_tensor_any and the same record and
 * byte range; anything else (a new view, a HOST address, any refusal)
 * goes to add_tensor_any, which starts over, so a refusal is reported
 * as it always was and this path changes nothing it did not accept. */
static int orch_add_tensor(SimplerOrch *orch, const ChipTensor *t, uint32_t tag)
{
    graph_scratch *s = scratch_of(orch);
    const uint32_t n = s->open_count, at = s->g.arg_count + n;
    /* open_limit: the build has not failed, a task is open, and it may
     * take argument n (SIMPLER_MAX_TASK_ARGS, the records left). */
    if (n >= s->open_limit || t == NULL || tag > SIMPLER_TAG_NO_DEP || !s->last_view_valid ||
        !view_key_equal(s, t))
        return add_tensor_any(s, t, tag);
    const uint64_t addr = t->buffer_addr, bytes = t->buffer_bytes, start = t->start_offset;
    const graph_u64x2 o = tensor_word(t, 5) | tensor_word(t, 6) | tensor_word(t, 7);
    if ((o[0] | o[1]) != 0 || addr > UINT64_MAX - bytes ||
        !graph_view_fits(s->last_shift, s->last_extent, start, bytes))
        return add_tensor_any(s, t, tag);
    uint32_t kind;
    if (t->address_space == SIMPLER_ADDRESS_SPACE_GRAPH_HEAP) {
        if (((GRAPH_HEAP_TAGS >> tag) & 1u) == 0 || addr % GRAPH_HEAP_ALIGN != 0 || addr + bytes > s->g.heap_bytes)
            return add_tensor_any(s, t, tag);
        kind = GRAPH_ADDR_HEAP;
    } else if (t->address_space == SIMPLER_ADDRESS_SPACE_DEVICE) {
        if (((GRAPH_CALLER_TAGS >> tag) & 1u) == 0)
            return add_tensor_any(s, t, tag);
        kind = GRAPH_ADDR_DEVICE;
    } else {
        return add_tensor_any(s, t, tag);
    }
    graph_image_arg *a = &s->g.args[at];
    *a = (graph_image_arg){.kind = GRAPH_ARG_TENSOR,
                           .tag = (uint8_t)tag,
                           .addr_kind = (uint8_t)kind,
                           .staged_index = 0,
                           .view = s->last_view,
                           .addr = addr,
                           .buffer_bytes = bytes,
                           .start_offset = start};
    graph_access *acc = &s->open_access[n];
    acc->lo = addr + (start << s->last_shift);
    acc->hi = acc->lo + (s->last_extent << s->last_shift);
    acc->space = t->address_space; /* the TensorMap space of both kinds (space_of) */
    acc->mode = access_mode(tag);
    s->open_count = n + 1;
    return 0;
}

static int orch_view_make(SimplerOrch *orch, const ChipTensor *tensor, uint32_t *view_out)
{
    graph_scratch *s = scratch_of(orch);
    graph_view_handle h;
    if (s->status != 0)
        return s->status;
    if (tensor == NULL || view_out == NULL)
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "view_make: %s: NULL",
                                                tensor == NULL ? "tensor" : "view_out"));
    if (s->handle_count >= SIMPLER_ORCH_VIEW_MAX)
        return graph_build_fail_beyond_window(s, simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
                                                "view_make: the build already holds %u view handles",
                                                (unsigned)SIMPLER_ORCH_VIEW_MAX));
    memset(&h, 0, sizeof(h));
    int rc = graph_tensor_check(tensor, "view_make: tensor", &h.view.extent);
    /* NO_DEP takes every address space: the tag checks come per use. */
    rc = rc ? rc : resolve_address(s, tensor, SIMPLER_TAG_NO_DEP, &h.rec);
    if (rc != 0)
        return graph_build_fail(s, rc);
    h.rec.kind = GRAPH_ARG_TENSOR;
    h.rec.buffer_bytes = tensor->buffer_bytes;
    h.view.dtype = tensor->dtype;
    h.view.ndims = tensor->ndims;
    memcpy(h.view.shapes, tensor->shapes, sizeof(h.view.shapes));
    memcpy(h.view.strides, tensor->strides, sizeof(h.view.strides));
    h.shift = graph_dtype_shift(tensor->dtype);
    h.space = space_of(h.rec.addr_kind);
    /* The view fits its buffer at the tensor's start (checked above). */
    h.max_start = (tensor->buffer_bytes >> h.shift) - h.view.extent;
    h.extent_bytes = h.view.extent << h.shift;
    h.tags = 1u << SIMPLER_TAG_INPUT | 1u << SIMPLER_TAG_INOUT | 1u << SIMPLER_TAG_NO_DEP |
             (tensor->address_space == SIMPLER_ADDRESS_SPACE_GRAPH_HEAP ? 1u << SIMPLER_TAG_OUTPUT
                                                                         : 1u << SIMPLER_TAG_OUTPUT_EXISTING);
    s->handles[s->handle_count] = h;
    *view_out = s->handle_count++;
    return 0;
}

static int orch_add_view(SimplerOrch *orch, uint32_t view, uint64_t start_offset, uint32_t tag)
{
    graph_scratch *s = scratch_of(orch);
    graph_image_arg *a;
    int rc = next_arg(s, &a);
    if (rc != 0)
        return graph_build_fail(s, rc);
    if (view >= s->handle_count || tag > SIMPLER_TAG_NO_DEP)
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                                "add_view: view %u, tag %u: not a view handle of this build "
                                                "(%u made) and a SIMPLER_TAG_*",
                                                view, tag, s->handle_count));
    graph_view_handle *h = &s->handles[view];
    /* OUTPUT is the runtime-allocated kind; OUTPUT_EXISTING the caller's
     * (tags has the one that fits its address space). */
    if (((h->tags >> tag) & 1u) == 0 || start_offset > h->max_start)
        return graph_build_fail(s, simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                                "add_view: view %u at element %llu with tag %u: the view leaves "
                                                "its buffer, or the tag does not fit its address space",
                                                view, (unsigned long long)start_offset, tag));
    graph_handle_view_use(s, h);
    *a = h->rec;
    a->tag = (uint8_t)tag;
    a->start_offset = start_offset;
    graph_access *acc = &s->open_access[s->open_count];
    acc->lo = h->rec.addr + (start_offset << h->shift);
    acc->hi = acc->lo + (h->view.extent << h->shift);
    acc->space = h->space;
    acc->mode = access_mode(tag);
    s->open_count++;
    return 0;
}

static int orch_add_scalar(SimplerOrch *orch, uint64_t value)
{
    graph_scratch *s = scratch_of(orch);
    graph_image_arg *a = NULL;
    int rc = next_arg(s, &a);
    if (rc != 0)
        return op_fail(s, rc, "add_scalar");
    memset(a, 0, sizeof(*a));
    a->kind = GRAPH_ARG_SCALAR;
    a->addr = value;
    s->open_access[s->open_count].mode = 0;
    s->open_count++;
    return 0;
}

static int32_t orch_arg_tensor_count(const SimplerOrch *orch)
{
    const graph_scratch *s = scratch_of_const(orch);
    return s->call != NULL ? s->call->tensor_count : 0;
}

static int32_t orch_arg_scalar_count(const SimplerOrch *orch)
{
    const graph_scratch *s = scratch_of_const(orch);
    return s->call != NULL ? s->call->scalar_count : 0;
}

/* Readers do not fail the build: asking is not describing. */
static int orch_arg_scalar(const SimplerOrch *orch, int32_t index, uint64_t *out)
{
    const graph_scratch *s = scratch_of_const(orch);
    if (out == NULL || s->call == NULL || index < 0 || index >= s->call->scalar_count)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: none: a reader does not fail the build */
    *out = s->call->scalars[index];
    return 0;
}

static int orch_arg_tensor(const SimplerOrch *orch, int32_t index, ChipTensor *out)
{
    const graph_scratch *s = scratch_of_const(orch);
    if (out == NULL || s->call == NULL || index < 0 || index >= s->call->tensor_count)
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT; /* reason: none: a reader does not fail the build */
    *out = s->call->tensors[index];
    return 0;
}

const SimplerOrchOps graph_orch_ops = {
    .struct_size = sizeof(SimplerOrchOps),
    .abi_version = SIMPLER_ORCH_ABI_VERSION,
    .tensor_create = orch_tensor_create,
    .args_begin = orch_args_begin,
    .add_tensor = orch_add_tensor,
    .add_scalar = orch_add_scalar,
    .submit = graph_orch_submit,
    .arg_tensor_count = orch_arg_tensor_count,
    .arg_scalar_count = orch_arg_scalar_count,
    .arg_scalar = orch_arg_scalar,
    .arg_tensor = orch_arg_tensor,
    .view_make = orch_view_make,
    .add_view = orch_add_view,
    .submit_views = graph_orch_submit_views,
};
