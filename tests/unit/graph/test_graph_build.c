/* Host graph build contracts: tasks, edges, heap and staging placement,
 * limits and misuse, all with in-process orchestration functions. */
#include "graph_test_util.h"

#include "common/host_alloc.h"


/* chain: scalar 0 = N tasks; task i reads c(i-1) (task 0 reads tensor 0)
 * and writes a new heap tensor c(i). */
static int orch_chain(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    (void)args;
    uint64_t n = 0;
    ChipTensor prev, next;
    uint32_t shape = simpler_orch_shape(orch, 0, 0);
    if (simpler_orch_scalar(orch, 0, &n) != 0 || simpler_orch_tensor(orch, 0, &prev) != 0 || shape == 0)
        return 1;
    for (uint64_t i = 0; i < n; i++) {
        simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &next);
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &prev);
        simpler_orch_add_output(orch, &next);
        simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
        prev = next;
    }
    return 0;
}

/* tensor_create into a tensor full of 0xA5: every byte it does not set
 * must come back zero (unused dims, reserved bytes), so the output passes
 * add_tensor's checks whatever the caller's memory held. */
static ChipTensor created;

static int orch_create_over_garbage(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    (void)args;
    uint32_t shapes[2] = {3, 5};
    memset(&created, 0xA5, sizeof(created));
    return simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 2, shapes, &created);
}

static void graph_build_tensor_create_zeroes_what_it_does_not_set(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    ChipTensor want;
    assert_int_equal(graph_build_run(s, orch_create_over_garbage, args, &g), 0);
    memset(&want, 0, sizeof(want));
    want.buffer_addr = 0;
    want.buffer_bytes = 3 * 5 * 4;
    want.ndims = 2;
    want.dtype = SIMPLER_DTYPE_FLOAT32;
    want.address_space = SIMPLER_ADDRESS_SPACE_GRAPH_HEAP;
    want.shapes[0] = 3;
    want.shapes[1] = 5;
    want.strides[0] = 5;
    want.strides[1] = 1;
    assert_memory_equal(&created, &want, sizeof(want));
    graph_scratch_destroy(s);
    free(args);
}

/* tensor_create of a shape, then of shapes that differ from it in one
 * thing each (a later dimension, ndims, dtype), then the first shape
 * again, each over garbage: every tensor must be exactly its own shape's,
 * at the next heap offset, whatever the call before it created. */
struct create_case {
    uint8_t dtype;
    uint32_t ndims;
    uint32_t shapes[3];
};
static const struct create_case create_cases[] = {
    {SIMPLER_DTYPE_FLOAT32, 2, {3, 5, 0}}, {SIMPLER_DTYPE_FLOAT32, 2, {3, 5, 0}},
    {SIMPLER_DTYPE_FLOAT32, 2, {3, 6, 0}}, {SIMPLER_DTYPE_FLOAT32, 1, {3, 0, 0}},
    {SIMPLER_DTYPE_FLOAT32, 3, {3, 5, 2}}, {SIMPLER_DTYPE_FLOAT16, 2, {3, 5, 0}},
    {SIMPLER_DTYPE_FLOAT32, 2, {3, 5, 0}},
};
#define CREATE_CASES (sizeof(create_cases) / sizeof(create_cases[0]))
static ChipTensor created_seq[CREATE_CASES];

