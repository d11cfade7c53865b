/* simpler_graph_dot: the DOT file has one node per task and one edge per
 * dependency of the host build, each edge labelled with why it exists,
 * for the diamond and for every example on `simpler run`'s arguments. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "example_cases.h"
#include "example_driver.h"

#include "diamond_image.h"

#include "callable/loader.h"
#include "common/error.h"
#include "common/host_alloc.h"
#include "graph/tensor_map.h"
#include "fsize_limit.h"
#include "reason_check.h"
#include "text_file.h"

#define DOT_PATH "graph_dot_test.dot"

typedef struct dot_counts {
    uint32_t nodes, edges, raw, war, waw;
} dot_counts;

/* Counts node and edge lines of the file and the kinds on edge labels. */
static dot_counts dot_read(const char *path)
{
    dot_counts c = {0, 0, 0, 0, 0};
    char line[512];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f) != NULL) {
        if (strstr(line, " -> ") != NULL) {
            c.edges++;
            c.raw += strstr(line, "RAW") != NULL;
            c.war += strstr(line, "WAR") != NULL;
            c.waw += strstr(line, "WAW") != NULL;
        } else if (strstr(line, "[label=") != NULL) {
            c.nodes++;
        }
    }
    fclose(f);
    return c;
}

/* The host build's task and edge counts for `image` on `args`. */
static void host_build(const void *img, size_t size, const ChipStorageTaskArgs *args, uint32_t *tasks,
                       uint32_t *edges)
{
    loaded_callable *lc = NULL;
    const graph *g = NULL;
    assert_int_equal(callable_load(img, size, NULL, &lc), 0);
    graph_scratch *s = gt_scratch(1u << 16);
    assert_int_equal(graph_build_run(s, (SimplerOrchEntryFn)lc->orch_entry, args, &g), 0);
    *tasks = g->task_count;
    *edges = g->edge_count;
    graph_scratch_destroy(s);
    callable_unload(lc);
}

static void dot_of_the_diamond_has_its_nodes_and_edges(void **state)
{
    (void)state;
    ChipStorageTaskArgs *args = fixture_args(0, SIMPLER_ADDRESS_SPACE_HOST);
    SimplerGraphRequirements req;
    assert_int_equal(simpler_graph_requirements(image, image_size, args, &req), 0);
    assert_diamond_requirements(&req);
    uint32_t tasks, edges;
    host_build(image, image_size, args, &tasks, &edges);
    assert_int_equal(simpler_graph_dot(image, image_size, args, DOT_PATH), 0);
    assert_string_equal(simpler_last_error_message(), "");
    dot_counts c = dot_read(DOT_PATH);
    assert_int_equal(c.nodes, tasks);
    assert_int_equal(c.edges, edges);
    assert_int_equal(tasks, 4);
    assert_int_equal(c.raw, edges); /* a diamond only reads what others wrote */
    remove(DOT_PATH);
    free(args);
}

static void dot_of_every_example_matches_the_host_build(void **state)
{
    (void)state;
    static const char *const names[] = {"vector", "add_scalar", "paged_attention", "matmul_add"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512];
        example_case c;
        example_buffers host;
        ChipStorageTaskArgs args;
        void *img = NULL;
        size_t size = 0;
        snprintf(path, sizeof path, "%s/examples/%s.callable", SIMPLER_BINARY_DIR, names[i]);
        assert_int_equal(example_case_default(names[i], &c), 0);
        assert_int_equal(example_image_read(path, &img, &size), 0);
        assert_int_equal(example_buffers_create(&c, NULL, &host), 0);
        assert_int_equal(example_args_make(&c, &host, &args), 0);
        uint32_t tasks, edges;
        host_build(img, size, &args, &tasks, &edges);
        assert_int_equal(simpler_graph_dot(img, size, &args, DOT_PATH), 0);
        dot_counts d = dot_read(DOT_PATH);
        assert_int_equal(d.nodes, tasks);
        assert_int_equal(d.edges, edges);
        assert_true(d.raw + d.war + d.waw >= d.edges); /* every edge says why */
        remove(DOT_PATH);
        example_buffers_destroy(NULL, &host);
        simpler_callable_free(img);
    }
}

/* Task 0 writes X, task 1 reads X, task 2 writes X, task 3 reads and
 * writes X: 0->1 RAW, 0->2 WAW, 1->2 WAR, 2->3 RAW+WAW (one edge, two
 * reasons). The kinds come from the TensorMap's own decisions. */
