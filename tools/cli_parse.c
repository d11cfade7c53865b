/* The command-line parsers of `simpler pack`, `simpler graph` and
 * `simpler inspect` (cli_parse.h): argv in, arguments or a reason out. */
#include "cli_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

const char *const cli_direction_names[4] = {"scalar", "in", "out", "inout"};

int cli_signature_parse(const char *text, uint8_t *sig, uint32_t max, uint32_t *count, char *msg, size_t size)
{
    uint32_t n = 0;
    const char *p = text;
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int d = 0; d < 4; d++) {
            if (strlen(cli_direction_names[d]) == len && strncmp(p, cli_direction_names[d], len) == 0)
                found = d;
        }
        if (found < 0) {
            snprintf(msg, size, "entry '%.*s' is not one of in, out, inout, scalar", (int)len, p);
            return -1;
        }
        if (n == max) {
            snprintf(msg, size, "more than %u entries", max);
            return -1;
        }
        sig[n++] = (uint8_t)found;
        p += len;
        if (*p == ',')
            p++;
    }
    *count = n;
    return 0;
}

/* ---- pack ---- */

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '+' || c == '-';
}

/* A NAME field: 1..31 name characters. */
static int name_valid(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= SIMPLER_CALLABLE_KERNEL_NAME_BYTES)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!name_char(s[i]))
            return 0;
    }
    return 1;
}

/* The default name: PATH's file stem (no directory, no last extension),
 * other characters as '_', cut to 31. */
static void name_from_path(const char *path, char *name)
{
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot != NULL && dot != base ? (size_t)(dot - base) : strlen(base);
    if (n >= SIMPLER_CALLABLE_KERNEL_NAME_BYTES)
        n = SIMPLER_CALLABLE_KERNEL_NAME_BYTES - 1;
    memset(name, 0, SIMPLER_CALLABLE_KERNEL_NAME_BYTES);
    for (size_t i = 0; i < n; i++)
        name[i] = name_char(base[i]) ? base[i] : '_';
    if (n == 0)
        strcpy(name, "kernel");
}

/* Whether a field reads as a LIST (the empty field does). */
static int reads_as_list(const char *field)
{
    uint8_t sig[SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE];
    uint32_t count;
    char msg[64];
    return cli_signature_parse(field, sig, SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE, &count, msg, sizeof msg) == 0;
}

/* Splits the optional ":NAME" off the end of `path` into `name`; 1 when
 * it did. The last field is a NAME when it is a valid name and either
 * does not read as a LIST or follows a field that does (PATH:LIST:NAME,
 * so that `k.so::in` names its kernel `in`). */
static int name_split(char *path, char *name)
{
    char *colon = strrchr(path, ':');
    if (colon == NULL || !name_valid(colon + 1))
        return 0;
    if (reads_as_list(colon + 1)) {
        *colon = '\0';
        char *before = strrchr(path, ':');
        int list_before = before != NULL && reads_as_list(before + 1);
        *colon = ':';
        if (!list_before)
            return 0;
    }
    memset(name, 0, SIMPLER_CALLABLE_KERNEL_NAME_BYTES);
    strcpy(name, colon + 1);
    *colon = '\0';
    return 1;
}

/* "ID:AIC|AIV:PATH[:LIST][:NAME]" -> one child descriptor. On a bad SPEC writes
 * why into `msg` (`size` bytes) and returns -1. */
