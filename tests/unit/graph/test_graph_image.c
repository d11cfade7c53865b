/* Graph image contracts: built images pass graph_image_check, and every
 * named corruption of one is rejected with -1005. */
#include "graph_test_util.h"

enum { HDR, STAGED, VIEW, TASK, ARG, FANOUT };

typedef struct corruption {
    const char *what;
    int section;
    uint32_t index;  /* record index in the section */
    uint32_t field;  /* byte offset in the record */
    uint32_t width;  /* 1, 4 or 8 bytes */
    uint64_t value;
} corruption;

/* The diamond image with `a` staged from the host:
 * staged {a}; one view (16 floats); tasks 0..3;
 * args a c | c d | c e | d e out 7;
 * fan-in counts 0 1 1 2; fan-out 1 2 | 3 | 3. */
static const corruption corruptions[] = {
    {"bad magic", HDR, 0, 0, 4, 0x12345678},
    {"bad version", HDR, 0, 4, 4, 1},
    {"bad header size", HDR, 0, 8, 4, 64},
    {"view count too high", HDR, 0, 12, 4, 2},
    {"view count zero", HDR, 0, 12, 4, 0},
    {"image size disagrees", HDR, 0, 16, 8, 4096},
    {"heap size unaligned", HDR, 0, 24, 8, 3000},
    {"heap smaller than its tensors", HDR, 0, 24, 8, 2048},
    {"temp smaller than the staged copy", HDR, 0, 32, 8, 0},
    {"task count too high", HDR, 0, 40, 4, 5},
    {"task count too low", HDR, 0, 40, 4, 3},
    {"task count over the window", HDR, 0, 40, 4, GRAPH_TASK_WINDOW_MAX + 1},
    {"arg count too high", HDR, 0, 44, 4, 11},
    {"edge count too low", HDR, 0, 48, 4, 3},
    {"staged count zero", HDR, 0, 52, 4, 0},
    {"task offset moved", HDR, 0, 56, 4, 136},
    {"arg offset moved", HDR, 0, 60, 4, 264},
    {"fan-out offset moved", HDR, 0, 64, 4, 8},
    {"fan-out offset past the end", HDR, 0, 64, 4, 1u << 20},
    {"view offset moved", HDR, 0, 68, 4, 96 + 32 + 8},
    {"staged offset moved", HDR, 0, 72, 4, 0},
    {"reserved1 set", HDR, 0, 76, 4, 1},
    {"AIC chain heads overstated", HDR, 0, 80, 4, 2},
    {"AIC chain heads understated", HDR, 0, 80, 4, 0},
    {"AIV chain heads overstated", HDR, 0, 84, 4, 4},
    {"AIV chain heads understated", HDR, 0, 84, 4, 2},
    {"reserved words set", HDR, 0, 88, 8, 1},
    {"staged caller index out of range", STAGED, 0, 0, 4, SIMPLER_MAX_TENSOR_ARGS},
    {"staged flags unknown", STAGED, 0, 4, 4, 4},
    {"staged offset unaligned", STAGED, 0, 8, 8, 8},
    {"staged copy past temp", STAGED, 0, 16, 8, 2000},
    {"staged copy empty", STAGED, 0, 16, 8, 0},
    {"staged reserved set", STAGED, 0, 24, 8, 1},
    {"func_id over the limit", TASK, 0, 0, 4, GRAPH_FUNC_ID_LIMIT},
    {"func_id negative", TASK, 0, 0, 4, UINT32_MAX},
    {"core type unknown", TASK, 1, 4, 4, 2},
    {"arg ranges not contiguous", TASK, 1, 8, 4, 3},
    {"arg counts do not add up", TASK, 3, 12, 4, 3},
    {"arg count over the signature bound", TASK, 3, 12, 4, SIMPLER_MAX_TASK_ARGS + 1},
    {"fan-in ranges not contiguous", TASK, 1, 16, 4, 1},
    {"fan-in count below its predecessors", TASK, 3, 20, 4, 1},
    {"fan-in count above its predecessors", TASK, 1, 20, 4, 2},
    {"fan-in count of a source", TASK, 0, 20, 4, 1},
    {"fan-out counts do not add up", TASK, 0, 28, 4, 1},
    {"fan-out ranges not contiguous", TASK, 1, 24, 4, 1},
    {"arg kind zero", ARG, 0, 0, 1, 0},
    {"arg kind unknown", ARG, 0, 0, 1, 3},
    {"tensor tag unknown", ARG, 0, 1, 1, 5},
    {"address kind zero", ARG, 1, 2, 1, 0},
    {"address kind unknown", ARG, 1, 2, 1, 4},
    {"dtype zero", VIEW, 0, 0, 1, 0},
    {"dtype unknown", VIEW, 0, 0, 1, SIMPLER_DTYPE_COUNT},
    {"view reserved set", VIEW, 0, 1, 1, 1},
    {"ndims zero", VIEW, 0, 4, 4, 0},
    {"ndims over five", VIEW, 0, 4, 4, 6},
    {"view extent understated", VIEW, 0, 8, 8, 1},
    {"view extent overstated", VIEW, 0, 8, 8, 17},
    {"shape zero", VIEW, 0, 16, 4, 0},
    {"stride zero", VIEW, 0, 36, 4, 0},
    {"stride in an unused dim", VIEW, 0, 40, 4, 1},
    {"view index out of range", ARG, 1, 4, 4, 1},
    {"view past its buffer", ARG, 1, 24, 8, 1},
    {"view start wrapping", ARG, 1, 24, 8, UINT64_MAX},
    {"buffer a byte short of its view", ARG, 2, 16, 8, 63},
    {"heap tensor past the heap", ARG, 5, 8, 8, 3072},
    {"heap tensor at a huge offset", ARG, 5, 8, 8, 1ull << 63},
    {"staged tensor past its copy", ARG, 0, 8, 8, 64},
    {"staged index out of range", ARG, 0, 3, 1, 1},
    {"device tensor with a staged index", ARG, 8, 3, 1, 1},
    {"heap tensor with a staged index", ARG, 1, 3, 1, 1},
    {"device buffer wrapping", ARG, 8, 8, 8, UINT64_MAX - 8},
    {"OUTPUT into a caller buffer", ARG, 8, 1, 1, SIMPLER_TAG_OUTPUT},
    /* Arg 8 takes the device-tensor fast path of the check (its view is
     * the one kept from arg 0): each of its checks refuses there too. */
    {"device tensor tag unknown", ARG, 8, 1, 1, 5},
    {"device tensor tag 32 (INPUT modulo 32)", ARG, 8, 1, 1, 32},
    {"device buffer a byte short of its view", ARG, 8, 16, 8, 63},
    {"device view start past its buffer", ARG, 8, 24, 8, 1},
    {"OUTPUT_EXISTING into the heap", ARG, 1, 1, 1, SIMPLER_TAG_OUTPUT_EXISTING},
    {"scalar with a tag", ARG, 9, 1, 1, 1},
    {"scalar with an address kind", ARG, 9, 2, 1, 1},
    {"scalar with a staged index", ARG, 9, 3, 1, 1},
    {"scalar with a view", ARG, 9, 4, 4, 1},
    {"scalar with bytes", ARG, 9, 16, 8, 1},
    {"scalar with an offset", ARG, 9, 24, 8, 1},
    {"successor not after the task", FANOUT, 0, 0, 4, 0},
    {"successor repeated", FANOUT, 1, 0, 4, 1},
    {"successors not increasing", FANOUT, 0, 0, 4, 3},
    {"fan-out disagrees with the fan-in counts", FANOUT, 2, 0, 4, 2},
    {"successor out of range", FANOUT, 3, 0, 4, 4},
};

