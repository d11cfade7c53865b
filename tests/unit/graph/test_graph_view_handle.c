/* View handles (simpler_orch_view_make, simpler_orch_add_view): a
 * graph built through handles is the graph add_tensor builds from the
 * same windows, and every misuse fails the build with its documented
 * status. All with in-process orchestration functions. */
#include "graph_test_util.h"

#include <string.h>

#include "common/error.h"
#include "graph/graph_build_internal.h"

#define VH_ELEMS 256u
#define VH_TASKS 48u
#define VH_HOST 0x300000u

static uint32_t vh_next(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

/* Window kind k of a base tensor: 1-D of 1..16 elements, or 2-D (two
 * rows 32 apart) for odd k, so handles cover views of several shapes. */
static ChipTensor vh_window(const ChipTensor *base, uint32_t k)
{
    ChipTensor t = *base;
    t.start_offset = 0;
    if (k % 2 == 0) {
        t.shapes[0] = 1 + k * 3;
    } else {
        t.ndims = 2;
        t.shapes[0] = 2;
        t.shapes[1] = k;
        t.strides[0] = 32;
        t.strides[1] = 1;
    }
    return t;
}

static uint64_t vh_extent(const ChipTensor *t)
{
    return t->ndims == 1 ? t->shapes[0] : (uint64_t)(t->shapes[0] - 1) * t->strides[0] + t->shapes[1];
}

#define VH_KINDS 4u
#define VH_BASES 4u

/* scalar 0: seed; scalar 1: 0 = every argument through add_tensor, 1 =
 * the same windows through view handles, 2 = each kept list through one
 * simpler_orch_submit_views call (a discarded list still goes through
 * add_view); + 4: no scalar arguments (submit_views takes none). Tensor
 * 0 is DEVICE, tensor 1 HOST (staged); two heap tensors are created.
 * Random windows, tags and scalars, and now and then a discarded
 * argument list. */
static int orch_random_windows(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t x = (uint32_t)args->scalars[0] | 1u, shape = VH_ELEMS, handle[VH_BASES][VH_KINDS];
    uint32_t mode = (uint32_t)args->scalars[1] & 3u;
    int handles = mode != 0, scalars = (args->scalars[1] & 4u) == 0;
    SimplerOrchViewArg list_args[4];
    ChipTensor base[VH_BASES];
    base[0] = args->tensors[0];
    base[1] = args->tensors[1];
    if (simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &base[2]) != 0 ||
        simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &base[3]) != 0)
        return 1;
    for (uint32_t b = 0; handles && b < VH_BASES; b++)
        for (uint32_t k = 0; k < VH_KINDS; k++) {
            ChipTensor w = vh_window(&base[b], k);
            if (simpler_orch_view_make(orch, &w, &handle[b][k]) != 0)
                return 2;
        }
    for (uint32_t task = 0; task < VH_TASKS; task++) {
        uint32_t lists = vh_next(&x) % 8 == 0 ? 2 : 1, n = 0;
        for (uint32_t list = 0; list < lists; list++) {
            int batched = mode == 2 && list == lists - 1;
            if (!batched && simpler_orch_args_begin(orch) != 0)
                return 3;
            n = 1 + vh_next(&x) % 4;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t b = vh_next(&x) % VH_BASES, k = vh_next(&x) % VH_KINDS, r = vh_next(&x) % 8;
                ChipTensor w = vh_window(&base[b], k);
                uint64_t start = vh_next(&x) % (VH_ELEMS - vh_extent(&w) + 1);
                uint32_t tag = r < 3 ? SIMPLER_TAG_INPUT
                               : r < 5 ? SIMPLER_TAG_INOUT
                               : r < 7 ? (b >= 2 ? SIMPLER_TAG_OUTPUT : SIMPLER_TAG_OUTPUT_EXISTING)
                                       : SIMPLER_TAG_NO_DEP;
                if (vh_next(&x) % 6 == 0 && scalars && simpler_orch_add_scalar(orch, x) != 0)
                    return 4;
                w.start_offset = start;
                int rc = 0;
                if (batched)
                    list_args[i] = (SimplerOrchViewArg){.start_offset = start, .view = handle[b][k], .tag = tag};
                else
                    rc = handles ? simpler_orch_add_view(orch, handle[b][k], start, tag)
                                 : orch->ops->add_tensor(orch, &w, tag);
                if (rc != 0)
                    return 5;
            }
        }
        int rc = mode == 2 ? simpler_orch_submit_views(orch, (int32_t)(task % 3), SIMPLER_CORE_TYPE_AIV, list_args, n)
                           : simpler_orch_submit(orch, (int32_t)(task % 3), SIMPLER_CORE_TYPE_AIV);
        if (rc != 0)
            return 6;
    }
    return 0;
}