static int orch_hazards(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    const SimplerOrchOps *ops = orch->ops;
    ChipTensor x = args->tensors[0], y = args->tensors[1];
    int rc = ops->args_begin(orch);
    rc = rc ? rc : ops->add_tensor(orch, &x, SIMPLER_TAG_OUTPUT_EXISTING);
    rc = rc ? rc : ops->submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    rc = rc ? rc : ops->args_begin(orch);
    rc = rc ? rc : ops->add_tensor(orch, &x, SIMPLER_TAG_INPUT);
    rc = rc ? rc : ops->add_tensor(orch, &y, SIMPLER_TAG_OUTPUT_EXISTING);
    rc = rc ? rc : ops->submit(orch, 1, SIMPLER_CORE_TYPE_AIV);
    rc = rc ? rc : ops->args_begin(orch);
    rc = rc ? rc : ops->add_tensor(orch, &x, SIMPLER_TAG_OUTPUT_EXISTING);
    rc = rc ? rc : ops->submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    rc = rc ? rc : ops->args_begin(orch);
    rc = rc ? rc : ops->add_tensor(orch, &x, SIMPLER_TAG_INOUT);
    rc = rc ? rc : ops->submit(orch, 1, SIMPLER_CORE_TYPE_AIV);
    return rc;
}

/* Builds `orch` over the diamond's two DEVICE tensors with edge kinds
 * recorded; the caller destroys *s and frees *args. */
static const graph *build_with_kinds(SimplerOrchEntryFn orch, graph_scratch **s, ChipStorageTaskArgs **args)
{
    const graph *g = NULL;
    *args = diamond_args(SIMPLER_ADDRESS_SPACE_DEVICE, SIMPLER_ADDRESS_SPACE_DEVICE);
    *s = gt_scratch(64);
    assert_int_equal(graph_scratch_record_kinds(*s), 0);
    assert_int_equal(graph_build_run(*s, orch, *args, &g), 0);
    return g;
}

/* The hazards graph's edges and their kinds, built by `orch`: 0->1 RAW,
 * 0->2 WAW and 1->2 WAR (predecessors sorted), 2->3 RAW+WAW. */
static void assert_hazard_edges(SimplerOrchEntryFn orch)
{
    ChipStorageTaskArgs *args;
    graph_scratch *s;
    const graph *g = build_with_kinds(orch, &s, &args);
    assert_int_equal(g->task_count, 4);
    assert_int_equal(g->edge_count, 4);
    assert_int_equal(g->tasks[1].fanin_count, 1);
    assert_int_equal(g->fanin_kind[g->tasks[1].fanin_begin], TENSOR_MAP_DEP_RAW);
    assert_int_equal(g->tasks[2].fanin_count, 2);
    assert_int_equal(g->fanin[g->tasks[2].fanin_begin], 0);
    assert_int_equal(g->fanin_kind[g->tasks[2].fanin_begin], TENSOR_MAP_DEP_WAW);
    assert_int_equal(g->fanin_kind[g->tasks[2].fanin_begin + 1], TENSOR_MAP_DEP_WAR);
    assert_int_equal(g->tasks[3].fanin_count, 1);
    assert_int_equal(g->fanin[g->tasks[3].fanin_begin], 2);
    assert_int_equal(g->fanin_kind[g->tasks[3].fanin_begin], TENSOR_MAP_DEP_RAW | TENSOR_MAP_DEP_WAW);
    graph_scratch_destroy(s);
    free(args);
}

static void edge_kinds_are_raw_war_and_waw_as_the_map_found_them(void **state)
{
    (void)state;
    assert_hazard_edges(orch_hazards);
}

/* orch_hazards through view handles and submit_views, task 3 naming X
 * twice, written first in its list and read after: a task's reads come
 * before its writes whatever the order of its entries, so 2->3 is still
 * RAW+WAW. */
static int orch_hazards_views(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    uint32_t x = 0, y = 0;
    int rc = simpler_orch_view_make(orch, &args->tensors[0], &x);
    rc = rc ? rc : simpler_orch_view_make(orch, &args->tensors[1], &y);
    const SimplerOrchViewArg wx = {.view = x, .tag = SIMPLER_TAG_OUTPUT_EXISTING};
    const SimplerOrchViewArg rx = {.view = x, .tag = SIMPLER_TAG_INPUT};
    const SimplerOrchViewArg wy = {.view = y, .tag = SIMPLER_TAG_OUTPUT_EXISTING};
    const SimplerOrchViewArg t1[] = {rx, wy}, t3[] = {wx, rx};
    rc = rc ? rc : simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, &wx, 1);
    rc = rc ? rc : simpler_orch_submit_views(orch, 1, SIMPLER_CORE_TYPE_AIV, t1, 2);
    rc = rc ? rc : simpler_orch_submit_views(orch, 0, SIMPLER_CORE_TYPE_AIV, &wx, 1);
    rc = rc ? rc : simpler_orch_submit_views(orch, 1, SIMPLER_CORE_TYPE_AIV, t3, 2);
    return rc;
}