static void *diamond_image(size_t *size)
{
    graph_scratch *s = gt_scratch(8);
    ChipStorageTaskArgs *args = diamond_args(SIMPLER_ADDRESS_SPACE_HOST, SIMPLER_ADDRESS_SPACE_DEVICE);
    const graph *g = NULL;
    assert_int_equal(graph_build_run(s, orch_diamond, args, &g), 0);
    void *img = gt_image(g, size);
    graph_scratch_destroy(s);
    free(args);
    return img;
}

static size_t section_offset(const graph_image_header *h, int section)
{
    switch (section) {
    case STAGED: return h->staged_offset;
    case VIEW: return h->view_offset;
    case TASK: return h->task_offset;
    case ARG: return h->arg_offset;
    case FANOUT: return h->fanout_offset;
    default: return 0;
    }
}

static size_t record_size(int section)
{
    switch (section) {
    case STAGED: return sizeof(graph_image_staged);
    case VIEW: return sizeof(graph_image_view);
    case TASK: return sizeof(graph_image_task);
    case ARG: return sizeof(graph_image_arg);
    case FANOUT: return sizeof(uint32_t);
    default: return 0;
    }
}

static void graph_image_check_accepts_built_image(void **state)
{
    (void)state;
    size_t size;
    void *img = diamond_image(&size);
    const graph_image_header *h = img;
    assert_int_equal(size, 96 + 32 + 56 + 4 * 32 + 10 * 32 + 4 * 4); /* one view: all 16 floats */
    assert_int_equal(h->staged_count, 1);
    assert_int_equal(gt_check(img, size), 0);
    const uint32_t *fanout = (const uint32_t *)((const char *)img + h->fanout_offset);
    const graph_image_task *t = (const graph_image_task *)((const char *)img + h->task_offset);
    assert_int_equal(t[0].fanout_count, 2);
    assert_int_equal(fanout[0], 1);
    assert_int_equal(fanout[1], 2);
    assert_int_equal(t[1].fanout_begin, 2);
    assert_int_equal(fanout[2], 3);
    assert_int_equal(t[3].fanout_count, 0);
    /* No chain links (0 and 1 have other successors or partners): every
     * task is a head, e on the AIC. */
    assert_int_equal(h->chain_heads[SIMPLER_CORE_TYPE_AIC], 1);
    assert_int_equal(h->chain_heads[SIMPLER_CORE_TYPE_AIV], 3);
    free(img);
}

