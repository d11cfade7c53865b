/* The real `simpler` binary, run as a user would: every subcommand's
 * exit status and the fields of its summary (docs/cli.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli_capture.h"

/* stdout into cli_out, stderr discarded. */
static int cli(const char *args) { return cli_capture(args, "2>/dev/null"); }

/* stderr into cli_out, stdout discarded. */
static int cli_err(const char *args) { return cli_capture(args, "2>&1 >/dev/null"); }

static void cli_run_default_is_kernel_mode_and_matches_golden(void **state)
{
    (void)state;
    assert_int_equal(cli("run --runs 2"), 0);
    assert_non_null(strstr(cli_out, "simpler run: vector, kernel mode, "));
    assert_non_null(strstr(cli_out, "  runs                2 of 2, fresh inputs each"));
    assert_non_null(strstr(cli_out, "(replay + synchronize)"));
    assert_non_null(strstr(cli_out, "ns per task"));
    assert_non_null(strstr(cli_out, "0 host, 0 device during the eager and the captured launch"));
    assert_non_null(strstr(cli_out, "  golden              every run matched"));
    assert_non_null(strstr(cli_out, "  result              ok"));
}

/* Both modes print the same lines, in the same order. */
static void cli_run_summary_has_one_layout_for_both_modes(void **state)
{
    static const char *const lines[] = {"simpler run: vector, ", "\n  image ", "\n  runs ", "\n  cores ",
                                        "\n  first run ", "\n  per run ", "\n  ns per task ",
                                        "\n  allocations ", "\n  committed device ", "\n  gm_heap base ",
                                        "\n  retained temp base ", "\n  golden ", "\n  result "};
    static const char *const modes[] = {"run --mode kernel --runs 2", "run --mode program --runs 2"};
    (void)state;
    for (size_t m = 0; m < 2; m++) {
        assert_int_equal(cli(modes[m]), 0);
        const char *at = cli_out;
        for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
            at = strstr(at, lines[i]);
            assert_non_null(at);
        }
    }
}

static void cli_run_json_reports_summary_fields(void **state)
{
    (void)state;
    assert_int_equal(cli("run --json --runs 2 --cores 2"), 0);
    assert_non_null(strstr(cli_out, "\"mode\":\"kernel\""));
    assert_non_null(strstr(cli_out, "\"result\":\"ok\""));
    assert_non_null(strstr(cli_out, "\"error\":null"));
    assert_true(cli_json_number("tasks") >= 2);
    assert_true(cli_json_number("runs") == 2);
    assert_true(cli_json_number("cores") == 2);
    assert_true(cli_json_number("host") == 0);
    assert_true(cli_json_number("mean") > 0);
    assert_int_equal(cli_out[strlen(cli_out) - 2], '}');
}

static void cli_bench_prints_both_modes(void **state)
{
    (void)state;
    assert_int_equal(cli("bench --runs 3"), 0);
    assert_non_null(strstr(cli_out, "3 runs per row"));
    assert_non_null(strstr(cli_out, "program  simpler_run"));
    assert_non_null(strstr(cli_out, "kernel   eager launch + sync"));
    assert_non_null(strstr(cli_out, "kernel   replay + sync"));
}

static void cli_bench_mode_measures_one_mode(void **state)
{
    (void)state;
    assert_int_equal(cli("bench --runs 2 --mode program"), 0);
    assert_non_null(strstr(cli_out, "program  simpler_run"));
    assert_null(strstr(cli_out, "kernel   "));
    assert_int_equal(cli("bench --replays 2 --mode kernel"), 0);
    assert_null(strstr(cli_out, "program  "));
    assert_non_null(strstr(cli_out, "kernel   replay + sync"));
}

static void cli_bench_json_has_every_row(void **state)
{
    (void)state;
    assert_int_equal(cli("bench --runs 2 --json"), 0);
    assert_non_null(strstr(cli_out, "{\"mode\":\"program\",\"measure\":\"simpler_run\",\"median_us\":"));
    assert_non_null(strstr(cli_out, "{\"mode\":\"kernel\",\"measure\":\"eager launch + sync\",\"median_us\":"));
    assert_non_null(strstr(cli_out, "{\"mode\":\"kernel\",\"measure\":\"replay + sync\",\"median_us\":"));
    assert_true(cli_json_number("runs") == 2);
}

static void cli_help_lists_every_command(void **state)
{
    (void)state;
    assert_int_equal(cli("--help"), 0);
    const char *const commands[] = {"run", "bench", "pack", "inspect"};
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        assert_non_null(strstr(cli_out, commands[i]));
    assert_int_equal(cli("run --help"), 0);
    assert_non_null(strstr(cli_out, "--runs"));
    assert_non_null(strstr(cli_out, "--replays"));
    assert_int_equal(cli("bench --help"), 0);
    assert_non_null(strstr(cli_out, "--runs"));
    assert_non_null(strstr(cli_out, "--mode"));
}

static void cli_unknown_command_is_usage_error(void **state)
{
    (void)state;
    assert_int_equal(cli("no-such-command"), 2);
    assert_int_equal(cli("bench --no-such-option"), 2);
    assert_int_equal(cli("run no_such_example"), 2);
}

