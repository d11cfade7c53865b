/* The clock, the median and the result table of timing.h. */
#define _GNU_SOURCE
#include "timing.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simpler/runtime_c_api.h"

/* The library's clock, so host figures compare with the device timings
 * and trace timestamps the runtime reports. */
uint64_t bench_now_ns(void)
{
    return simpler_clock_ns();
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *samples, size_t count)
{
    if (count == 0)
        return 0;
    qsort(samples, count, sizeof(*samples), compare_double);
    if (count % 2 == 1)
        return samples[count / 2];
    return (samples[count / 2 - 1] + samples[count / 2]) / 2;
}

static struct bench_row *row_next(struct bench_report *r, const char *name, const char *unit)
{
    if (r->row_count == BENCH_ROWS_MAX)
        return NULL;
    struct bench_row *row = &r->rows[r->row_count++];
    memset(row, 0, sizeof(*row));
    snprintf(row->name, sizeof(row->name), "%s", name);
    snprintf(row->unit, sizeof(row->unit), "%s", unit);
    return row;
}

void bench_report_add(struct bench_report *r, const char *name, const char *unit, double *samples, size_t count)
{
    struct bench_row *row = row_next(r, name, unit);
    if (row == NULL || count == 0)
        return;
    row->median = bench_median(samples, count);
    row->min = samples[0];
    row->max = samples[count - 1];
    row->runs = (unsigned)count;
}

static const struct bench_row *row_find(const struct bench_report *r, const char *name)
{
    for (size_t i = 0; i < r->row_count; i++)
        if (strcmp(r->rows[i].name, name) == 0)
            return r->rows[i].runs != 0 ? &r->rows[i] : NULL;
    return NULL;
}

void bench_report_ratio(struct bench_report *r, const char *name, const char *numerator, const char *denominator)
{
    const struct bench_row *n = row_find(r, numerator), *d = row_find(r, denominator);
    char why[160];
    if (n == NULL || d == NULL)
        snprintf(why, sizeof(why), "no figure for \"%s\"", n == NULL ? numerator : denominator);
    else if (strcmp(n->unit, d->unit) != 0)
        snprintf(why, sizeof(why), "units differ: %s against %s", n->unit, d->unit);
    else if (d->min <= 0)
        snprintf(why, sizeof(why), "\"%s\" has a run of 0 or less", denominator);
    else
        why[0] = '\0';
    if (why[0] != '\0') {
        bench_report_skip(r, name, why);
        return;
    }
    struct bench_row *row = row_next(r, name, "x");
    if (row == NULL)
        return;
    row->median = n->median / d->median;
    row->min = n->min / d->max;
    row->max = n->max / d->min;
    row->runs = n->runs < d->runs ? n->runs : d->runs;
}

void bench_report_skip(struct bench_report *r, const char *name, const char *why)
{
    struct bench_row *row = row_next(r, name, "");
    if (row != NULL)
        snprintf(row->skipped, sizeof(row->skipped), "%s", why);
}

/* Decimals a figure prints with: ratios two, times one. */
static int digits(const struct bench_row *row)
{
    return strcmp(row->unit, "x") == 0 ? 2 : 1;
}

/* The name column fits the longest name, 40 at least. */
static void print_table(const struct bench_report *r)
{
    int w = 40;
    for (size_t i = 0; i < r->row_count; i++)
        if ((int)strlen(r->rows[i].name) > w)
            w = (int)strlen(r->rows[i].name);
    printf("%s\n", r->title);
    printf("  %-*s %12s %12s %12s  %s\n", w, "measurement", "median", "min", "max", "unit (runs)");
    for (size_t i = 0; i < r->row_count; i++) {
        const struct bench_row *row = &r->rows[i];
        if (row->runs == 0)
            printf("  %-*s %12s %12s %12s  %s\n", w, row->name, "n/a", "", "", row->skipped);
        else
            printf("  %-*s %12.*f %12.*f %12.*f  %s (%u)\n", w, row->name, digits(row), row->median, digits(row),
                   row->min, digits(row), row->max, row->unit, row->runs);
    }
}