/* Task 0 on AIV apart from the rest, then the chain x1 = f(x0) (AIV),
 * x2 = f(x1) (AIV), x3 = f(x2) (AIC), x4 = f(x3) (AIC), tasks 1..4: links
 * 1 -> 2 and 3 -> 4 (2 -> 3 changes core type). */
static int orch_typed_chains(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    static const uint32_t types[4] = {SIMPLER_CORE_TYPE_AIV, SIMPLER_CORE_TYPE_AIV, SIMPLER_CORE_TYPE_AIC,
                                      SIMPLER_CORE_TYPE_AIC};
    uint32_t shape = args->tensors[0].shapes[0];
    ChipTensor x[5];
    x[0] = args->tensors[0];
    for (int i = 1; i < 5; i++)
        simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &x[i]);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &args->tensors[1]);
    simpler_orch_add_output_existing(orch, &args->tensors[2]);
    simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    for (int i = 0; i < 4; i++) {
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &x[i]);
        simpler_orch_add_output(orch, &x[i + 1]);
        simpler_orch_submit(orch, 0, types[i]);
    }
    return 0;
}

/* Three DEVICE tensors of 4, `middle` and 4 elements. */
static ChipStorageTaskArgs *three_device_tensors(uint32_t middle)
{
    ChipStorageTaskArgs *args = calloc(1, sizeof(*args));
    assert_non_null(args);
    gt_args_add_tensor(args, 0x10000, 4, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_tensor(args, 0x20000, middle, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_tensor(args, 0x30000, 4, SIMPLER_ADDRESS_SPACE_DEVICE);
    return args;
}

/* The writer counts each type's tasks less its chain links into the
 * header, the check recounts them, and an image whose count is off by
 * one either way is refused. */
static void graph_image_header_counts_chain_heads_per_type(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(8);
    ChipStorageTaskArgs *args = three_device_tensors(4);
    const graph *g = NULL;
    assert_int_equal(graph_build_run(s, orch_typed_chains, args, &g), 0);
    size_t size;
    void *img = gt_image(g, &size);
    graph_image_header *h = img;
    const graph_image_task *t = (const graph_image_task *)((char *)img + h->task_offset);
    const uint32_t *fanout = (const uint32_t *)((char *)img + h->fanout_offset);
    assert_int_equal(h->task_count, 5);
    assert_int_equal(graph_image_chain_next(t, fanout, 0), 0); /* y: no successor */
    assert_int_equal(graph_image_chain_next(t, fanout, 1), 2 + 1);
    assert_int_equal(graph_image_chain_next(t, fanout, 2), 0); /* AIV -> AIC */
    assert_int_equal(graph_image_chain_next(t, fanout, 3), 4 + 1);
    assert_int_equal(h->chain_heads[SIMPLER_CORE_TYPE_AIV], 2);
    assert_int_equal(h->chain_heads[SIMPLER_CORE_TYPE_AIC], 1);
    assert_int_equal(gt_check(img, size), 0);
    /* An accepted image leaves each task's link in the scratch (the
     * scheduler's seeding reads it there), over a scratch that was dirty. */
    uint32_t links[5] = {7, 7, 7, 7, 7};
    assert_int_equal(graph_image_check(img, size, links, 5), 0);
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(links[i], graph_image_chain_next(t, fanout, i));
    for (int type = 0; type < 2; type++) {
        h->chain_heads[type]++;
        assert_int_equal(gt_check(img, size), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
        h->chain_heads[type] -= 2;
        assert_int_equal(gt_check(img, size), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
        h->chain_heads[type]++;
        assert_int_equal(gt_check(img, size), 0);
    }
    free(img);
    free(args);
    graph_scratch_destroy(s);
}

static void graph_image_check_rejects_every_named_corruption(void **state)
{
    (void)state;
    size_t size;
    void *pristine = diamond_image(&size);
    void *img = aligned_alloc(64, (size + 63) / 64 * 64);
    assert_non_null(img);
    for (size_t i = 0; i < sizeof(corruptions) / sizeof(corruptions[0]); i++) {
        const corruption *c = &corruptions[i];
        memcpy(img, pristine, size);
        size_t at = section_offset(pristine, c->section) + c->index * record_size(c->section) + c->field;
        assert_true(at + c->width <= size);
        uint64_t old = 0;
        memcpy(&old, (char *)img + at, c->width);
        if (old == c->value)
            fail_msg("corruption '%s' changes nothing", c->what);
        memcpy((char *)img + at, &c->value, c->width);
        if (gt_check(img, size) != PTO_RUNTIME_ERR_INVALID_ARGUMENT)
            fail_msg("corruption '%s' was accepted", c->what);
    }
    free(img);
    free(pristine);
}

/* A repeated edge whose counts were adjusted to match: every count and
 * sum agrees, only the fan-out list's order gives it away. */
/* One task reading a 4-float view, then a 16-float one, then the
 * 4-float one again: the check must measure each against its own view. */
static int orch_two_views(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &args->tensors[0]);
    simpler_orch_add_input(orch, &args->tensors[1]);
    simpler_orch_add_input(orch, &args->tensors[2]);
    return simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
}

static void graph_image_check_measures_each_tensor_by_its_view(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(8);
    ChipStorageTaskArgs *args = three_device_tensors(16);
    const graph *g = NULL;
    assert_int_equal(graph_build_run(s, orch_two_views, args, &g), 0);
    size_t size;
    void *img = gt_image(g, &size);
    const graph_image_header *h = img;
    graph_image_arg *a = (graph_image_arg *)((char *)img + h->arg_offset);
    assert_int_equal(h->view_count, 2);
    assert_int_not_equal(a[0].view, a[1].view);
    assert_int_equal(a[0].view, a[2].view);
    assert_int_equal(gt_check(img, size), 0);
    /* The 16-float tensor's buffer cut to 15 floats: enough for the view
     * before it, not for its own. */
    a[1].buffer_bytes = 15 * sizeof(float);
    assert_int_equal(gt_check(img, size), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    a[1].buffer_bytes = 16 * sizeof(float);
    a[2].buffer_bytes = 3 * sizeof(float);
    assert_int_equal(gt_check(img, size), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    free(img);
    free(args);
    graph_scratch_destroy(s);
}

static void graph_image_check_rejects_a_repeated_edge_with_matching_counts(void **state)
{
    (void)state;
    size_t size;
    void *img = diamond_image(&size);
    const graph_image_header *h = img;
    graph_image_task *t = (graph_image_task *)((char *)img + h->task_offset);
    uint32_t *fanout = (uint32_t *)((char *)img + h->fanout_offset);
    assert_int_equal(fanout[1], 2);
    fanout[1] = 1; /* task 0: successors 1 1 */
    t[1].fanin_count = 2;
    t[2].fanin_count = 0;
    t[2].fanin_begin = 2;
    t[3].fanin_begin = 2;
    assert_int_equal(gt_check(img, size), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    free(img);
}

static void graph_image_check_rejects_truncation_and_bad_buffers(void **state)
{
    (void)state;
    size_t size;
    void *img = diamond_image(&size);
    char *shifted = aligned_alloc(64, (size + 64 + 63) / 64 * 64);
    assert_non_null(shifted);
    assert_int_equal(gt_check(img, size - 1), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(gt_check(img, size - 4), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(gt_check(img, sizeof(graph_image_header)), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(gt_check(img, sizeof(graph_image_header) - 1), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(gt_check(img, 0), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(gt_check(NULL, size), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    uint32_t scratch[4];
    assert_int_equal(graph_image_check(img, size, scratch, 4), 0);
    assert_int_equal(graph_image_check(img, size, scratch, 3), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_image_check(img, size, NULL, 4), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    memcpy(shifted + 4, img, size);
    assert_int_equal(gt_check(shifted + 4, size), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    memcpy(shifted + 8, img, size);
    assert_int_equal(gt_check(shifted + 8, size), 0);
    free(shifted);
    free(img);
}

static int orch_empty(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    (void)orch;
    (void)args;
    return 0;
}

static void graph_image_of_empty_graph_is_header_only_and_valid(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(1);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    size_t size;
    assert_int_equal(graph_build_run(s, orch_empty, args, &g), 0);
    void *img = gt_image(g, &size);
    assert_int_equal(size, sizeof(graph_image_header));
    assert_int_equal(gt_check(img, size), 0);
    free(img);
    graph_scratch_destroy(s);
    free(args);
}

static void graph_image_write_refuses_wrong_size_and_writes_nothing(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(8);
    ChipStorageTaskArgs *args = diamond_args(SIMPLER_ADDRESS_SPACE_DEVICE, SIMPLER_ADDRESS_SPACE_DEVICE);
    const graph *g = NULL;
    assert_int_equal(graph_build_run(s, orch_diamond, args, &g), 0);
    size_t size = graph_image_size(g);
    unsigned char *buf = aligned_alloc(64, (size + 64 + 63) / 64 * 64);
    assert_non_null(buf);
    memset(buf, 0xa5, size + 64);
    assert_int_equal(graph_image_write(g, buf, size + 8), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_image_write(g, buf, size - 8), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_image_write(g, buf + 4, size), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    for (size_t i = 0; i < size + 64; i++)
        assert_int_equal(buf[i], 0xa5);
    free(buf);
    graph_scratch_destroy(s);
    free(args);
}

/* The head, g's task and argument records and the fan-out lists, each
 * at its header offset, are the image graph_image_write writes, byte for
 * byte (a staged tensor, a view table, fan-out of two, chains). */
static void graph_image_write_parts_assembles_the_written_image(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(8);
    ChipStorageTaskArgs *args = diamond_args(SIMPLER_ADDRESS_SPACE_HOST, SIMPLER_ADDRESS_SPACE_DEVICE);
    const graph *g = NULL;
    size_t size;
    assert_int_equal(graph_build_run(s, orch_diamond, args, &g), 0);
    assert_true(g->staged_count > 0 && g->edge_count > 0);
    unsigned char *whole = gt_image(g, &size);
    graph_image_header h;
    memcpy(&h, whole, sizeof(h));
    uint64_t *head = calloc(h.task_offset / 8, 8);
    uint32_t *fanout = calloc(g->edge_count, sizeof(uint32_t));
    unsigned char *joined = calloc(1, size);
    assert_true(head != NULL && fanout != NULL && joined != NULL);
    assert_int_equal(graph_image_write_parts(g, head, h.task_offset, fanout), 0);
    memcpy(joined, head, h.task_offset);
    memcpy(joined + h.task_offset, g->tasks, (size_t)g->task_count * sizeof(graph_image_task));
    memcpy(joined + h.arg_offset, g->args, (size_t)g->arg_count * sizeof(graph_image_arg));
    memcpy(joined + h.fanout_offset, fanout, (size_t)g->edge_count * sizeof(uint32_t));
    assert_memory_equal(joined, whole, size);
    /* Written again over its own filled records: the same image. */
    free(whole);
    whole = gt_image(g, &size);
    assert_memory_equal(joined, whole, size);
    free(joined);
    free(fanout);
    free(head);
    free(whole);
    graph_scratch_destroy(s);
    free(args);
}

static void graph_image_write_parts_refuses_bad_buffers_and_writes_nothing(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(8);
    ChipStorageTaskArgs *args = diamond_args(SIMPLER_ADDRESS_SPACE_DEVICE, SIMPLER_ADDRESS_SPACE_DEVICE);
    const graph *g = NULL;
    assert_int_equal(graph_build_run(s, orch_diamond, args, &g), 0);
    size_t head_bytes = graph_image_size(g) - (size_t)g->task_count * sizeof(graph_image_task) -
                        (size_t)g->arg_count * sizeof(graph_image_arg) - (size_t)g->edge_count * sizeof(uint32_t);
    unsigned char *buf = aligned_alloc(64, (head_bytes + 64 + 63) / 64 * 64);
    uint32_t fanout[16];
    assert_non_null(buf);
    assert_true(g->edge_count <= 16);
    memset(buf, 0xa5, head_bytes + 64);
    memset(fanout, 0xa5, sizeof(fanout));
    assert_int_equal(graph_image_write_parts(g, buf, head_bytes + 8, fanout), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_image_write_parts(g, buf, head_bytes - 8, fanout), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_image_write_parts(g, buf + 4, head_bytes, fanout), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_image_write_parts(g, NULL, head_bytes, fanout), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_image_write_parts(g, buf, head_bytes, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_image_write_parts(NULL, buf, head_bytes, fanout), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    for (size_t i = 0; i < head_bytes + 64; i++)
        assert_int_equal(buf[i], 0xa5);
    for (size_t i = 0; i < 16; i++)
        assert_int_equal(fanout[i], 0xa5a5a5a5u);
    for (uint32_t i = 0; i < g->task_count; i++)
        assert_int_equal(g->tasks[i].fanout_begin, 0); /* the fill's cursor: untouched */
    free(buf);
    graph_scratch_destroy(s);
    free(args);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(graph_image_check_accepts_built_image),
        cmocka_unit_test(graph_image_check_rejects_every_named_corruption),
        cmocka_unit_test(graph_image_header_counts_chain_heads_per_type),
        cmocka_unit_test(graph_image_check_measures_each_tensor_by_its_view),
        cmocka_unit_test(graph_image_check_rejects_a_repeated_edge_with_matching_counts),
        cmocka_unit_test(graph_image_check_rejects_truncation_and_bad_buffers),
        cmocka_unit_test(graph_image_of_empty_graph_is_header_only_and_valid),
        cmocka_unit_test(graph_image_write_refuses_wrong_size_and_writes_nothing),
        cmocka_unit_test(graph_image_write_parts_assembles_the_written_image),
        cmocka_unit_test(graph_image_write_parts_refuses_bad_buffers_and_writes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