static int orch_create_sequence(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    (void)args;
    for (size_t i = 0; i < CREATE_CASES; i++) {
        memset(&created_seq[i], 0x5A, sizeof(created_seq[i]));
        int rc = simpler_orch_tensor_create(orch, create_cases[i].dtype, create_cases[i].ndims, create_cases[i].shapes,
                                            &created_seq[i]);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void graph_build_tensor_create_writes_each_shape_its_own(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    assert_int_equal(graph_build_run(s, orch_create_sequence, args, &g), 0);
    uint64_t addr = 0;
    for (size_t i = 0; i < CREATE_CASES; i++) {
        const struct create_case *c = &create_cases[i];
        ChipTensor want;
        memset(&want, 0, sizeof(want));
        uint64_t elems = 1;
        for (uint32_t d = c->ndims; d-- > 0;) {
            want.shapes[d] = c->shapes[d];
            want.strides[d] = (uint32_t)elems;
            elems *= c->shapes[d];
        }
        want.buffer_addr = addr;
        want.buffer_bytes = elems * (c->dtype == SIMPLER_DTYPE_FLOAT16 ? 2 : 4);
        want.ndims = c->ndims;
        want.dtype = c->dtype;
        want.address_space = SIMPLER_ADDRESS_SPACE_GRAPH_HEAP;
        assert_memory_equal(&created_seq[i], &want, sizeof(want));
        addr += 1024; /* each fits one 1024-byte heap block */
    }
    assert_int_equal(g->heap_bytes, addr);
    graph_scratch_destroy(s);
    free(args);
}

static void graph_build_chain_has_one_edge_per_link(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(64);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    gt_args_add_tensor(args, DEV_A, 8, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_scalar(args, 5);
    assert_int_equal(graph_build_run(s, orch_chain, args, &g), 0);
    assert_int_equal(g->task_count, 5);
    assert_int_equal(g->edge_count, 4);
    assert_int_equal(gt_preds(g, 0), 0);
    for (uint32_t i = 1; i < 5; i++)
        assert_int_equal(gt_preds(g, i), 1ull << (i - 1));
    graph_scratch_destroy(s);
    free(args);
}

static void graph_build_diamond_edges_and_heap_offsets(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(16);
    ChipStorageTaskArgs *args = diamond_args(SIMPLER_ADDRESS_SPACE_DEVICE, SIMPLER_ADDRESS_SPACE_DEVICE);
    const graph *g = NULL;
    assert_int_equal(graph_build_run(s, orch_diamond, args, &g), 0);
    assert_int_equal(g->task_count, 4);
    assert_int_equal(g->edge_count, 4);
    assert_int_equal(gt_preds(g, 1), 1u);
    assert_int_equal(gt_preds(g, 2), 1u);
    assert_int_equal(gt_preds(g, 3), 6u);
    /* Intermediates are 1024-aligned heap offsets in creation order. */
    assert_int_equal(g->heap_bytes, 3 * 1024);
    assert_int_equal(g->args[1].addr_kind, GRAPH_ADDR_HEAP);
    assert_int_equal(g->args[1].addr, 0);
    assert_int_equal(g->args[3].addr, 1024);
    assert_int_equal(g->args[5].addr, 2048);
    /* Caller device tensors keep their address. */
    assert_int_equal(g->args[0].addr_kind, GRAPH_ADDR_DEVICE);
    assert_int_equal(g->args[0].addr, DEV_A);
    assert_int_equal(g->args[8].addr, DEV_OUT);
    assert_int_equal(g->args[8].tag, SIMPLER_TAG_OUTPUT_EXISTING);
    assert_int_equal(g->tasks[3].func_id, 2);
    assert_int_equal(g->tasks[2].core_type, SIMPLER_CORE_TYPE_AIC);
    assert_int_equal(g->tasks[3].arg_begin, 6);
    assert_int_equal(g->tasks[3].arg_count, 4);
    assert_int_equal(g->args[9].kind, GRAPH_ARG_SCALAR);
    assert_int_equal(g->args[9].addr, 7);
    assert_int_equal(g->staged_count, 0);
    graph_scratch_destroy(s);
    free(args);
}

static void graph_build_stages_host_tensors_at_1024_aligned_offsets(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(16);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    gt_args_add_tensor(args, 0x7000, 100, SIMPLER_ADDRESS_SPACE_HOST);
    gt_args_add_tensor(args, 0x9000, 600, SIMPLER_ADDRESS_SPACE_HOST);
    args->tensors[0].shapes[0] = 16;
    args->tensors[1].shapes[0] = 16;
    assert_int_equal(graph_build_run(s, orch_diamond, args, &g), 0);
    assert_int_equal(g->staged_count, 2);
    assert_int_equal(g->staged[0].caller_index, 0);
    assert_int_equal(g->staged[0].temp_offset, 0);
    assert_int_equal(g->staged[0].bytes, 400);
    assert_int_equal(g->staged[0].flags, GRAPH_STAGED_READ);
    assert_int_equal(g->staged[1].temp_offset, 1024);
    assert_int_equal(g->staged[1].bytes, 2400);
    assert_int_equal(g->staged[1].flags, GRAPH_STAGED_WRITTEN);
    assert_int_equal(g->temp_bytes, 1024 + 3072);
    assert_int_equal(g->args[0].addr_kind, GRAPH_ADDR_STAGED);
    assert_int_equal(g->args[0].addr, 0);
    assert_int_equal(g->args[8].addr_kind, GRAPH_ADDR_STAGED);
    assert_int_equal(g->args[8].addr, 1024);
    assert_int_equal(g->args[8].staged_index, 1);
    graph_scratch_destroy(s);
    free(args);
}

/* A view into the middle of a host buffer addresses the same bytes of
 * the staged copy. */
static int orch_host_subbuffer(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    ChipTensor v = fixture_tensor(args->tensors[1].buffer_addr + 64, 8, SIMPLER_ADDRESS_SPACE_HOST);
    simpler_orch_args_begin(orch);
    simpler_orch_add_inout(orch, &v);
    return simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
}

static void graph_build_host_subview_maps_into_its_staged_copy(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    gt_args_add_tensor(args, 0x1000, 300, SIMPLER_ADDRESS_SPACE_HOST);
    gt_args_add_tensor(args, 0x5000, 64, SIMPLER_ADDRESS_SPACE_HOST);
    assert_int_equal(graph_build_run(s, orch_host_subbuffer, args, &g), 0);
    assert_int_equal(g->args[0].addr_kind, GRAPH_ADDR_STAGED);
    assert_int_equal(g->args[0].staged_index, 1);
    assert_int_equal(g->args[0].addr, 2048 + 64);
    assert_int_equal(g->staged[0].flags, 0);
    assert_int_equal(g->staged[1].flags, GRAPH_STAGED_READ | GRAPH_STAGED_WRITTEN);
    graph_scratch_destroy(s);
    free(args);
}

/* t0 writes c, t1 passes c as NO_DEP, t2 reads c. */
static int orch_no_dep(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    (void)args;
    uint32_t shape = 4;
    ChipTensor c;
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_INT32, 1, &shape, &c);
    simpler_orch_args_begin(orch);
    simpler_orch_add_output(orch, &c);
    simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    simpler_orch_args_begin(orch);
    simpler_orch_add_no_dep(orch, &c);
    simpler_orch_add_scalar(orch, 42);
    simpler_orch_submit(orch, 1, SIMPLER_CORE_TYPE_AIV);
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &c);
    return simpler_orch_submit(orch, 2, SIMPLER_CORE_TYPE_AIV);
}

static void graph_build_no_dep_argument_makes_no_edge(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    assert_int_equal(graph_build_run(s, orch_no_dep, args, &g), 0);
    assert_int_equal(gt_preds(g, 1), 0);
    assert_int_equal(gt_preds(g, 2), 1u);
    assert_int_equal(g->args[1].tag, SIMPLER_TAG_NO_DEP);
    assert_int_equal(g->args[2].kind, GRAPH_ARG_SCALAR);
    assert_int_equal(g->args[2].addr, 42);
    graph_scratch_destroy(s);
    free(args);
}

static void graph_build_run_allocates_nothing(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(64);
    ChipStorageTaskArgs *args = fixture_args_new();
    gt_args_add_tensor(args, DEV_A, 8, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_scalar(args, 60);
    uint64_t before = host_alloc_count();
    assert_int_equal(graph_build_run(s, orch_chain, args, NULL), 0);
    assert_int_equal(host_alloc_count(), before);
    graph_scratch_destroy(s);
    free(args);
}

static void graph_build_task_window_exceeded_is_capacity_exceeded(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    gt_args_add_tensor(args, DEV_A, 8, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_scalar(args, 4);
    assert_int_equal(graph_build_run(s, orch_chain, args, &g), 0);
    args->scalars[0] = 5;
    g = NULL;
    assert_int_equal(graph_build_run(s, orch_chain, args, &g), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_null(g);
    /* The scratch stays usable. */
    args->scalars[0] = 3;
    assert_int_equal(graph_build_run(s, orch_chain, args, &g), 0);
    assert_int_equal(g->task_count, 3);
    graph_scratch_destroy(s);
    free(args);
}

static void graph_build_heap_and_temp_limits_are_capacity_exceeded(void **state)
{
    (void)state;
    graph_limits limits;
    graph_scratch *s = NULL;
    ChipStorageTaskArgs *args = diamond_args(SIMPLER_ADDRESS_SPACE_HOST, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(graph_limits_for_window(8, 3 * 1024 - 1, 1024, &limits), 0);
    assert_int_equal(graph_scratch_create(&limits, &s), 0);
    assert_int_equal(graph_build_run(s, orch_diamond, args, NULL), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    graph_scratch_destroy(s);
    assert_int_equal(graph_limits_for_window(8, 3 * 1024, 1023, &limits), 0);
    assert_int_equal(graph_scratch_create(&limits, &s), 0);
    assert_int_equal(graph_build_run(s, orch_diamond, args, NULL), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    graph_scratch_destroy(s);
    assert_int_equal(graph_limits_for_window(8, 3 * 1024, 1024, &limits), 0);
    assert_int_equal(graph_scratch_create(&limits, &s), 0);
    assert_int_equal(graph_build_run(s, orch_diamond, args, NULL), 0);
    graph_scratch_destroy(s);
    free(args);
}

static int later_calls[4];

/* The heap holds nothing: create fails, then every later call must
 * report that failure without reading its (unset) tensor. */
static int orch_after_failure(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    (void)args;
    uint32_t shape = 4;
    ChipTensor never_set;
    memset(&never_set, 0xff, sizeof(never_set));
    later_calls[0] = simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &never_set);
    later_calls[1] = simpler_orch_args_begin(orch);
    later_calls[2] = simpler_orch_add_output(orch, &never_set);
    later_calls[3] = simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    return 0;
}

static void graph_build_calls_after_a_failure_return_the_first_status(void **state)
{
    (void)state;
    graph_limits limits;
    graph_scratch *s = NULL;
    ChipStorageTaskArgs *args = fixture_args_new();
    assert_int_equal(graph_limits_for_window(8, 0, 0, &limits), 0);
    assert_int_equal(graph_scratch_create(&limits, &s), 0);
    assert_int_equal(graph_build_run(s, orch_after_failure, args, NULL), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    for (int i = 0; i < 4; i++)
        assert_int_equal(later_calls[i], PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    graph_scratch_destroy(s);
    free(args);
}

static int limit_calls[4];

/* scalar 0 picks what follows a valid argument of the open task, each
 * a call add_tensor's one-compare path must refuse although the tensor
 * repeats the last checked view: 0, the eighth argument of a window
 * of 8 argument records, one taken by the first task; 1, an argument
 * after a refused one (the build's status); 2, an argument after
 * submit_views dropped the open list, 3 after submit closed it (no
 * list is open). */
static int orch_open_limit(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t shape = 4, view = 0;
    ChipTensor t;
    limit_calls[0] = simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &t);
    /* A task of its own adds t's view first, so that dropping the open
     * list below does not forget it. */
    simpler_orch_args_begin(orch);
    simpler_orch_add_output(orch, &t);
    limit_calls[0] |= simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    limit_calls[1] = simpler_orch_args_begin(orch);
    limit_calls[2] = simpler_orch_add_input(orch, &t);
    if (args->scalars[0] == 0) {
        for (int i = 1; i < 7; i++)
            simpler_orch_add_input(orch, &t);
    } else if (args->scalars[0] == 1) {
        orch->ops->add_tensor(orch, &t, 9);
    } else if (args->scalars[0] == 3) {
        simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    } else {
        const SimplerOrchViewArg w = {.view = 0, .start_offset = 0, .tag = SIMPLER_TAG_OUTPUT};
        simpler_orch_view_make(orch, &t, &view);
        simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, &w, 1);
    }
    limit_calls[3] = simpler_orch_add_input(orch, &t);
    return 0;
}

static void graph_build_add_tensor_past_its_limit_is_refused(void **state)
{
    (void)state;
    static const struct {
        uint32_t window;
        int status;
    } cases[] = {
        {1, PTO_RUNTIME_ERR_CAPACITY_EXCEEDED},
        {16, PTO_RUNTIME_ERR_INVALID_ARGUMENT},
        {16, PTO_RUNTIME_ERR_INVALID_STATE},
        {16, PTO_RUNTIME_ERR_INVALID_STATE},
    };
    ChipStorageTaskArgs *args = fixture_args_new();
    args->scalar_count = 1;
    for (uint64_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        graph_scratch *s = gt_scratch(cases[c].window);
        args->scalars[0] = c;
        assert_int_equal(graph_build_run(s, orch_open_limit, args, NULL), cases[c].status);
        assert_int_equal(limit_calls[0], 0);
        assert_int_equal(limit_calls[1], 0);
        assert_int_equal(limit_calls[2], 0);
        assert_int_equal(limit_calls[3], cases[c].status);
        graph_scratch_destroy(s);
    }
    free(args);
}

static void graph_build_edge_limit_is_capacity_exceeded(void **state)
{
    (void)state;
    graph_limits limits;
    graph_scratch *s = NULL;
    ChipStorageTaskArgs *args = diamond_args(SIMPLER_ADDRESS_SPACE_DEVICE, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(graph_limits_for_window(8, UINT64_MAX, 0, &limits), 0);
    limits.edge_max = 3;
    assert_int_equal(graph_scratch_create(&limits, &s), 0);
    assert_int_equal(graph_build_run(s, orch_diamond, args, NULL), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    graph_scratch_destroy(s);
    free(args);
}

/* 600 reads of a device buffer in 300 distinct shapes (1-D views of
 * 1..300 floats, every 7th a 2-D view instead), each shape twice: more
 * shapes than the view cache has slots. */
#define VIEW_SHAPES 300u
static int orch_many_shapes(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    for (uint32_t round = 0; round < 2; round++) {
        for (uint32_t n = 1; n <= VIEW_SHAPES; n++) {
            ChipTensor t = args->tensors[0];
            t.start_offset = 1000u * n; /* disjoint ranges: one reader each */
            t.shapes[0] = n;
            if (n % 7 == 0) { /* a 2-D view: n rows of 1 with a row stride of 2 */
                t.ndims = 2;
                t.shapes[0] = n / 7;
                t.strides[0] = 2;
                t.shapes[1] = 1;
                t.strides[1] = 1;
            }
            simpler_orch_args_begin(orch);
            simpler_orch_add_input(orch, &t);
            simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
        }
    }
    return 0;
}

static void graph_build_args_name_views_of_their_own_shape(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(2 * VIEW_SHAPES);
    ChipStorageTaskArgs *args = fixture_args_new();
    gt_args_add_tensor(args, DEV_A, 1000 * (VIEW_SHAPES + 1), SIMPLER_ADDRESS_SPACE_DEVICE);
    const graph *g = NULL;
    assert_int_equal(graph_build_run(s, orch_many_shapes, args, &g), 0);
    assert_int_equal(g->arg_count, 2 * VIEW_SHAPES);
    assert_true(g->view_count >= VIEW_SHAPES && g->view_count <= 2 * VIEW_SHAPES);
    assert_true(g->view_count < 2 * VIEW_SHAPES); /* the cache found some repeats */
    for (uint32_t i = 0; i < g->arg_count; i++) {
        uint32_t n = i % VIEW_SHAPES + 1;
        assert_true(g->args[i].view < g->view_count);
        const graph_image_view *v = &g->views[g->args[i].view];
        assert_int_equal(v->dtype, SIMPLER_DTYPE_FLOAT32);
        if (n % 7 == 0) {
            assert_int_equal(v->ndims, 2);
            assert_int_equal(v->shapes[0], n / 7);
            assert_int_equal(v->strides[0], 2);
            assert_int_equal(v->extent, 2 * (n / 7 - 1) + 1);
        } else {
            assert_int_equal(v->ndims, 1);
            assert_int_equal(v->shapes[0], n);
            assert_int_equal(v->extent, n);
        }
    }
    gt_assert_image_valid(g);
    graph_scratch_destroy(s);
    free(args);
}

/* Argument lists that are never submitted, selected by scalar 0: one
 * re-begun before its submit, 5000 re-begun in a row (each a new shape,
 * far more than the scratch holds views), one re-begun and then given the
 * same shape again, one left open at the end.
 * Their views must go with them. */
/* One task of two 5-D views of ones that differ in one stride only
 * (scalars[0] names it): the second may not reuse the first's view. */
static int orch_one_stride_apart(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    ChipTensor t = args->tensors[0];
    t.ndims = SIMPLER_MAX_TENSOR_DIMS;
    for (uint32_t d = 0; d < SIMPLER_MAX_TENSOR_DIMS; d++) {
        t.shapes[d] = 1;
        t.strides[d] = 1;
    }
    simpler_orch_args_begin(orch);
    simpler_orch_add_input(orch, &t);
    t.strides[args->scalars[0]] = 2;
    simpler_orch_add_input(orch, &t);
    return simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
}

static void graph_build_a_view_one_stride_apart_is_its_own(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    gt_args_add_tensor(args, DEV_A, 8000, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_scalar(args, 0);
    for (uint32_t d = 0; d < SIMPLER_MAX_TENSOR_DIMS; d++) {
        const graph *g = NULL;
        args->scalars[0] = d;
        assert_int_equal(graph_build_run(s, orch_one_stride_apart, args, &g), 0);
        assert_int_equal(g->arg_count, 2);
        assert_int_equal(g->view_count, 2);
        assert_int_equal(g->views[g->args[0].view].strides[d], 1);
        assert_int_equal(g->views[g->args[1].view].strides[d], 2);
        gt_assert_image_valid(g);
    }
    graph_scratch_destroy(s);
    free(args);
}

static int orch_discarded_lists(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    ChipTensor t = args->tensors[0];
    switch (args->scalars[0]) {
    case 0:
        simpler_orch_args_begin(orch);
        t.shapes[0] = 1;
        simpler_orch_add_input(orch, &t);
        simpler_orch_args_begin(orch);
        t.shapes[0] = 2;
        simpler_orch_add_input(orch, &t);
        return simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    case 1:
        for (uint32_t n = 1; n <= 5000; n++) {
            simpler_orch_args_begin(orch);
            t.shapes[0] = n;
            simpler_orch_add_input(orch, &t);
        }
        simpler_orch_args_begin(orch);
        t.shapes[0] = 3;
        simpler_orch_add_input(orch, &t);
        return simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    case 3: /* the discarded list's shape again: the cache must not hand back its dropped view */
        simpler_orch_args_begin(orch);
        t.shapes[0] = 6;
        simpler_orch_add_input(orch, &t);
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &t);
        return simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    default:
        simpler_orch_args_begin(orch);
        t.shapes[0] = 4;
        simpler_orch_add_input(orch, &t);
        simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
        simpler_orch_args_begin(orch);
        t.shapes[0] = 5;
        simpler_orch_add_input(orch, &t);
        return 0;
    }
}

static void graph_build_discarded_argument_lists_leave_no_view(void **state)
{
    (void)state;
    static const uint32_t kept_shape[] = {2, 3, 6, 4};
    graph_scratch *s = gt_scratch(16);
    ChipStorageTaskArgs *args = fixture_args_new();
    gt_args_add_tensor(args, DEV_A, 8000, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_scalar(args, 0);
    for (uint64_t mode = 0; mode < 4; mode++) {
        const graph *g = NULL;
        args->scalars[0] = mode == 2 ? 3 : mode == 3 ? 2 : mode;
        assert_int_equal(graph_build_run(s, orch_discarded_lists, args, &g), 0);
        assert_int_equal(g->task_count, 1);
        assert_int_equal(g->arg_count, 1);
        assert_int_equal(g->view_count, 1);
        assert_int_equal(g->args[0].view, 0);
        assert_int_equal(g->views[0].shapes[0], kept_shape[mode]);
        gt_assert_image_valid(g);
    }
    graph_scratch_destroy(s);
    free(args);
}

/* Misuse cases, selected by scalar 0. */
static int orch_misuse(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t shape = 4;
    ChipTensor c, dev = args->tensors[0];
    ChipTensor stray = fixture_tensor(0x123000, 4, SIMPLER_ADDRESS_SPACE_HOST);
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &c);
    switch (args->scalars[0]) {
    case 0: /* add before args_begin */
        simpler_orch_add_input(orch, &dev);
        break;
    case 1: /* OUTPUT must be runtime-allocated */
        simpler_orch_args_begin(orch);
        simpler_orch_add_output(orch, &dev);
        break;
    case 2: /* OUTPUT_EXISTING must be a caller buffer */
        simpler_orch_args_begin(orch);
        simpler_orch_add_output_existing(orch, &c);
        break;
    case 3: /* a host buffer that is not one of the call's */
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &stray);
        break;
    case 4: /* func_id out of range */
        simpler_orch_args_begin(orch);
        simpler_orch_submit(orch, GRAPH_FUNC_ID_LIMIT, SIMPLER_CORE_TYPE_AIV);
        break;
    case 5: /* more arguments than a signature holds */
        simpler_orch_args_begin(orch);
        for (int i = 0; i <= SIMPLER_MAX_TASK_ARGS; i++)
            simpler_orch_add_scalar(orch, (uint64_t)i);
        break;
    case 6: /* the entry itself reports failure */
        return 7;
    case 7: /* first failure wins: a bad core type, then a missing begin */
        simpler_orch_args_begin(orch);
        simpler_orch_submit(orch, 0, 2);
        simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
        break;
    case 8: /* a heap view past what was created */
        c.buffer_addr += 1024;
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &c);
        break;
    case 9: /* submit without begin */
        simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
        break;
    case 10: /* the entry's own failure code in -1..-999 passes through */
        return -5;
    case 11: /* a view whose span wraps 64 bits: (2^32 - 2)(2^32 - 1) + 4 *
              * 3 * 2^30 = 2^64 + 2, so it would look like 3 elements */
        dev.ndims = 2;
        dev.shapes[0] = UINT32_MAX;
        dev.strides[0] = UINT32_MAX;
        dev.shapes[1] = 5;
        dev.strides[1] = 3u << 30;
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &dev);
        break;
    case 12: /* a reserved byte set, the last one */
        dev.reserved[sizeof(dev.reserved) - 1] = 1;
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &dev);
        break;
    case 13: /* a buffer that wraps the address space */
        dev.buffer_addr = UINT64_MAX - 8;
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &dev);
        break;
    case 14: /* 12, 13 and 8 past the buffer's end, each on the view the
              * argument before had (checked once, remembered) */
    case 15:
    case 16: {
        ChipTensor bad = dev;
        if (args->scalars[0] == 14)
            bad.reserved[sizeof(bad.reserved) - 1] = 1;
        else if (args->scalars[0] == 15)
            bad.buffer_addr = UINT64_MAX - 8;
        else
            bad.start_offset = 1;
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, &dev);
        simpler_orch_add_input(orch, &bad);
        break;
    }
    case 17: /* 1, 2, 8, a heap buffer off its 1024 alignment and the
              * first reserved byte, each on the view the argument
              * before had */
    case 18:
    case 19:
    case 20:
    case 21: {
        const uint64_t k = args->scalars[0];
        ChipTensor bad = k == 17 || k == 21 ? dev : c;
        simpler_orch_args_begin(orch);
        simpler_orch_add_input(orch, k == 17 || k == 21 ? &dev : &c);
        if (k == 17)
            simpler_orch_add_output(orch, &bad);
        else if (k == 18)
            simpler_orch_add_output_existing(orch, &bad);
        else {
            if (k == 19)
                bad.buffer_addr += 1024;
            else if (k == 20)
                bad.buffer_addr += 4;
            else
                bad.reserved[0] = 1;
            simpler_orch_add_input(orch, &bad);
        }
        break;
    }
    }
    return 0;
}

static void graph_build_misuse_returns_documented_status(void **state)
{
    (void)state;
    static const int expected[] = {
        PTO_RUNTIME_ERR_INVALID_STATE,    PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
        PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
        PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
        PTO_RUNTIME_ERR_INVALID_STATE,    -5,                         PTO_RUNTIME_ERR_INVALID_ARGUMENT,
        PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
        PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
        PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
        PTO_RUNTIME_ERR_INVALID_ARGUMENT,
    };
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    gt_args_add_tensor(args, DEV_A, 8, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_scalar(args, 0);
    for (uint64_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
        const graph *g = NULL;
        args->scalars[0] = i;
        assert_int_equal(graph_build_run(s, orch_misuse, args, &g), expected[i]);
        assert_null(g);
    }
    graph_scratch_destroy(s);
    free(args);
}

static void graph_build_rejects_malformed_call_arguments(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = diamond_args(SIMPLER_ADDRESS_SPACE_DEVICE, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(graph_build_run(NULL, orch_diamond, args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_build_run(s, NULL, args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_build_run(s, orch_diamond, NULL, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    args->tensor_count = SIMPLER_MAX_TENSOR_ARGS + 1;
    assert_int_equal(graph_build_run(s, orch_diamond, args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    args->tensor_count = 2;
    args->scalar_count = -1;
    assert_int_equal(graph_build_run(s, orch_diamond, args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    args->scalar_count = 0;
    args->tensors[1].address_space = SIMPLER_ADDRESS_SPACE_GRAPH_HEAP;
    assert_int_equal(graph_build_run(s, orch_diamond, args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    args->tensors[1].address_space = SIMPLER_ADDRESS_SPACE_DEVICE;
    args->tensors[1].reserved[3] = 1;
    assert_int_equal(graph_build_run(s, orch_diamond, args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    args->tensors[1].reserved[3] = 0;
    args->tensors[1].start_offset = 1; /* the view runs past the buffer */
    assert_int_equal(graph_build_run(s, orch_diamond, args, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    args->tensors[1].start_offset = 0;
    assert_int_equal(graph_build_run(s, orch_diamond, args, NULL), 0);
    graph_scratch_destroy(s);
    free(args);
}

static void graph_scratch_create_rejects_bad_limits(void **state)
{
    (void)state;
    graph_limits limits;
    graph_scratch *s = (graph_scratch *)&limits;
    assert_int_equal(graph_limits_for_window(0, 0, 0, &limits), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_limits_for_window(GRAPH_TASK_WINDOW_MAX + 1, 0, 0, &limits), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_limits_for_window(8, 0, 0, &limits), 0);
    limits.edge_max = 0;
    assert_int_equal(graph_scratch_create(&limits, &s), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_ptr_equal(s, (graph_scratch *)&limits);
    assert_int_equal(graph_scratch_create(NULL, &s), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(graph_limits_for_window(8, 0, 0, &limits), 0);
    assert_int_equal(graph_scratch_create(&limits, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
}

static void graph_scratch_create_failure_sweep_leaks_nothing(void **state)
{
    (void)state;
    graph_limits limits;
    assert_int_equal(graph_limits_for_window(8, 0, 0, &limits), 0);
    for (uint64_t k = 1;; k++) {
        graph_scratch *s = NULL;
        uint64_t allocs = host_alloc_count(), frees = host_free_count();
        host_alloc_fail_nth(k);
        int rc = graph_scratch_create(&limits, &s);
        host_alloc_fail_nth(0);
        uint64_t made = host_alloc_count() - allocs;
        if (rc == 0) {
            assert_non_null(s);
            graph_scratch_destroy(s);
            assert_int_equal(host_free_count() - frees, made);
            assert_true(k > made); /* every allocation point was failed once */
            break;
        }
        assert_int_equal(rc, PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        assert_null(s);
        /* The failed allocation is counted but owns nothing. */
        assert_int_equal(host_free_count() - frees, made - 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(graph_build_chain_has_one_edge_per_link),
        cmocka_unit_test(graph_build_tensor_create_zeroes_what_it_does_not_set),
        cmocka_unit_test(graph_build_tensor_create_writes_each_shape_its_own),
        cmocka_unit_test(graph_build_diamond_edges_and_heap_offsets),
        cmocka_unit_test(graph_build_stages_host_tensors_at_1024_aligned_offsets),
        cmocka_unit_test(graph_build_host_subview_maps_into_its_staged_copy),
        cmocka_unit_test(graph_build_no_dep_argument_makes_no_edge),
        cmocka_unit_test(graph_build_run_allocates_nothing),
        cmocka_unit_test(graph_build_task_window_exceeded_is_capacity_exceeded),
        cmocka_unit_test(graph_build_heap_and_temp_limits_are_capacity_exceeded),
        cmocka_unit_test(graph_build_calls_after_a_failure_return_the_first_status),
        cmocka_unit_test(graph_build_edge_limit_is_capacity_exceeded),
        cmocka_unit_test(graph_build_add_tensor_past_its_limit_is_refused),
        cmocka_unit_test(graph_build_args_name_views_of_their_own_shape),
        cmocka_unit_test(graph_build_discarded_argument_lists_leave_no_view),
        cmocka_unit_test(graph_build_a_view_one_stride_apart_is_its_own),
        cmocka_unit_test(graph_build_misuse_returns_documented_status),
        cmocka_unit_test(graph_build_rejects_malformed_call_arguments),
        cmocka_unit_test(graph_scratch_create_rejects_bad_limits),
        cmocka_unit_test(graph_scratch_create_failure_sweep_leaks_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