/* Prints `text` as a JSON string. */
static void json_string(const char *text)
{
    putchar('"');
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '"' || *c == '\\')
            putchar('\\');
        if ((unsigned char)*c >= 0x20)
            putchar(*c);
    }
    putchar('"');
}

static void print_json(const struct bench_report *r)
{
    printf("{\"bench\": ");
    json_string(r->title);
    printf(", \"rows\": [");
    for (size_t i = 0; i < r->row_count; i++) {
        const struct bench_row *row = &r->rows[i];
        printf("%s\n  {\"name\": ", i ? "," : "");
        json_string(row->name);
        printf(", ");
        if (row->runs == 0) {
            printf("\"skipped\": ");
            json_string(row->skipped);
            printf(", \"median\": null}");
        } else {
            printf("\"unit\": \"%s\", \"median\": %.*f, \"min\": %.*f, \"max\": %.*f, \"runs\": %u}", row->unit,
                   digits(row), row->median, digits(row), row->min, digits(row), row->max, row->runs);
        }
    }
    printf("\n]}\n");
}

void bench_report_print(const struct bench_report *r, int json)
{
    if (json)
        print_json(r);
    else
        print_table(r);
    fflush(stdout);
}

static int usage(const char *prog, int status)
{
    fprintf(stderr,
            "usage: %s [--json] [--runs N] [--only TEXT] [--host-cpu N]\n"
            "  --runs N        runs per measurement, 1..%d (default %d)\n"
            "  --only TEXT     only the groups of rows whose name contains TEXT\n"
            "  --host-cpu N    pin the main thread to CPU N once simdev is up (bench_graph;\n"
            "                  bench_kernel: its kernel-mode and 2-task program rows)\n",
            prog, BENCH_RUNS_MAX, BENCH_RUNS_DEFAULT);
    return status;
}

int bench_selected(const struct bench_options *opt, const char *group)
{
    return opt->only == NULL || strstr(group, opt->only) != NULL;
}

int bench_options_parse(int argc, char **argv, struct bench_options *opt, int *exit_code)
{
    opt->json = 0;
    opt->runs = BENCH_RUNS_DEFAULT;
    opt->only = NULL;
    opt->host_cpu = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            opt->json = 1;
        } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            char *end = NULL;
            unsigned long n = strtoul(argv[++i], &end, 10);
            if (*end != '\0' || n < 1 || n > BENCH_RUNS_MAX) {
                *exit_code = usage(argv[0], 2);
                return 1;
            }
            opt->runs = (unsigned)n;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc && argv[i + 1][0] != '\0') {
            opt->only = argv[++i];
        } else if (strcmp(argv[i], "--host-cpu") == 0 && i + 1 < argc) {
            char *end = NULL;
            unsigned long n = strtoul(argv[++i], &end, 10);
            if (*end != '\0' || n >= CPU_SETSIZE) {
                *exit_code = usage(argv[0], 2);
                return 1;
            }
            opt->host_cpu = (int)n;
        } else {
            *exit_code = usage(argv[0], strcmp(argv[i], "--help") == 0 ? 0 : 2);
            return 1;
        }
    }
    return 0;
}

static cpu_set_t host_unpinned;
static int host_unpinned_known;

int bench_pin_host(const struct bench_options *opt)
{
    if (opt->host_cpu < 0)
        return 0;
    if (!host_unpinned_known)
        host_unpinned_known = pthread_getaffinity_np(pthread_self(), sizeof(host_unpinned), &host_unpinned) == 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(opt->host_cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0 ? 0 : -1;
}

void bench_unpin_host(void)
{
    if (host_unpinned_known)
        (void)pthread_setaffinity_np(pthread_self(), sizeof(host_unpinned), &host_unpinned);
}