static void submit_views_edge_kinds_put_a_task_s_reads_first(void **state)
{
    (void)state;
    assert_hazard_edges(orch_hazards_views);
}

/* orch_hazards with task 3 adding X twice through add_tensor, written
 * first and read after: submit applies a task's reads before its
 * writes whatever the order of its arguments (it keeps a write that is
 * not the last argument's for after them), so 2->3 is still RAW+WAW. */
static int orch_hazards_write_first(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    const SimplerOrchOps *ops = orch->ops;
    ChipTensor x = args->tensors[0], y = args->tensors[1];
    int rc = ops->args_begin(orch);
    rc = rc ? rc : ops->add_tensor(orch, &x, SIMPLER_TAG_OUTPUT_EXISTING);
    rc = rc ? rc : ops->submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    rc = rc ? rc : ops->args_begin(orch);
    rc = rc ? rc : ops->add_tensor(orch, &x, SIMPLER_TAG_INPUT);
    rc = rc ? rc : ops->add_tensor(orch, &y, SIMPLER_TAG_OUTPUT_EXISTING);
    rc = rc ? rc : ops->submit(orch, 1, SIMPLER_CORE_TYPE_AIV);
    rc = rc ? rc : ops->args_begin(orch);
    rc = rc ? rc : ops->add_tensor(orch, &x, SIMPLER_TAG_OUTPUT_EXISTING);
    rc = rc ? rc : ops->submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    rc = rc ? rc : ops->args_begin(orch);
    rc = rc ? rc : ops->add_tensor(orch, &x, SIMPLER_TAG_OUTPUT_EXISTING);
    rc = rc ? rc : ops->add_tensor(orch, &x, SIMPLER_TAG_INPUT);
    rc = rc ? rc : ops->submit(orch, 1, SIMPLER_CORE_TYPE_AIV);
    return rc;
}

static void add_tensor_edge_kinds_put_a_task_s_reads_first(void **state)
{
    (void)state;
    assert_hazard_edges(orch_hazards_write_first);
}

/* Task 0 reads Y, task 1 writes X, task 2 reads X and then writes Y:
 * task 2 finds its predecessors in descending order (1 by its read, 0
 * by its write), and each sorted edge keeps its own kind: 0->2 WAR,
 * 1->2 RAW. */
static int orch_descending_pair(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    const SimplerOrchOps *ops = orch->ops;
    ChipTensor x = args->tensors[0], y = args->tensors[1];
    int rc = ops->args_begin(orch);
    rc = rc ? rc : ops->add_tensor(orch, &y, SIMPLER_TAG_INPUT);
    rc = rc ? rc : ops->submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    rc = rc ? rc : ops->args_begin(orch);
    rc = rc ? rc : ops->add_tensor(orch, &x, SIMPLER_TAG_OUTPUT_EXISTING);
    rc = rc ? rc : ops->submit(orch, 0, SIMPLER_CORE_TYPE_AIV);
    rc = rc ? rc : ops->args_begin(orch);
    rc = rc ? rc : ops->add_tensor(orch, &x, SIMPLER_TAG_INPUT);
    rc = rc ? rc : ops->add_tensor(orch, &y, SIMPLER_TAG_OUTPUT_EXISTING);
    rc = rc ? rc : ops->submit(orch, 1, SIMPLER_CORE_TYPE_AIV);
    return rc;
}

static void edge_kinds_follow_their_edges_when_predecessors_come_descending(void **state)
{
    (void)state;
    ChipStorageTaskArgs *args;
    graph_scratch *s;
    const graph *g = build_with_kinds(orch_descending_pair, &s, &args);
    assert_int_equal(g->task_count, 3);
    assert_int_equal(g->tasks[2].fanin_count, 2);
    uint32_t e = g->tasks[2].fanin_begin;
    assert_int_equal(g->fanin[e], 0);
    assert_int_equal(g->fanin_kind[e], TENSOR_MAP_DEP_WAR);
    assert_int_equal(g->fanin[e + 1], 1);
    assert_int_equal(g->fanin_kind[e + 1], TENSOR_MAP_DEP_RAW);
    graph_scratch_destroy(s);
    free(args);
}