static int kernel_parse(pack_args *a, const char *spec, char *msg, size_t size)
{
    if (a->kernel_count == PACK_MAX_KERNELS) {
        snprintf(msg, size, "more than %d kernels", PACK_MAX_KERNELS);
        return -1;
    }
    uint32_t i = a->kernel_count;
    char *copy = malloc(strlen(spec) + 1);
    if (copy == NULL) {
        snprintf(msg, size, "out of memory");
        return -1;
    }
    strcpy(copy, spec);
    a->kernel_specs[i] = copy;
    a->kernel_count++;
    char *end = NULL;
    long id = strtol(copy, &end, 10);
    if (end == copy || *end != ':' || id < 0 || id >= SIMPLER_CALLABLE_FUNC_ID_LIMIT) {
        snprintf(msg, size, "ID is not a number in 0..%d before ':'", SIMPLER_CALLABLE_FUNC_ID_LIMIT - 1);
        return -1;
    }
    char *type = end + 1;
    uint32_t core;
    if (strncmp(type, "AIC:", 4) == 0) {
        core = SIMPLER_CORE_TYPE_AIC;
    } else if (strncmp(type, "AIV:", 4) == 0) {
        core = SIMPLER_CORE_TYPE_AIV;
    } else if (strcmp(type, "AIC") == 0 || strcmp(type, "AIV") == 0) {
        snprintf(msg, size, "no KERNEL.so path after the core type %s", type);
        return -1;
    } else {
        snprintf(msg, size, "core type '%.*s' is not AIC or AIV", (int)strcspn(type, ":"), type);
        return -1;
    }
    char *path = type + 4;
    int named = name_split(path, a->kernel_names[i]);
    uint32_t sig_count = 0;
    char *colon = strrchr(path, ':');
    char sig_msg[128];
    /* A last ":LIST" that parses is the signature; otherwise the colon
     * belongs to the path. */
    if (colon != NULL && cli_signature_parse(colon + 1, a->kernel_sigs[i], SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE,
                                             &sig_count, sig_msg, sizeof(sig_msg)) == 0)
        *colon = '\0';
    else
        sig_count = 0;
    if (*path == '\0') {
        snprintf(msg, size, "no KERNEL.so path");
        return -1;
    }
    if (!named)
        name_from_path(path, a->kernel_names[i]);
    a->kernel_name_ptrs[i] = a->kernel_names[i];
    SimplerCallableChildDesc c = {(int32_t)id, core, sig_count, 0, a->kernel_sigs[i], NULL, 0};
    a->kernels[i] = c;
    a->kernel_paths[i] = path;
    return 0;
}

enum { PACK_OPT_OUTPUT, PACK_OPT_ORCHESTRATION, PACK_OPT_ENTRY, PACK_OPT_SIG, PACK_OPT_KERNEL, PACK_OPTS };

static const options_spec pack_specs[PACK_OPTS] = {
    [PACK_OPT_OUTPUT] = {"--output", "-o", OPTIONS_TEXT, 0, NULL},
    [PACK_OPT_ORCHESTRATION] = {"--orchestration", NULL, OPTIONS_TEXT, 0, NULL},
    [PACK_OPT_ENTRY] = {"--entry", NULL, OPTIONS_TEXT, 0, NULL},
    [PACK_OPT_SIG] = {"--sig", NULL, OPTIONS_TEXT, 0, NULL},
    [PACK_OPT_KERNEL] = {"--kernel", NULL, OPTIONS_TEXT, 0, NULL},
};

/* One option with its value into *a; 0, or -1 for a bad LIST or SPEC
 * (why in `msg`, naming the option and the value). */
static int pack_option(pack_args *a, const options_item *it, char *msg, size_t size)
{
    char why[160] = "";
    int rc = 0;
    switch (it->index) {
    case PACK_OPT_OUTPUT:
        a->output = it->value;
        break;
    case PACK_OPT_ORCHESTRATION:
        a->orchestration = it->value;
        break;
    case PACK_OPT_ENTRY:
        a->entry = it->value;
        break;
    case PACK_OPT_SIG:
        rc = cli_signature_parse(it->value, a->signature, SIMPLER_CALLABLE_MAX_SIGNATURE, &a->signature_count, why,
                                 sizeof(why));
        break;
    default:
        rc = kernel_parse(a, it->value, why, sizeof(why));
        break;
    }
    if (rc != 0)
        snprintf(msg, size, "%s '%s': %s", it->arg, it->value, why);
    return rc;
}

int pack_parse_line(pack_args *a, int argc, char **argv, char *msg, size_t size)
{
    options_parser p;
    options_item it;
    int failed = 0; /* not msg[0]: a short msg may hold no character of the reason */
    msg[0] = '\0';
    options_init(&p, argc, argv, pack_specs, PACK_OPTS);
    while (options_next(&p, &it) != OPTIONS_END) {
        if (it.event == OPTIONS_HELP) {
            msg[0] = '\0';
            return 1;
        }
        if (failed)
            continue;
        if (it.event != OPTIONS_OPTION) {
            options_error(&it, pack_specs, msg, (unsigned)size);
            failed = 1;
        } else {
            failed = pack_option(a, &it, msg, size) != 0;
        }
    }
    if (!failed && (a->output == NULL || a->orchestration == NULL || a->entry == NULL)) {
        snprintf(msg, size, "missing %s", a->output == NULL ? "-o OUT" : a->orchestration == NULL ?
                 "--orchestration ORCH.so" : "--entry NAME");
        failed = 1;
    }
    return failed ? -1 : 0;
}