static void vh_assert_same_graph(const graph *a, const graph *b)
{
    assert_int_equal(a->task_count, b->task_count);
    assert_int_equal(a->arg_count, b->arg_count);
    assert_int_equal(a->edge_count, b->edge_count);
    assert_int_equal(a->staged_count, b->staged_count);
    assert_true(a->heap_bytes == b->heap_bytes && a->temp_bytes == b->temp_bytes);
    assert_memory_equal(a->tasks, b->tasks, a->task_count * sizeof(*a->tasks));
    assert_memory_equal(a->fanin, b->fanin, a->edge_count * sizeof(*a->fanin));
    assert_memory_equal(a->staged, b->staged, a->staged_count * sizeof(*a->staged));
    for (uint32_t i = 0; i < a->arg_count; i++) {
        graph_image_arg x = a->args[i], y = b->args[i];
        if (x.kind == GRAPH_ARG_TENSOR) {
            assert_true(x.view < a->view_count && y.view < b->view_count);
            assert_memory_equal(&a->views[x.view], &b->views[y.view], sizeof(graph_image_view));
            x.view = y.view = 0;
        }
        assert_memory_equal(&x, &y, sizeof(x));
    }
}

static ChipStorageTaskArgs *vh_args(void)
{
    ChipStorageTaskArgs *args = fixture_args_new();
    gt_args_add_tensor(args, DEV_A, VH_ELEMS, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_tensor(args, VH_HOST, VH_ELEMS, SIMPLER_ADDRESS_SPACE_HOST);
    gt_args_add_scalar(args, 0);
    gt_args_add_scalar(args, 0);
    return args;
}

static void view_handles_build_the_graph_add_tensor_builds(void **state)
{
    (void)state;
    graph_scratch *plain = gt_scratch(VH_TASKS), *viewed = gt_scratch(VH_TASKS);
    ChipStorageTaskArgs *args = vh_args();
    uint32_t edges = 0;
    for (uint64_t seed = 1; seed <= 500; seed++) {
        const graph *a = NULL, *b = NULL;
        args->scalars[0] = seed * 2654435761u;
        args->scalars[1] = 0;
        assert_int_equal(graph_build_run(plain, orch_random_windows, args, &a), 0);
        args->scalars[1] = 1;
        assert_int_equal(graph_build_run(viewed, orch_random_windows, args, &b), 0);
        vh_assert_same_graph(a, b);
        edges += b->edge_count;
        if (seed % 50 == 0)
            gt_assert_image_valid(b);
    }
    assert_true(edges > 500); /* the patterns do overlap */
    graph_scratch_destroy(plain);
    graph_scratch_destroy(viewed);
    free(args);
}

static void submit_views_builds_the_graph_add_view_builds(void **state)
{
    (void)state;
    graph_scratch *plain = gt_scratch(VH_TASKS), *viewed = gt_scratch(VH_TASKS), *batched = gt_scratch(VH_TASKS);
    ChipStorageTaskArgs *args = vh_args();
    uint32_t edges = 0;
    for (uint64_t seed = 1; seed <= 500; seed++) {
        const graph *a = NULL, *b = NULL, *c = NULL;
        args->scalars[0] = seed * 2654435761u;
        args->scalars[1] = 0 | 4;
        assert_int_equal(graph_build_run(plain, orch_random_windows, args, &a), 0);
        args->scalars[1] = 1 | 4;
        assert_int_equal(graph_build_run(viewed, orch_random_windows, args, &b), 0);
        args->scalars[1] = 2 | 4;
        assert_int_equal(graph_build_run(batched, orch_random_windows, args, &c), 0);
        vh_assert_same_graph(a, c);
        vh_assert_same_graph(b, c);
        assert_int_equal(b->view_count, c->view_count);
        edges += c->edge_count;
        if (seed % 50 == 0)
            gt_assert_image_valid(c);
    }
    assert_true(edges > 500);
    graph_scratch_destroy(plain);
    graph_scratch_destroy(viewed);
    graph_scratch_destroy(batched);
    free(args);
}

/* A task of no arguments: count 0, args NULL. */
static int orch_views_empty_task(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    (void)args;
    return simpler_orch_submit_views(orch, 7, SIMPLER_CORE_TYPE_AIC, NULL, 0);
}

static void submit_views_of_no_arguments_adds_a_task_without_arguments(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    gt_args_add_tensor(args, DEV_A, 16, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(graph_build_run(s, orch_views_empty_task, args, &g), 0);
    assert_int_equal(g->task_count, 1);
    assert_int_equal(g->arg_count, 0);
    assert_int_equal(g->tasks[0].func_id, 7);
    assert_int_equal(g->tasks[0].core_type, SIMPLER_CORE_TYPE_AIC);
    graph_scratch_destroy(s);
    free(args);
}

/* Misuse of submit_views, selected by scalar 0; each must fail the
 * build. Scalar 1 is the task window the case is built with. */
static int orch_views_misuse(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t shape = 4, dev_h = 0, heap_h = 0;
    ChipTensor heap, dev = fixture_tensor_slice(&args->tensors[0], 0, 4);
    SimplerOrchViewArg v[SIMPLER_MAX_TASK_ARGS + 1];
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &heap);
    simpler_orch_view_make(orch, &dev, &dev_h);
    simpler_orch_view_make(orch, &heap, &heap_h);
    for (uint32_t i = 0; i <= SIMPLER_MAX_TASK_ARGS; i++)
        v[i] = (SimplerOrchViewArg){.start_offset = 0, .view = dev_h, .tag = SIMPLER_TAG_INPUT};
    switch (args->scalars[0]) {
    case 0: /* more arguments than a task holds */
        return simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, v, SIMPLER_MAX_TASK_ARGS + 1), 0;
    case 1: /* NULL args with a count */
        return simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, NULL, 1), 0;
    case 2: /* a handle never made, as the second entry */
        v[1].view = heap_h + 1;
        return simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, v, 2), 0;
    case 3: /* not a tag */
        v[0].tag = SIMPLER_TAG_NO_DEP + 1;
        return simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, v, 1), 0;
    case 4: /* OUTPUT on a caller tensor */
        v[0].tag = SIMPLER_TAG_OUTPUT;
        return simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, v, 1), 0;
    case 5: /* OUTPUT_EXISTING on a heap tensor */
        v[0] = (SimplerOrchViewArg){.start_offset = 0, .view = heap_h, .tag = SIMPLER_TAG_OUTPUT_EXISTING};
        return simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, v, 1), 0;
    case 6: /* a start that takes the window one element past the end */
        v[2].start_offset = 13;
        return simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, v, 3), 0;
    case 7: /* a start that wraps with the extent */
        v[0].start_offset = UINT64_MAX - 1;
        return simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, v, 1), 0;
    case 8: /* a func_id out of range */
        return simpler_orch_submit_views(orch, 1024, SIMPLER_CORE_TYPE_AIV, v, 1), 0;
    case 9: /* not a core type */
        return simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV + 1, v, 1), 0;
    case 10: /* one task more than the window (2 tasks) */
        for (int i = 0; i < 3; i++)
            if (simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, v, 1) != 0)
                return 0;
        return 0;
    default: /* more arguments than the graph's records (8 per task of the window) */
        for (int i = 0; i < 2; i++)
            if (simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, v, SIMPLER_MAX_TASK_ARGS) != 0)
                return 0;
        return 0;
    }
}

