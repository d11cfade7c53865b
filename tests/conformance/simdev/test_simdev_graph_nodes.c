/*
 * What becomes a graph node (kernels, copies, sets, host functions; not
 * allocations, not event records or waits) and the DOT dump of a graph.
 */
#include "fixture.h" /* first: it sets the POSIX feature level */

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault_sweep.h"
#include "fsize_limit.h"
#include "text_file.h"

struct two_lanes {
    simdev_stream_t origin, side;
    simdev_event_t fork, join;
    uint32_t *buf;
    void *extra;
    uint32_t host[16];
    atomic_int host_runs;
};

/* origin: kernel, fork, memset, join, host func; side: memcpy. */
static simdev_graph_t capture_every_kind(struct two_lanes *t)
{
    memset(t, 0, sizeof *t);
    t->origin = fix_stream();
    t->side = fix_stream();
    t->fork = fix_event();
    t->join = fix_event();
    t->buf = fix_malloc(64);
    assert_int_equal(simdev_capture_begin(t->origin, SIMDEV_CAPTURE_MODE_GLOBAL), SIMDEV_SUCCESS);
    fix_launch_fill(t->origin, t->buf, 16, 5);
    assert_int_equal(simdev_event_record(t->fork, t->origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_wait_event(t->side, t->fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memcpy_async(t->host, t->buf, 64, t->side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_record(t->join, t->side), SIMDEV_SUCCESS);
    /* Allocated mid-capture: not a node. */
    t->extra = fix_malloc(1024);
    assert_int_equal(simdev_stream_wait_event(t->origin, t->join), SIMDEV_SUCCESS);
    assert_int_equal(simdev_memset_async(t->extra, 0, 1024, t->origin), SIMDEV_SUCCESS);
    assert_int_equal(simdev_launch_host_func(t->origin, fix_count_host_fn, &t->host_runs), SIMDEV_SUCCESS);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(t->origin, &graph), SIMDEV_SUCCESS);
    assert_non_null(graph);
    return graph;
}

static void release_two_lanes(struct two_lanes *t, simdev_graph_t graph)
{
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(t->extra), SIMDEV_SUCCESS);
    assert_int_equal(simdev_free(t->buf), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(t->join), SIMDEV_SUCCESS);
    assert_int_equal(simdev_event_destroy(t->fork), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(t->side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(t->origin), SIMDEV_SUCCESS);
}

static void graph_node_count_counts_kernels_copies_sets_and_host_funcs(void **state)
{
    (void)state;
    struct two_lanes t;
    simdev_graph_t graph = capture_every_kind(&t);
    assert_int_equal(fix_node_count(graph), 4);
    assert_int_equal(atomic_load(&t.host_runs), 0);
    assert_int_equal(simdev_graph_launch(graph, t.side), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(t.side), SIMDEV_SUCCESS);
    assert_int_equal(atomic_load(&t.host_runs), 1);
    for (int i = 0; i < 16; i++)
        assert_int_equal(t.host[i], 5);
    release_two_lanes(&t, graph);
}

static void graph_node_count_of_empty_capture_is_zero(void **state)
{
    (void)state;
    simdev_stream_t stream = fix_stream();
    assert_int_equal(simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_RELAXED), SIMDEV_SUCCESS);
    simdev_graph_t graph = NULL;
    assert_int_equal(simdev_capture_end(stream, &graph), SIMDEV_SUCCESS);
    assert_int_equal(fix_node_count(graph), 0);
    assert_int_equal(simdev_graph_launch(graph, stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_graph_destroy(graph), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_destroy(stream), SIMDEV_SUCCESS);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static void graph_debug_dot_writes_every_node_kind_and_lane(void **state)
{
    (void)state;
    struct two_lanes t;
    simdev_graph_t graph = capture_every_kind(&t);
    char path[512];
    snprintf(path, sizeof path, "%s/tests/simdev_graph_%ld.dot", SIMPLER_BINARY_DIR, (long)getpid());
    remove(path);
    assert_int_equal(simdev_graph_debug_dot(graph, path), SIMDEV_SUCCESS);
    const char *text = read_text(path);
    assert_non_null(strstr(text, "digraph"));
    assert_non_null(strstr(text, "kernel"));
    assert_non_null(strstr(text, "memcpy"));
    assert_non_null(strstr(text, "memset"));
    assert_non_null(strstr(text, "host"));
    assert_non_null(strstr(text, "->"));
    assert_non_null(strstr(text, "lane 0"));
    assert_non_null(strstr(text, "lane 1"));
    assert_int_equal(remove(path), 0);
    release_two_lanes(&t, graph);
}

static void graph_debug_dot_unwritable_path_refused(void **state)
{
    (void)state;
    struct two_lanes t;
    simdev_graph_t graph = capture_every_kind(&t);
    assert_int_equal(simdev_graph_debug_dot(graph, "/nonexistent-dir/x/graph.dot"), SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(simdev_graph_debug_dot(graph, NULL), SIMDEV_ERROR_INVALID_PARAM);
    release_two_lanes(&t, graph);
}

/* A write that fails (the file size limit, set to half the DOT's size)
 * keeps the file that was at the path and leaves no partial one. */
static void graph_debug_dot_failed_write_keeps_the_existing_file(void **state)
{
    (void)state;
    struct two_lanes t;
    struct stat st;
    fsize_limit l;
    simdev_graph_t graph = capture_every_kind(&t);
    char path[512], partial[600];
    snprintf(path, sizeof path, "%s/tests/simdev_graph_kept_%ld.dot", SIMPLER_BINARY_DIR, (long)getpid());
    assert_int_equal(simdev_graph_debug_dot(graph, path), SIMDEV_SUCCESS);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(text_file_write(path, "kept\n"), 0);
    assert_int_equal(fsize_limit_begin(&l, (rlim_t)st.st_size / 2), 0);
    int rc = simdev_graph_debug_dot(graph, path);
    fsize_limit_end(&l);
    assert_int_equal(rc, SIMDEV_ERROR_INVALID_PARAM);
    assert_string_equal(read_text(path), "kept\n");
    snprintf(partial, sizeof partial, "simdev_graph_kept_%ld.dot.partial.", (long)getpid());
    assert_int_equal(sweep_test_files_named(partial), 0);
    assert_int_equal(remove(path), 0);
    release_two_lanes(&t, graph);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIX_TEST(graph_node_count_counts_kernels_copies_sets_and_host_funcs),
        FIX_TEST(graph_node_count_of_empty_capture_is_zero),
        FIX_TEST(graph_debug_dot_writes_every_node_kind_and_lane),
        FIX_TEST(graph_debug_dot_unwritable_path_refused),
        FIX_TEST(graph_debug_dot_failed_write_keeps_the_existing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