void pack_args_release(pack_args *a)
{
    for (uint32_t i = 0; i < a->kernel_count; i++) {
        free(a->kernel_specs[i]);
        a->kernel_specs[i] = NULL;
    }
}

/* ---- graph ---- */

enum { GRAPH_OPT_DOT, GRAPH_OPT_EXAMPLE, GRAPH_OPTS };

static const options_spec graph_specs[GRAPH_OPTS] = {
    [GRAPH_OPT_DOT] = {"--dot", NULL, OPTIONS_TEXT, 0, NULL},
    [GRAPH_OPT_EXAMPLE] = {"--example", NULL, OPTIONS_TEXT, 0, NULL},
};

int graph_parse_line(graph_args *a, int argc, char **argv, char *msg, size_t size)
{
    options_parser p;
    options_item it;
    msg[0] = '\0';
    options_init(&p, argc, argv, graph_specs, GRAPH_OPTS);
    while (options_next(&p, &it) != OPTIONS_END) {
        if (it.event == OPTIONS_HELP)
            return 1;
        if (it.event == OPTIONS_POSITIONAL && a->image == NULL) {
            a->image = it.arg;
        } else if (it.event == OPTIONS_OPTION && it.index == GRAPH_OPT_DOT) {
            a->dot = it.value;
        } else if (it.event == OPTIONS_OPTION && it.index == GRAPH_OPT_EXAMPLE) {
            a->example = it.value;
        } else {
            options_error(&it, graph_specs, msg, (unsigned)size);
            return -1;
        }
    }
    if (a->image != NULL && a->dot != NULL)
        return 0;
    snprintf(msg, size, "missing %s", a->image == NULL ? "IMAGE" : "--dot FILE");
    return -1;
}

void graph_example_name(const graph_args *a, char *name, size_t size)
{
    const char *base = a->example != NULL ? a->example : a->image;
    if (a->example == NULL) {
        const char *slash = strrchr(base, '/');
        base = slash != NULL ? slash + 1 : base;
    }
    snprintf(name, size, "%s", base);
    char *dot = strrchr(name, '.');
    if (a->example == NULL && dot != NULL)
        *dot = '\0';
}

/* ---- inspect ---- */

enum { INSPECT_OPT_JSON, INSPECT_OPTS };

static const options_spec inspect_specs[INSPECT_OPTS] = {
    [INSPECT_OPT_JSON] = {"--json", NULL, OPTIONS_FLAG, 0, NULL},
};

int inspect_parse_line(inspect_args *a, int argc, char **argv, char *msg, size_t size)
{
    const char *extra = NULL;
    options_parser p;
    options_item it;
    msg[0] = '\0';
    a->path = NULL;
    a->json = 0;
    options_init(&p, argc, argv, inspect_specs, INSPECT_OPTS);
    int unknown = 0; /* not msg[0]: a short msg may hold no character of the reason */
    while (options_next(&p, &it) != OPTIONS_END) {
        if (it.event == OPTIONS_HELP) {
            msg[0] = '\0';
            return 1; /* --help wins wherever it is */
        }
        if (it.event == OPTIONS_OPTION) {
            a->json = 1;
        } else if (it.event == OPTIONS_UNKNOWN) {
            /* "--jsn" read as the FILE made "cannot read '--jsn'"; a
             * file whose name starts with '-' is named "./-x". */
            if (!unknown)
                options_error(&it, inspect_specs, msg, (unsigned)size);
            unknown = 1;
        } else if (a->path == NULL) {
            a->path = it.arg;
        } else if (extra == NULL) {
            extra = it.arg;
        }
    }
    if (unknown)
        return -1;
    if (extra != NULL)
        snprintf(msg, size, "unexpected argument '%s' (FILE is already '%s')", extra, a->path);
    else if (a->path == NULL || *a->path == '\0')
        snprintf(msg, size, "missing FILE%s", a->path == NULL ? "" : " (an empty argument was given)");
    else
        return 0;
    return -1;
}
