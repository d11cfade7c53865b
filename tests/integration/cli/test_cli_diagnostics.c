/* The real `simpler` binary's diagnostics: device codes named alike in
 * both modes, `simpler graph --dot`, and the trace a run writes
 * (docs/cli.md, docs/trace.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli_capture.h"

/* stdout and stderr merged into cli_out. */
static int cli(const char *args) { return cli_capture(args, "2>&1"); }

/* One core: the vector example needs AIV cores and gets only an AIC one.
 * Both modes refuse that on the host before anything is enqueued
 * (graph_kernels_check: PTO_RUNTIME_ERR_UNSUPPORTED naming the core
 * type), so the device never reports it: the CLI prints the same code,
 * name and reason for both. */
static void cli_too_few_cores_is_the_same_code_in_both_modes(void **state)
{
    (void)state;
    const char *refusal = "-1001 PTO_RUNTIME_ERR_UNSUPPORTED: task 0: func_id 0 runs on AIV cores";
    assert_int_equal(cli("run --cores 1 --replays 1"), 1);
    assert_non_null(strstr(cli_out, refusal));
    assert_null(strstr(cli_out, "-1008"));
    assert_null(strstr(cli_out, "PTO_DEVICE_ERR"));
    assert_int_equal(cli("run --mode program --cores 1 --replays 1"), 1);
    assert_non_null(strstr(cli_out, refusal));
    assert_null(strstr(cli_out, "PTO_DEVICE_ERR"));
}

/* `simpler graph EXAMPLE --dot FILE` writes a node per task and an edge
 * per dependency with its kind; a path works as IMAGE too. */
static void cli_graph_writes_the_examples_dot(void **state)
{
    (void)state;
    const char *dot = "cli_graph_test.dot";
    assert_int_equal(cli("graph vector --dot cli_graph_test.dot"), 0);
    assert_non_null(strstr(cli_out, "16 tasks"));
    FILE *f = fopen(dot, "r");
    assert_non_null(f);
    char line[256];
    int nodes = 0, edges = 0, named = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        edges += strstr(line, " -> ") != NULL && strstr(line, "label=\"RAW\"") != NULL;
        nodes += strstr(line, " -> ") == NULL && strstr(line, "func_id") != NULL;
        named += strstr(line, "kernel_mul") != NULL;
    }
    fclose(f);
    assert_int_equal(nodes, 16);
    assert_int_equal(edges, 16);
    assert_int_equal(named, 4);
    assert_int_equal(cli("graph " SIMPLER_BINARY_DIR "/examples/matmul_add.callable --dot cli_graph_test.dot"), 0);
    assert_non_null(strstr(cli_out, "arguments of example matmul_add"));
    remove(dot);
    assert_int_equal(cli("graph vector"), 2);
    assert_int_equal(cli("graph vector --example add_scalar --dot cli_graph_test.dot"), 1);
    assert_non_null(strstr(cli_out, "signature takes"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cli_too_few_cores_is_the_same_code_in_both_modes),
        cmocka_unit_test(cli_graph_writes_the_examples_dot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
