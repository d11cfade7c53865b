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
 * accepted line's options within their ranges. Last, the parsers of
 * `simpler pack`, `simpler graph` and `simpler inspect` (cli_parse.h)
 * on the same line: 0, 1 or -1, a refusal with a NUL-terminated reason
 * that fits its buffer, help wherever it appears, an accepted line's
 * values pointing into argv, every --kernel child a valid descriptor
 * (func_id in range, AIC or AIV, a path, a 1..31-character name, a
 * signature of at most 32 known directions) and nothing leaked. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"
#include "commands.h"
#include "options.h"
#include "run_common.h"

static int has_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

/* `p` is one of argv[1..argc-1] (or NULL when `may_be_null`). */
static int from_argv(const char *p, int argc, char **argv, int may_be_null)
{
    if (p == NULL)
        return may_be_null;
    for (int i = 1; i < argc; i++)
        if (p == argv[i])
            return 1;
    return 0;
}

/* A parser's reason: NUL-terminated inside `size`, nothing written past
 * it; empty when the line was not refused, not empty when it was (and
 * there is room for a character). */
static void check_reason(int rc, const char *msg, size_t size, size_t capacity)
{
    const char *end = memchr(msg, '\0', size);
    if (end == NULL || (rc >= 0 && end != msg) || (rc < 0 && size > 1 && end == msg))
        abort();
    for (size_t k = size; k < capacity; k++)
        if (msg[k] != 0x7f)
            abort();
}

static void check_sig(const uint8_t *sig, uint32_t count, uint32_t max)
{
    if (count > max)
        abort();
    for (uint32_t i = 0; i < count; i++)
        if (sig[i] > 3)
            abort();
}

static void check_pack(int argc, char **argv, size_t msg_size)
{
    static pack_args a; /* 130 KiB: not on the stack */
    char msg[320];
    memset(&a, 0, sizeof a);
    memset(msg, 0x7f, sizeof msg);
    int rc = pack_parse_line(&a, argc, argv, msg, msg_size);
    if (rc < -1 || rc > 1 || (rc == 1 && !has_help(argc, argv)))
        abort(); /* help only from a --help or -h (which may also be an option's value) */
    check_reason(rc, msg, msg_size, sizeof msg);
    if (rc == 0) {
        if (!from_argv(a.output, argc, argv, 0) || !from_argv(a.orchestration, argc, argv, 0) ||
            !from_argv(a.entry, argc, argv, 0))
            abort();
        check_sig(a.signature, a.signature_count, SIMPLER_CALLABLE_MAX_SIGNATURE);
        if (a.kernel_count > PACK_MAX_KERNELS)
            abort();
        for (uint32_t i = 0; i < a.kernel_count; i++) {
            const SimplerCallableChildDesc *c = &a.kernels[i];
            const char *name = a.kernel_name_ptrs[i];
            const char *nul = name != NULL ? memchr(name, '\0', SIMPLER_CALLABLE_KERNEL_NAME_BYTES) : NULL;
            size_t n = nul != NULL ? (size_t)(nul - name) : 0;
            if (c->func_id < 0 || c->func_id >= SIMPLER_CALLABLE_FUNC_ID_LIMIT ||
                (c->core_type != SIMPLER_CORE_TYPE_AIC && c->core_type != SIMPLER_CORE_TYPE_AIV) ||
                c->signature != a.kernel_sigs[i] || c->binary != NULL || a.kernel_paths[i] == NULL ||
                a.kernel_paths[i][0] == '\0' || n == 0 || n >= SIMPLER_CALLABLE_KERNEL_NAME_BYTES)
                abort();
            check_sig(c->signature, c->signature_count, SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE);
            /* The path is the front of the copied --kernel value. */
            if (a.kernel_paths[i] < a.kernel_specs[i] ||
                a.kernel_paths[i] > a.kernel_specs[i] + strlen(a.kernel_specs[i]))
                abort();
        }
    }
    pack_args_release(&a);
}

static void check_graph(int argc, char **argv, size_t msg_size)
{
    graph_args a;
    char msg[320], name[48];
    memset(&a, 0, sizeof a);
    memset(msg, 0x7f, sizeof msg);
    int rc = graph_parse_line(&a, argc, argv, msg, msg_size);
    if (rc < -1 || rc > 1 || (rc == 1 && !has_help(argc, argv)))
        abort(); /* help only from a --help or -h (which may also be an option's value) */
    check_reason(rc, msg, msg_size, sizeof msg);
    if (rc != 0)
        return;
    if (!from_argv(a.image, argc, argv, 0) || !from_argv(a.dot, argc, argv, 0) ||
        !from_argv(a.example, argc, argv, 1) || a.image[0] == '-')
        abort();
    for (size_t sz = 1; sz <= sizeof name; sz += 7) {
        memset(name, 0x7f, sizeof name);
        graph_example_name(&a, name, sz);
        const char *end = memchr(name, '\0', sz);
        if (end == NULL)
            abort();
        for (size_t k = sz; k < sizeof name; k++)
            if (name[k] != 0x7f)
                abort();
        /* --example as given, else no directory in the name. */
        if (a.example != NULL ? strncmp(name, a.example, sz - 1) != 0 : memchr(name, '/', (size_t)(end - name)) != NULL)
            abort();
    }
}

static void check_inspect(int argc, char **argv, size_t msg_size)
{
    inspect_args a;
    char msg[320];
    memset(msg, 0x7f, sizeof msg);
    int rc = inspect_parse_line(&a, argc, argv, msg, msg_size);
    if (rc < -1 || rc > 1 || (rc == 1) != has_help(argc, argv))
        abort();
    check_reason(rc, msg, msg_size, sizeof msg);
    if (rc == 0 && (!from_argv(a.path, argc, argv, 0) || a.path[0] == '\0' || (a.json != 0 && a.json != 1)))
        abort();
}

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
    /* The reason's buffer: full, or cut short (from the input's size). */
    size_t msg_size = size % 3u == 0 ? 1 + size % 40u : 320;
    check_pack(argc, argv, msg_size);
    check_graph(argc, argv, msg_size);
    check_inspect(argc, argv, msg_size);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    return 0;
}