static void dot_refusal_writes_no_file_and_says_why(void **state)
{
    (void)state;
    ChipStorageTaskArgs *args = fixture_args(2, SIMPLER_ADDRESS_SPACE_DEVICE); /* a func_id the image lacks */
    remove(DOT_PATH);
    assert_int_equal(simpler_graph_dot(image, image_size, args, DOT_PATH), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(simpler_last_error_message(), "names no kernel of the callable"));
    assert_null(fopen(DOT_PATH, "r"));
    free(args);
    args = fixture_args(0, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(simpler_graph_dot(image, image_size, args, "/no/such/dir/x.dot"),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(simpler_last_error_message(), "/no/such/dir/x.dot"));
    assert_int_equal(simpler_graph_dot(image, image_size, NULL, DOT_PATH), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_string_equal(simpler_last_error_message(), "args: NULL");
    free(args);
}

/* Files "<DOT_PATH>.partial.*" beside DOT_PATH (in the working folder). */
static int partial_files(void)
{
    DIR *dir = opendir(".");
    assert_non_null(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        n += strncmp(e->d_name, DOT_PATH ".partial.", sizeof(DOT_PATH ".partial.") - 1) == 0;
    closedir(dir);
    return n;
}

/* "A failed call leaves `path` as it was": a write that fails (the file
 * size limit) keeps the file the caller had there and leaves no partial
 * one; the status is -1000 with a reason. */
static void dot_whose_write_fails_keeps_the_existing_file(void **state)
{
    char text[64];
    fsize_limit l;
    (void)state;
    ChipStorageTaskArgs *args = fixture_args(3, SIMPLER_ADDRESS_SPACE_DEVICE);
    assert_int_equal(simpler_graph_dot(image, image_size, args, DOT_PATH), 0);
    struct stat st;
    assert_int_equal(stat(DOT_PATH, &st), 0);
    /* The limit lets the loader write the callable's binaries (memfd
     * files count too) and stops the DOT of 1500 tasks half way. */
    rlim_t limit = (rlim_t)st.st_size / 2;
    assert_int_equal(text_file_write(DOT_PATH, "kept\n"), 0);
    assert_int_equal(fsize_limit_begin(&l, limit), 0);
    int rc = simpler_graph_dot(image, image_size, args, DOT_PATH);
    fsize_limit_end(&l);
    assert_int_equal(rc, PTO_RUNTIME_ERR_INTERNAL);
    assert_non_null(strstr(simpler_last_error_message(), "writing the graph failed"));
    assert_non_null(text_file_read(DOT_PATH, text, sizeof text));
    assert_string_equal(text, "kept\n");
    assert_int_equal(partial_files(), 0);
    remove(DOT_PATH);
    free(args);
}

/* Host allocation k of a DOT export failing in turn, k = 1, 2, ...
 * until it runs unfailed, on the 1500-task chain (so the build outgrows
 * its first window and remakes its scratch): -1007 with a reason, no
 * file, every allocation that succeeded freed; then the file has every
 * task. */
static void dot_allocation_failure_sweep_leaves_no_file_and_leaks_nothing(void **state)
{
    (void)state;
    ChipStorageTaskArgs *args = fixture_args(3, SIMPLER_ADDRESS_SPACE_DEVICE);
    uint64_t k = 1;
    for (;; k++) {
        remove(DOT_PATH);
        uint64_t allocs = host_alloc_count(), frees = host_free_count();
        host_alloc_fail_nth(k);
        int rc = simpler_graph_dot(image, image_size, args, DOT_PATH);
        host_alloc_fail_nth(0);
        assert_reason_fits_status(rc);
        uint64_t made = host_alloc_count() - allocs;
        if (rc == 0) {
            assert_true(k > made);
            assert_int_equal(host_free_count() - frees, made);
            break;
        }
        assert_int_equal(rc, PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        assert_true(made >= k);
        assert_int_equal(host_free_count() - frees, made - 1);
        assert_null(fopen(DOT_PATH, "r"));
    }
    assert_true(k > 4); /* the callable, its kernels, two scratches at least */
    print_message("simpler_graph_dot sweep: %llu injection points\n", (unsigned long long)(k - 1));
    assert_int_equal(dot_read(DOT_PATH).nodes, 1500);
    remove(DOT_PATH);
    free(args);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dot_of_the_diamond_has_its_nodes_and_edges),
        cmocka_unit_test(dot_of_every_example_matches_the_host_build),
        cmocka_unit_test(edge_kinds_are_raw_war_and_waw_as_the_map_found_them),
        cmocka_unit_test(submit_views_edge_kinds_put_a_task_s_reads_first),
        cmocka_unit_test(add_tensor_edge_kinds_put_a_task_s_reads_first),
        cmocka_unit_test(edge_kinds_follow_their_edges_when_predecessors_come_descending),
        cmocka_unit_test(dot_refusal_writes_no_file_and_says_why),
        cmocka_unit_test(dot_allocation_failure_sweep_leaves_no_file_and_leaks_nothing),
        cmocka_unit_test(dot_whose_write_fails_keeps_the_existing_file),
    };
    return cmocka_run_group_tests(tests, load_image, free_image);
}