static void submit_views_misuse_fails_the_build_with_documented_status(void **state)
{
    (void)state;
    static const int expected[] = {
        PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT,  PTO_RUNTIME_ERR_INVALID_ARGUMENT,
        PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT,  PTO_RUNTIME_ERR_INVALID_ARGUMENT,
        PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT,  PTO_RUNTIME_ERR_INVALID_ARGUMENT,
        PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_CAPACITY_EXCEEDED, PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
    };
    graph_scratch *s = gt_scratch(2);
    ChipStorageTaskArgs *args = fixture_args_new();
    gt_args_add_tensor(args, DEV_A, 16, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_scalar(args, 0);
    for (uint64_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
        const graph *g = NULL;
        args->scalars[0] = i;
        simpler_error_clear();
        assert_int_equal(graph_build_run(s, orch_views_misuse, args, &g), expected[i]);
        assert_null(g);
        assert_non_null(strstr(simpler_last_error_message(), "submit"));
    }
    graph_scratch_destroy(s);
    free(args);
}

/* A refused submit_views adds nothing and later calls return its status
 * without reading their arguments. */
static int views_later_rc;

static int orch_after_failed_views(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    ChipTensor dev = fixture_tensor_slice(&args->tensors[0], 0, 4);
    uint32_t h;
    simpler_orch_view_make(orch, &dev, &h);
    SimplerOrchViewArg ok = {.start_offset = 0, .view = h, .tag = SIMPLER_TAG_INPUT};
    SimplerOrchViewArg bad[2] = {ok, {.start_offset = 0, .view = h + 9, .tag = SIMPLER_TAG_INPUT}};
    simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, bad, 2);
    views_later_rc = simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, &ok, 1);
    return 0;
}