static void cli_counts_out_of_range_are_usage_errors(void **state)
{
    (void)state;
    assert_int_equal(cli("run --replays 0"), 2);
    assert_int_equal(cli("run --runs -3"), 2);
    assert_int_equal(cli("run --replays 2x"), 2);
    assert_int_equal(cli("run --runs 1000001"), 2);
    assert_int_equal(cli("run --cores 0"), 2);
    assert_int_equal(cli("bench --runs 0"), 2);
    assert_string_equal(cli_out, "");
}

/* Every usage error exits 2 and names the option and the value. */
static void cli_usage_errors_name_the_option_and_value(void **state)
{
    static const struct {
        const char *args, *says;
    } cases[] = {
        {"run --replays 2x", "--replays '2x': not a count in 1..1000000"},
        {"run --runs 0", "--runs '0': not a count in 1..1000000"},
        {"run --mode bogus", "--mode 'bogus': not one of kernel, program"},
        {"run --trace", "--trace needs a value"},
        {"run --cores 100", "--cores '100': the device has "},
        {"bench --cores 100", "--cores '100': the device has "},
        {"run --no-such", "unknown option '--no-such'"},
        {"run vector extra", "unexpected argument 'extra'"},
        {"run no_such_example", "unknown example 'no_such_example'"},
        {"run --image x.callable", "--image 'x.callable': program mode only"},
        {"bench --mode bogus", "--mode 'bogus': not one of kernel, program"},
        {"bench --trace t.json", "unknown option '--trace'"},
        {"pack --sig in,inn -o o --orchestration x.so --entry e", "--sig 'in,inn': entry 'inn' is not one of"},
        {"pack --kernel 0:AIX:k.so -o o --orchestration x.so --entry e",
         "--kernel '0:AIX:k.so': core type 'AIX' is not AIC or AIV"},
        {"pack --kernel x:AIC:k.so", "--kernel 'x:AIC:k.so': ID is not a number"},
        {"pack --kernel 0:AIV -o o --orchestration x.so --entry e",
         "--kernel '0:AIV': no KERNEL.so path after the core type AIV"},
        {"pack -o o --entry e", "missing --orchestration ORCH.so"},
        {"inspect", "missing FILE"},
        {"inspect a b", "unexpected argument 'b'"},
        {"inspect --jsn a.callable", "unknown option '--jsn'"},
        {"inspect a.callable -x", "unknown option '-x'"},
        {"no-such-command", "unknown command 'no-such-command'"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = cli_err(cases[i].args);
        if (rc != 2 || strstr(cli_out, cases[i].says) == NULL)
            fail_msg("simpler %s: exit %d, stderr: %s (want 2 and \"%s\")", cases[i].args, rc, cli_out, cases[i].says);
    }
}

/* A failed call prints its status, the status's name and the library's
 * refusal reason (simpler_last_error_message) after it. */
static void cli_failed_call_prints_status_name_and_reason(void **state)
{
    (void)state;
    assert_int_equal(cli_err("inspect /nonexistent-simpler-dir/x.callable"), 1);
    assert_non_null(strstr(cli_out, "simpler inspect: cannot read '/nonexistent-simpler-dir/x.callable': -1005 "
                                "PTO_RUNTIME_ERR_INVALID_ARGUMENT: path '/nonexistent-simpler-dir/x.callable': "
                                "cannot open: No such file or directory"));
    assert_int_equal(cli_err("run --mode program --image /nonexistent-simpler-dir/x.callable"), 2);
    assert_non_null(strstr(cli_out, "-1005 PTO_RUNTIME_ERR_INVALID_ARGUMENT: path '/nonexistent-simpler-dir/x.callable': "
                                "cannot open"));
    assert_int_equal(cli_err("graph /nonexistent-simpler-dir/x.callable --example vector --dot x.dot"), 2);
    assert_non_null(strstr(cli_out, "simpler graph: cannot read the image '/nonexistent-simpler-dir/x.callable': -1005 "
                                "PTO_RUNTIME_ERR_INVALID_ARGUMENT: path '/nonexistent-simpler-dir/x.callable'"));
    assert_int_equal(cli_err("graph vector --example add_scalar --dot x.dot"), 1);
    assert_non_null(strstr(cli_out, "simpler graph: failed: -1005 PTO_RUNTIME_ERR_INVALID_ARGUMENT: args: 2 tensors "
                                "and 1 scalars, but the callable's signature takes 3 and 0"));
    assert_int_equal(cli_err("bench --cores 1 --runs 1 --mode program"), 1);
    assert_non_null(strstr(cli_out, "-1001 PTO_RUNTIME_ERR_UNSUPPORTED: task 0: func_id 0 runs on AIV cores"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cli_run_default_is_kernel_mode_and_matches_golden),
        cmocka_unit_test(cli_run_summary_has_one_layout_for_both_modes),
        cmocka_unit_test(cli_run_json_reports_summary_fields),
        cmocka_unit_test(cli_bench_prints_both_modes),
        cmocka_unit_test(cli_bench_mode_measures_one_mode),
        cmocka_unit_test(cli_bench_json_has_every_row),
        cmocka_unit_test(cli_help_lists_every_command),
        cmocka_unit_test(cli_unknown_command_is_usage_error),
        cmocka_unit_test(cli_counts_out_of_range_are_usage_errors),
        cmocka_unit_test(cli_usage_errors_name_the_option_and_value),
        cmocka_unit_test(cli_failed_call_prints_status_name_and_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
