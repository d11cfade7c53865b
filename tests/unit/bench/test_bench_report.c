/* The benchmarks' result table (bench/timing.h): rows from samples, and
 * the ratio rows the issues' goals are read from. */
#include "support.h"

#include <string.h>

#include "timing.h"

static struct bench_report report;

static int reset(void **state)
{
    (void)state;
    memset(&report, 0, sizeof(report));
    report.title = "test";
    return 0;
}

static void add(const char *name, const char *unit, double a, double b, double c)
{
    double samples[3] = {a, b, c};
    bench_report_add(&report, name, unit, samples, 3);
}

static const struct bench_row *last_row(void)
{
    assert_true(report.row_count > 0);
    return &report.rows[report.row_count - 1];
}

/* A row holds the median, min and max of its samples, in any order. */
static void row_from_samples(void **state)
{
    (void)state;
    add("a", "us", 6, 2, 4);
    const struct bench_row *row = last_row();
    assert_string_equal(row->name, "a");
    assert_string_equal(row->unit, "us");
    assert_true(row->median == 4 && row->min == 2 && row->max == 6);
    assert_int_equal(row->runs, 3);
}

/* The median column is the ratio of the medians; min and max bound every
 * ratio of one run of each row, so min <= median <= max. */
static void ratio_of_medians_within_bounds(void **state)
{
    (void)state;
    add("num", "ns/task", 2, 4, 6);
    add("den", "ns/task", 1, 2, 4);
    bench_report_ratio(&report, "num / den", "num", "den");
    const struct bench_row *row = last_row();
    assert_string_equal(row->name, "num / den");
    assert_string_equal(row->unit, "x");
    assert_true(row->median == 2.0);
    assert_true(row->min == 0.5); /* 2 / 4 */
    assert_true(row->max == 6.0); /* 6 / 1 */
    assert_int_equal(row->runs, 3);
}

static void assert_skipped(const char *why_part)
{
    const struct bench_row *row = last_row();
    assert_int_equal(row->runs, 0);
    assert_non_null(strstr(row->skipped, why_part));
}

/* A ratio whose row is missing, or has no figure, is a skipped row that
 * names it. */
static void ratio_of_a_missing_row_is_skipped(void **state)
{
    (void)state;
    add("den", "us", 1, 2, 3);
    bench_report_ratio(&report, "r1", "absent", "den");
    assert_skipped("\"absent\"");
    bench_report_skip(&report, "skipped", "not built");
    bench_report_ratio(&report, "r2", "den", "skipped");
    assert_skipped("\"skipped\"");
    assert_int_equal(report.row_count, 4);
}

/* Rows in different units are not divided. */
static void ratio_of_different_units_is_skipped(void **state)
{
    (void)state;
    add("us row", "us", 1, 2, 3);
    add("ns row", "ns", 1, 2, 3);
    bench_report_ratio(&report, "r", "us row", "ns row");
    assert_skipped("units differ");
}

/* A denominator with a run of 0 or less has no ratio. */
static void ratio_over_a_zero_run_is_skipped(void **state)
{
    (void)state;
    add("num", "us", 1, 2, 3);
    add("den", "us", 0, 2, 3);
    bench_report_ratio(&report, "r", "num", "den");
    assert_skipped("\"den\" has a run of 0 or less");
}

/* Rows past BENCH_ROWS_MAX are dropped, a ratio's too. */
static void full_report_drops_rows(void **state)
{
    (void)state;
    for (int i = 0; i < BENCH_ROWS_MAX; i++)
        add(i == 0 ? "num" : "den", "us", 1, 2, 3);
    bench_report_ratio(&report, "r", "num", "den");
    assert_int_equal(report.row_count, BENCH_ROWS_MAX);
    assert_string_equal(last_row()->name, "den");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(row_from_samples, reset),
        cmocka_unit_test_setup(ratio_of_medians_within_bounds, reset),
        cmocka_unit_test_setup(ratio_of_a_missing_row_is_skipped, reset),
        cmocka_unit_test_setup(ratio_of_different_units_is_skipped, reset),
        cmocka_unit_test_setup(ratio_over_a_zero_run_is_skipped, reset),
        cmocka_unit_test_setup(full_report_drops_rows, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