static void submit_views_after_a_failure_returns_the_first_status(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    gt_args_add_tensor(args, DEV_A, 16, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(graph_build_run(s, orch_after_failed_views, args, &g), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(views_later_rc, PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_null(g);
    graph_scratch_destroy(s);
    free(args);
}

/* One handle used by a list that is discarded, then by the kept one: the
 * graph holds one view, the kept argument's. */
static int orch_handle_in_discarded_list(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    ChipTensor narrow = fixture_tensor_slice(&args->tensors[0], 0, 2);
    ChipTensor wide = fixture_tensor_slice(&args->tensors[0], 0, 6);
    uint32_t hn, hw;
    simpler_orch_view_make(orch, &narrow, &hn);
    simpler_orch_view_make(orch, &wide, &hw);
    simpler_orch_args_begin(orch);
    simpler_orch_add_view(orch, hn, 1, SIMPLER_TAG_INPUT);
    simpler_orch_args_begin(orch); /* drops the list and its view */
    simpler_orch_add_view(orch, hw, 0, SIMPLER_TAG_INPUT);
    simpler_orch_add_view(orch, hn, 3, SIMPLER_TAG_INOUT);
    return simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
}

static void view_handle_in_a_discarded_list_names_a_live_view(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    gt_args_add_tensor(args, DEV_A, 16, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(graph_build_run(s, orch_handle_in_discarded_list, args, &g), 0);
    assert_int_equal(g->arg_count, 2);
    assert_int_equal(g->view_count, 2);
    assert_int_equal(g->views[g->args[0].view].shapes[0], 6);
    assert_int_equal(g->views[g->args[1].view].shapes[0], 2);
    assert_int_equal(g->args[1].start_offset, 3);
    gt_assert_image_valid(g);
    graph_scratch_destroy(s);
    free(args);
}

/* A handle keeps the tensor as it was made. */
static int orch_tensor_changed_after_make(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    ChipTensor t = fixture_tensor_slice(&args->tensors[0], 0, 4);
    uint32_t h;
    simpler_orch_view_make(orch, &t, &h);
    t.shapes[0] = 8;
    t.buffer_addr += 64;
    simpler_orch_args_begin(orch);
    simpler_orch_add_view(orch, h, 2, SIMPLER_TAG_INPUT);
    return simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
}

static void view_handle_names_the_tensor_as_it_was_made(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    gt_args_add_tensor(args, DEV_A, 16, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(graph_build_run(s, orch_tensor_changed_after_make, args, &g), 0);
    assert_int_equal(g->args[0].addr, DEV_A);
    assert_int_equal(g->views[g->args[0].view].shapes[0], 4);
    assert_int_equal(g->args[0].start_offset, 2);
    graph_scratch_destroy(s);
    free(args);
}

/* Misuse, selected by scalar 0; each must fail the build. */
static int orch_handle_misuse(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t shape = 4, h = 0, dev_h = 0, heap_h = 0;
    ChipTensor heap, dev = fixture_tensor_slice(&args->tensors[0], 0, 4);
    ChipTensor stray = fixture_tensor(0x123000, 4, SIMPLER_ADDRESS_SPACE_HOST);
    simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &shape, &heap);
    switch (args->scalars[0]) {
    case 0: /* NULL tensor */
        return simpler_orch_view_make(orch, NULL, &h) == 0 ? 0 : 0;
    case 1: /* NULL handle out */
        simpler_orch_view_make(orch, &dev, NULL);
        return 0;
    case 2: /* a reserved byte set */
        dev.reserved[0] = 1;
        simpler_orch_view_make(orch, &dev, &h);
        return 0;
    case 3: /* a HOST tensor that is not one of the call's */
        simpler_orch_view_make(orch, &stray, &h);
        return 0;
    case 4: /* a view outside its buffer */
        dev.start_offset = 13;
        simpler_orch_view_make(orch, &dev, &h);
        return 0;
    case 5: /* one handle too many */
        for (uint32_t i = 0; i <= SIMPLER_ORCH_VIEW_MAX; i++)
            if (simpler_orch_view_make(orch, &dev, &h) != 0)
                return 0;
        return 0;
    case 6: /* a handle never made */
        simpler_orch_view_make(orch, &dev, &h);
        simpler_orch_args_begin(orch);
        simpler_orch_add_view(orch, h + 1, 0, SIMPLER_TAG_INPUT);
        return 0;
    case 7: /* not a tag */
        simpler_orch_view_make(orch, &dev, &h);
        simpler_orch_args_begin(orch);
        simpler_orch_add_view(orch, h, 0, SIMPLER_TAG_NO_DEP + 1);
        return 0;
    case 8: /* OUTPUT on a caller tensor */
        simpler_orch_view_make(orch, &dev, &dev_h);
        simpler_orch_args_begin(orch);
        simpler_orch_add_view(orch, dev_h, 0, SIMPLER_TAG_OUTPUT);
        return 0;
    case 9: /* OUTPUT_EXISTING on a heap tensor */
        simpler_orch_view_make(orch, &heap, &heap_h);
        simpler_orch_args_begin(orch);
        simpler_orch_add_view(orch, heap_h, 0, SIMPLER_TAG_OUTPUT_EXISTING);
        return 0;
    case 10: /* a start that takes the view one element past the end */
        simpler_orch_view_make(orch, &dev, &h);
        simpler_orch_args_begin(orch);
        simpler_orch_add_view(orch, h, 13, SIMPLER_TAG_INPUT);
        return 0;
    case 11: /* a start that wraps with the extent */
        simpler_orch_view_make(orch, &dev, &h);
        simpler_orch_args_begin(orch);
        simpler_orch_add_view(orch, h, UINT64_MAX - 1, SIMPLER_TAG_INPUT);
        return 0;
    case 12: /* outside args_begin..submit */
        simpler_orch_view_make(orch, &dev, &h);
        simpler_orch_add_view(orch, h, 0, SIMPLER_TAG_INPUT);
        return 0;
    case 13: /* more arguments than a task holds */
        simpler_orch_view_make(orch, &dev, &h);
        simpler_orch_args_begin(orch);
        for (int i = 0; i <= SIMPLER_MAX_TASK_ARGS; i++)
            simpler_orch_add_view(orch, h, 0, SIMPLER_TAG_INPUT);
        return 0;
    default: /* a handle number from an earlier build: none made in this one */
        simpler_orch_args_begin(orch);
        simpler_orch_add_view(orch, 0, 0, SIMPLER_TAG_INPUT);
        return 0;
    }
}

static void view_handle_misuse_fails_the_build_with_documented_status(void **state)
{
    (void)state;
    static const int expected[] = {
        PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
        PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_CAPACITY_EXCEEDED,
        PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
        PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
        PTO_RUNTIME_ERR_INVALID_STATE,    PTO_RUNTIME_ERR_INVALID_ARGUMENT, PTO_RUNTIME_ERR_INVALID_ARGUMENT,
    };
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    gt_args_add_tensor(args, DEV_A, 16, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_scalar(args, 0);
    for (uint64_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
        const graph *g = NULL;
        /* The build before leaves handles behind for the last case. */
        args->scalars[0] = 6;
        assert_int_not_equal(graph_build_run(s, orch_handle_misuse, args, &g), 0);
        args->scalars[0] = i;
        assert_int_equal(graph_build_run(s, orch_handle_misuse, args, &g), expected[i]);
        assert_null(g);
    }
    graph_scratch_destroy(s);
    free(args);
}

/* Five one-argument tasks through one handle. */
static int orch_five_tasks(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    ChipTensor dev = fixture_tensor_slice(&args->tensors[0], 0, 4);
    uint32_t h = 0;
    simpler_orch_view_make(orch, &dev, &h);
    for (int i = 0; i < 5; i++) {
        simpler_orch_args_begin(orch);
        simpler_orch_add_view(orch, h, 0, SIMPLER_TAG_INPUT);
        simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    }
    return 0;
}

/* The loops that retry a build with twice the window (program mode, the
 * sizer, dot) retry only a -1004 a window grows out of: more tasks than
 * the window, not more view handles than any build holds. */
static void a_build_out_of_view_handles_did_not_outgrow_its_window(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    gt_args_add_tensor(args, DEV_A, 16, SIMPLER_ADDRESS_SPACE_DEVICE);
    gt_args_add_scalar(args, 5); /* orch_handle_misuse: one handle too many */
    int rc = graph_build_run(s, orch_handle_misuse, args, &g);
    assert_int_equal(rc, PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_false(graph_build_outgrew_window(s, rc));
    rc = graph_build_run(s, orch_five_tasks, args, &g);
    assert_int_equal(rc, PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_true(graph_build_outgrew_window(s, rc));
    assert_false(graph_build_outgrew_window(s, 0));
    graph_scratch_destroy(s);
    free(args);
}

/* A failed view call changes nothing before it fails the build: the
 * describing calls after it return the first status. */
static int later_rc[2];

static int orch_after_failed_make(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    ChipTensor dev = fixture_tensor_slice(&args->tensors[0], 0, 4);
    uint32_t h = 77;
    dev.reserved[0] = 1;
    simpler_orch_view_make(orch, &dev, &h);
    later_rc[0] = (int)h; /* not written */
    dev.reserved[0] = 0;
    later_rc[1] = simpler_orch_view_make(orch, &dev, &h);
    return 0;
}

static void view_calls_after_a_failure_return_the_first_status(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(4);
    ChipStorageTaskArgs *args = fixture_args_new();
    const graph *g = NULL;
    gt_args_add_tensor(args, DEV_A, 16, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(graph_build_run(s, orch_after_failed_make, args, &g), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(later_rc[0], 77);
    assert_int_equal(later_rc[1], PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    graph_scratch_destroy(s);
    free(args);
}

/* The wrappers refuse, without calling, when the runtime's ops table
 * predates view handles (a shorter struct_size). */
static int fake_calls;

static int fake_view_make(SimplerOrch *orch, const ChipTensor *tensor, uint32_t *out)
{
    (void)orch, (void)tensor, (void)out;
    fake_calls++;
    return 0;
}

static int fake_add_view(SimplerOrch *orch, uint32_t view, uint64_t start, uint32_t tag)
{
    (void)orch, (void)view, (void)start, (void)tag;
    fake_calls++;
    return 0;
}

static void view_wrappers_refuse_on_an_older_runtime(void **state)
{
    (void)state;
    SimplerOrchOps ops;
    memset(&ops, 0, sizeof(ops));
    ops.view_make = fake_view_make;
    ops.add_view = fake_add_view;
    SimplerOrch orch = {.ops = &ops};
    fake_calls = 0;
    ChipTensor t = fixture_tensor(DEV_A, 4, SIMPLER_ADDRESS_SPACE_DEVICE);
    uint32_t h = 5;
    ops.struct_size = (uint32_t)offsetof(SimplerOrchOps, view_make);
    assert_int_equal(simpler_orch_view_make(&orch, &t, &h), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(simpler_orch_add_view(&orch, 0, 0, SIMPLER_TAG_INPUT), PTO_RUNTIME_ERR_INVALID_STATE);
    ops.struct_size = (uint32_t)offsetof(SimplerOrchOps, add_view);
    assert_int_equal(simpler_orch_view_make(&orch, &t, &h), 0);
    assert_int_equal(simpler_orch_add_view(&orch, 0, 0, SIMPLER_TAG_INPUT), PTO_RUNTIME_ERR_INVALID_STATE);
    ops.struct_size = (uint32_t)sizeof(ops);
    assert_int_equal(simpler_orch_add_view(&orch, 0, 0, SIMPLER_TAG_INPUT), 0);
    assert_int_equal(fake_calls, 2);
    assert_int_equal(h, 5);
}

static int fake_submit_views(SimplerOrch *orch, int32_t func_id, uint32_t core_type, const SimplerOrchViewArg *args,
                             uint32_t count)
{
    (void)orch, (void)func_id, (void)core_type, (void)args, (void)count;
    fake_calls++;
    return 0;
}

static void submit_views_wrapper_refuses_on_an_older_runtime(void **state)
{
    (void)state;
    SimplerOrchOps ops;
    memset(&ops, 0, sizeof(ops));
    ops.submit_views = fake_submit_views;
    SimplerOrch orch = {.ops = &ops};
    fake_calls = 0;
    ops.struct_size = (uint32_t)offsetof(SimplerOrchOps, submit_views);
    assert_int_equal(simpler_orch_submit_views(&orch, 0, SIMPLER_CORE_TYPE_AIV, NULL, 0),
                     PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(fake_calls, 0);
    ops.struct_size = (uint32_t)sizeof(ops);
    assert_int_equal(simpler_orch_submit_views(&orch, 0, SIMPLER_CORE_TYPE_AIV, NULL, 0), 0);
    assert_int_equal(fake_calls, 1);
}

/* The ops table keeps the first release's layout and appends the view
 * ops after it, so an orchestration built against either header finds
 * every op it knows where it looks. */
static void orch_ops_keep_the_first_layout_and_append_the_later_ops(void **state)
{
    (void)state;
    const size_t fn = sizeof(void (*)(void));
    assert_int_equal(offsetof(SimplerOrchOps, tensor_create), 8);
    assert_int_equal(offsetof(SimplerOrchOps, arg_tensor), 8 + 8 * fn);
    assert_int_equal(offsetof(SimplerOrchOps, view_make), 8 + 9 * fn);
    assert_int_equal(offsetof(SimplerOrchOps, add_view), 8 + 10 * fn);
    assert_int_equal(offsetof(SimplerOrchOps, submit_views), 8 + 11 * fn);
    assert_int_equal(sizeof(SimplerOrchOps), 8 + 12 * fn);
    assert_int_equal(graph_orch_ops.struct_size, sizeof(SimplerOrchOps));
    assert_non_null(graph_orch_ops.view_make);
    assert_non_null(graph_orch_ops.add_view);
    assert_non_null(graph_orch_ops.submit_views);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(view_handles_build_the_graph_add_tensor_builds),
        cmocka_unit_test(submit_views_builds_the_graph_add_view_builds),
        cmocka_unit_test(submit_views_of_no_arguments_adds_a_task_without_arguments),
        cmocka_unit_test(submit_views_misuse_fails_the_build_with_documented_status),
        cmocka_unit_test(submit_views_after_a_failure_returns_the_first_status),
        cmocka_unit_test(submit_views_wrapper_refuses_on_an_older_runtime),
        cmocka_unit_test(view_handle_in_a_discarded_list_names_a_live_view),
        cmocka_unit_test(view_handle_names_the_tensor_as_it_was_made),
        cmocka_unit_test(view_handle_misuse_fails_the_build_with_documented_status),
        cmocka_unit_test(view_calls_after_a_failure_return_the_first_status),
        cmocka_unit_test(a_build_out_of_view_handles_did_not_outgrow_its_window),
        cmocka_unit_test(view_wrappers_refuse_on_an_older_runtime),
        cmocka_unit_test(orch_ops_keep_the_first_layout_and_append_the_later_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
