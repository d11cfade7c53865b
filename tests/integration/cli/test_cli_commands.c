/* The real `simpler` binary, run as a user would: every subcommand's
 * exit status and the fields of its summary (docs/cli.md). */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define CLI_PATH SIMPLER_BINARY_DIR "/simpler"
#define CLI_OUT_MAX 16384

static char out[CLI_OUT_MAX];

/* Runs `simpler ARGS` with stderr discarded; stdout into `out`. Returns
 * the exit status, or -1 when the program did not exit normally. */
static int cli(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "'%s' %s 2>/dev/null", CLI_PATH, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The number after `"key":` in out, or -1 when absent. */
static double json_number(const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *at = strstr(out, pat);
    return at != NULL ? strtod(at + strlen(pat), NULL) : -1.0;
}

static void cli_run_default_is_kernel_mode_and_matches_golden(void **state)
{
    (void)state;
    assert_int_equal(cli("run --replays 2"), 0);
    assert_non_null(strstr(out, "simpler run: vector, kernel mode, "));
    assert_non_null(strstr(out, "replay "));
    assert_non_null(strstr(out, "ns per task"));
    assert_non_null(strstr(out, "0 host, 0 device during launches"));
    assert_non_null(strstr(out, "golden              every run matched"));
}

static void cli_run_program_mode_vector_matches_golden(void **state)
{
    (void)state;
    assert_int_equal(cli("run --mode program vector --replays 2"), 0);
    assert_non_null(strstr(out, "example  vector (program mode)"));
    assert_non_null(strstr(out, "runs     2 of 2"));
    assert_non_null(strstr(out, "result   ok"));
}

static void cli_run_json_reports_kernel_summary_fields(void **state)
{
    (void)state;
    assert_int_equal(cli("run --json --replays 2 --cores 2"), 0);
    assert_non_null(strstr(out, "\"mode\":\"kernel\""));
    assert_non_null(strstr(out, "\"result\":\"ok\""));
    assert_true(json_number("tasks") >= 2);
    assert_true(json_number("replays") == 2);
    assert_true(json_number("cores") == 2);
    assert_true(json_number("host_allocs") == 0);
    assert_true(json_number("replay_us") > 0);
    assert_true(json_number("gm_heap_before") == json_number("gm_heap_after"));
    assert_int_equal(out[strlen(out) - 2], '}');
}

static void cli_bench_prints_both_modes(void **state)
{
    (void)state;
    assert_int_equal(cli("bench --runs 3"), 0);
    assert_non_null(strstr(out, "3 runs per row"));
    assert_non_null(strstr(out, "program  simpler_run"));
    assert_non_null(strstr(out, "kernel   eager launch + sync"));
    assert_non_null(strstr(out, "kernel   replay + sync"));
}

static void cli_bench_json_has_every_row(void **state)
{
    (void)state;
    assert_int_equal(cli("bench --runs 2 --json"), 0);
    assert_non_null(strstr(out, "\"program\":{\"median_us\":"));
    assert_non_null(strstr(out, "\"kernel_eager\":{\"median_us\":"));
    assert_non_null(strstr(out, "\"kernel_replay\":{\"median_us\":"));
    assert_true(json_number("runs") == 2);
}

static void cli_help_lists_every_command(void **state)
{
    (void)state;
    assert_int_equal(cli("--help"), 0);
    const char *const commands[] = {"run", "bench", "pack", "inspect"};
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        assert_non_null(strstr(out, commands[i]));
    assert_int_equal(cli("run --help"), 0);
    assert_non_null(strstr(out, "--replays"));
    assert_int_equal(cli("bench --help"), 0);
    assert_non_null(strstr(out, "--runs"));
}

static void cli_unknown_command_is_usage_error(void **state)
{
    (void)state;
    assert_int_equal(cli("no-such-command"), 2);
    assert_int_equal(cli("bench --no-such-option"), 2);
    assert_int_equal(cli("run no_such_example"), 2);
}

static void cli_replays_out_of_range_is_usage_error(void **state)
{
    (void)state;
    assert_int_equal(cli("run --replays 0"), 2);
    assert_int_equal(cli("run --replays -3"), 2);
    assert_int_equal(cli("run --replays 2x"), 2);
    assert_int_equal(cli("run --replays 1000001"), 2);
    assert_int_equal(cli("run --cores 0"), 2);
    assert_int_equal(cli("bench --runs 0"), 2);
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cli_run_default_is_kernel_mode_and_matches_golden),
        cmocka_unit_test(cli_run_program_mode_vector_matches_golden),
        cmocka_unit_test(cli_run_json_reports_kernel_summary_fields),
        cmocka_unit_test(cli_bench_prints_both_modes),
        cmocka_unit_test(cli_bench_json_has_every_row),
        cmocka_unit_test(cli_help_lists_every_command),
        cmocka_unit_test(cli_unknown_command_is_usage_error),
        cmocka_unit_test(cli_replays_out_of_range_is_usage_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
