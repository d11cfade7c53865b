/* libFuzzer target for the `simpler` program's option parsing, in
 * process: the input is split at NUL bytes into a command line (argv),
 * each argument in its own exact-size allocation so ASan sees a read
 * past its end.
 *
 * It walks the line with options_next against a spec table of the
 * shapes the commands declare (flags, text, counts up to a limit,
 * choices, aliases) and checks every item against the rules of
 * tools/options.h: --help/-h are help, a non-dash argument is
 * positional, an option's value is taken verbatim and a refused value
 * is read again, a count is in 1..max and spelled whole, a choice is
 * one of its list, the walk ends after at most argc items and stays
 * ended; options_error writes a NUL-terminated message inside the size
 * it is given, for every size. Then it runs the real parser of
 * `simpler run` and `simpler bench` (run_options_parse) on the same
 * line: 0, 1 for help or 2 for a usage error, never a crash, and an
 * accepted line's options within their ranges. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "run_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ARGS_MAX 32

static const char *const modes[] = {"kernel", "program", "both", NULL};
static const char *const empty_choice[] = {"", NULL};
static const options_spec specs[] = {
    {"--json", NULL, OPTIONS_FLAG, 0, NULL},
    {"--trace", NULL, OPTIONS_TEXT, 0, NULL},
    {"--runs", "--replays", OPTIONS_COUNT, 1000000, NULL},
    {"--cores", "-c", OPTIONS_COUNT, 1, NULL},
    {"--mode", NULL, OPTIONS_CHOICE, 0, modes},
    {"-o", "--out", OPTIONS_TEXT, 0, NULL},
    {"--blank", NULL, OPTIONS_CHOICE, 0, empty_choice},
};
#define SPEC_COUNT ((int)(sizeof(specs) / sizeof(specs[0])))

static int spelled(const options_spec *s, const char *arg)
{
    return strcmp(arg, s->name) == 0 || (s->alias != NULL && strcmp(arg, s->alias) == 0);
}

static int in_choices(const char *const *c, const char *v)
{
    for (; *c != NULL; c++)
        if (strcmp(*c, v) == 0)
            return 1;
    return 0;
}

/* The whole text is a decimal count in 1..max. */
static int count_ok(const char *v, long max, long n)
{
    if (n < 1 || n > max)
        return 0;
    /* strtol accepts leading blanks, a sign and leading zeros; the
     * parser's rule is only that it reads the whole text. */
    char *end = NULL;
    long again = strtol(v, &end, 10);
    return end != v && *end == '\0' && again == n;
}

static void check_walk(int argc, char **argv)
{
    options_parser p;
    options_item it;
    char msg[64];
    int items = 0;
    options_init(&p, argc, argv, specs, SPEC_COUNT);
    for (;;) {
        int at = p.next;
        options_event e = options_next(&p, &it);
        if (e != it.event)
            abort();
        if (e == OPTIONS_END)
            break;
        if (++items > argc || at >= argc || it.arg != argv[at])
            abort();
        const char *arg = argv[at];
        int help = strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
        if (help != (e == OPTIONS_HELP))
            abort();
        if (!help && (arg[0] != '-') != (e == OPTIONS_POSITIONAL))
            abort();
        if (e == OPTIONS_OPTION || e == OPTIONS_NO_VALUE || e == OPTIONS_BAD_VALUE) {
            if (it.index < 0 || it.index >= SPEC_COUNT || !spelled(&specs[it.index], arg))
                abort();
        } else if (it.index != -1) {
            abort();
        }
        if (e == OPTIONS_UNKNOWN)
            for (int i = 0; i < SPEC_COUNT; i++)
                if (spelled(&specs[i], arg))
                    abort();
        const options_spec *s = it.index >= 0 ? &specs[it.index] : NULL;
        if (e == OPTIONS_NO_VALUE && (s->kind == OPTIONS_FLAG || at + 1 != argc))
            abort();
        if (e == OPTIONS_OPTION) {
            int took = s->kind != OPTIONS_FLAG;
            if (p.next != at + 1 + took || (took && it.value != argv[at + 1]) || (!took && it.value != NULL))
                abort();
            if (s->kind == OPTIONS_COUNT && !count_ok(it.value, s->max, it.count))
                abort();
            if (s->kind == OPTIONS_CHOICE && !in_choices(s->choices, it.value))
                abort();
            if (s->kind != OPTIONS_COUNT && it.count != 0)
                abort();
        } else if (p.next != at + 1) {
            abort(); /* nothing else consumes a value: a refused one is read again */
        }
        if (e == OPTIONS_BAD_VALUE) {
            if (it.value != argv[at + 1] || s->kind == OPTIONS_FLAG || s->kind == OPTIONS_TEXT)
                abort();
            if (s->kind == OPTIONS_CHOICE && in_choices(s->choices, it.value))
                abort();
        }
        /* The message fits every size, NUL-terminated, nothing past it. */
        for (unsigned sz = 1; sz <= sizeof(msg); sz += 21) {
            memset(msg, 0x7f, sizeof(msg));
            options_error(&it, specs, msg, sz);
            if (memchr(msg, '\0', sz) == NULL)
                abort();
            for (unsigned k = sz; k < sizeof(msg); k++)
                if (msg[k] != 0x7f)
                    abort();
        }
    }
    /* Ended stays ended. */
    if (options_next(&p, &it) != OPTIONS_END || it.arg != NULL)
        abort();
}

static void check_run_parse(run_command command, int argc, char **argv)
{
    run_options o;
    int rc = run_options_parse(command, argc, argv, &o);
    if (rc != 0 && rc != 1 && rc != 2)
        abort();
    if (rc != 0)
        return;
    if (o.name == NULL || o.runs < 1 || o.runs > CMD_RUNS_MAX || o.cores > CMD_CORES_MAX || (unsigned)o.mode > RUN_MODE_BOTH || (o.json != 0 && o.json != 1))
        abort();
    if (o.image_path != NULL && (command != RUN_COMMAND_RUN || o.mode != RUN_MODE_PROGRAM))
        abort();
    if (o.trace_path != NULL && command != RUN_COMMAND_RUN)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[ARGS_MAX + 1];
    int argc = 0;
    argv[argc] = malloc(sizeof("simpler"));
    if (argv[argc] == NULL)
        abort();
    memcpy(argv[argc++], "simpler", sizeof("simpler"));
    size_t start = 0;
    for (size_t i = 0; i <= size && argc < ARGS_MAX; i++) {
        if (i == size || data[i] == 0) {
            char *a = malloc(i - start + 1);
            if (a == NULL)
                abort();
            memcpy(a, data + start, i - start);
            a[i - start] = '\0';
            argv[argc++] = a;
            start = i + 1;
        }
    }
    argv[argc] = NULL;
    check_walk(argc, argv);
    check_run_parse(RUN_COMMAND_RUN, argc, argv);
    check_run_parse(RUN_COMMAND_BENCH, argc, argv);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    return 0;
}
