/* simpler pack / inspect: build a callable image from .so files, and print
 * one (docs/file-formats.md describes the bytes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "run_common.h"
#include "simpler/callable.h"
#include "simpler/runtime_c_api.h"

/* ---- shared helpers ---- */

typedef struct file_bytes {
    void *bytes; /* 64-byte aligned, simpler_callable_free() */
    size_t size;
} file_bytes;

/* Reads `path` with simpler_callable_load_file; prints why it cannot. */
static int file_read(const char *command, const char *path, file_bytes *out)
{
    int rc = simpler_callable_load_file(path, &out->bytes, &out->size);
    if (rc != 0) {
        char reason[RUN_REASON_MAX], text[RUN_REASON_MAX + 128];
        cli_reason_take(reason, sizeof(reason));
        cli_status_format(text, sizeof(text), rc, reason);
        fprintf(stderr, "simpler %s: cannot read '%s': %s\n", command, path, text);
        return -1;
    }
    return 0;
}

static const char *const direction_names[] = {"scalar", "in", "out", "inout"};

/* Parses "in,in,out,scalar" into at most `max` direction bytes. On a
 * bad entry writes why into `msg` (`size` bytes) and returns -1. */
static int signature_parse(const char *text, uint8_t *sig, uint32_t max, uint32_t *count, char *msg, size_t size)
{
    uint32_t n = 0;
    const char *p = text;
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int d = 0; d < 4; d++) {
            if (strlen(direction_names[d]) == len && strncmp(p, direction_names[d], len) == 0)
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

#define PACK_MAX_KERNELS SIMPLER_CALLABLE_MAX_CHILDREN

typedef struct pack_args {
    const char *output;
    const char *orchestration;
    const char *entry;
    uint8_t signature[SIMPLER_CALLABLE_MAX_SIGNATURE];
    uint32_t signature_count;
    uint32_t kernel_count;
    SimplerCallableChildDesc kernels[PACK_MAX_KERNELS];
    uint8_t kernel_sigs[PACK_MAX_KERNELS][SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE];
    const char *kernel_paths[PACK_MAX_KERNELS];
    char kernel_names[PACK_MAX_KERNELS][SIMPLER_CALLABLE_KERNEL_NAME_BYTES];
    const char *kernel_name_ptrs[PACK_MAX_KERNELS];
    char *kernel_specs[PACK_MAX_KERNELS]; /* strdup'ed, paths point inside */
} pack_args;

static void pack_usage(FILE *out)
{
    fputs("usage: simpler pack -o OUT --orchestration ORCH.so --entry NAME [--sig LIST]\n"
          "                    [--kernel ID:AIC|AIV:KERNEL.so[:LIST][:NAME]]...\n"
          "  LIST is a comma-separated signature: in, out, inout, scalar (tensors first).\n"
          "  NAME names the kernel (default: KERNEL.so's file stem); 1..31 of A-Za-z0-9_.+-.\n"
          "  Each kernel .so exports kernel_entry; ORCH.so exports NAME.\n",
          out);
}

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

/* Splits the optional ":NAME" off the end of `path` (a last field that is
 * a valid name and not a LIST) into `name`; 1 when it did. */
static int name_split(char *path, char *name)
{
    char *colon = strrchr(path, ':');
    uint8_t sig[SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE];
    uint32_t count;
    char msg[64];
    if (colon == NULL || !name_valid(colon + 1) ||
        signature_parse(colon + 1, sig, SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE, &count, msg, sizeof msg) == 0)
        return 0;
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
    if (colon != NULL && signature_parse(colon + 1, a->kernel_sigs[i], SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE,
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
        rc = signature_parse(it->value, a->signature, SIMPLER_CALLABLE_MAX_SIGNATURE, &a->signature_count, why,
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

/* 0, 1 for --help, 2 for a usage error, printed naming the option and
 * the value (the first; then -o, --orchestration and --entry are all
 * required). */
static int pack_parse(pack_args *a, int argc, char **argv)
{
    options_parser p;
    options_item it;
    char msg[320] = "";
    options_init(&p, argc, argv, pack_specs, PACK_OPTS);
    while (options_next(&p, &it) != OPTIONS_END) {
        if (it.event == OPTIONS_HELP)
            return 1;
        if (msg[0] != '\0')
            continue;
        if (it.event != OPTIONS_OPTION)
            options_error(&it, pack_specs, msg, sizeof(msg));
        else
            pack_option(a, &it, msg, sizeof(msg));
    }
    if (msg[0] == '\0' && (a->output == NULL || a->orchestration == NULL || a->entry == NULL))
        snprintf(msg, sizeof(msg), "missing %s", a->output == NULL ? "-o OUT" : a->orchestration == NULL ?
                 "--orchestration ORCH.so" : "--entry NAME");
    if (msg[0] == '\0')
        return 0;
    return cli_usage_error("pack", "%s", msg);
}

static int file_write(const char *path, const uint8_t *bytes, size_t size)
{
    FILE *fp = fopen(path, "wb");
    if (fp == NULL)
        return -1;
    int ok = fwrite(bytes, 1, size, fp) == size;
    return (fclose(fp) == 0 && ok) ? 0 : -1;
}

/* Reads every binary, builds the image and writes it. */
static int pack_run(pack_args *a, file_bytes *files)
{
    if (file_read("pack", a->orchestration, &files[0]) != 0)
        return 1;
    for (uint32_t i = 0; i < a->kernel_count; i++) {
        if (file_read("pack", a->kernel_paths[i], &files[i + 1]) != 0)
            return 1;
        a->kernels[i].binary = files[i + 1].bytes;
        a->kernels[i].binary_size = files[i + 1].size;
    }
    SimplerCallableDesc d = {sizeof d, a->signature_count, a->signature, files[0].bytes, files[0].size, a->entry,
                             0, a->kernel_count, a->kernels, 0, a->kernel_count != 0 ? a->kernel_name_ptrs : NULL};
    size_t size = 0;
    int rc = simpler_callable_build(&d, NULL, 0, &size);
    uint8_t *image = rc == 0 ? aligned_alloc(SIMPLER_CALLABLE_ALIGN, (size + 63) / 64 * 64) : NULL;
    if (image != NULL)
        rc = simpler_callable_build(&d, image, size, &size);
    if (rc != 0 || image == NULL) {
        char reason[RUN_REASON_MAX], text[RUN_REASON_MAX + 128];
        cli_reason_take(reason, sizeof(reason));
        cli_status_format(text, sizeof(text), rc != 0 ? rc : PTO_RUNTIME_ERR_OUT_OF_MEMORY, reason);
        fprintf(stderr, "simpler pack: simpler_callable_build failed: %s\n", text);
        free(image);
        return 1;
    }
    /* What loading needs of the binaries, checked now, not at register. */
    rc = simpler_callable_verify(image, size);
    if (rc != 0) {
        cli_refusal("simpler pack: the image's binaries", rc, NULL);
        free(image);
        return 1;
    }
    rc = file_write(a->output, image, size);
    free(image);
    if (rc != 0) {
        fprintf(stderr, "simpler pack: cannot write '%s'\n", a->output);
        return 1;
    }
    printf("packed %s: %zu bytes, %u signature entries, %u kernels\n", a->output, size, a->signature_count,
           a->kernel_count);
    return 0;
}

int cmd_pack(int argc, char **argv)
{
    pack_args *a = calloc(1, sizeof *a);
    file_bytes *files = calloc(PACK_MAX_KERNELS + 1, sizeof *files);
    int rc = 1;
    if (a == NULL || files == NULL) {
        fputs("simpler pack: out of memory\n", stderr);
    } else {
        int parsed = pack_parse(a, argc, argv);
        if (parsed == 1)
            pack_usage(stdout);
        rc = parsed == 1 ? 0 : parsed != 0 ? parsed : pack_run(a, files);
        for (uint32_t i = 0; i <= a->kernel_count; i++)
            simpler_callable_free(files[i].bytes);
        for (uint32_t i = 0; i < a->kernel_count; i++)
            free(a->kernel_specs[i]);
    }
    free(files);
    free(a);
    return rc;
}

/* ---- inspect ---- */

static void signature_print(FILE *out, const uint8_t *sig, uint32_t count, int json)
{
    for (uint32_t i = 0; i < count; i++) {
        const char *sep = i == 0 ? "" : ",";
        if (json)
            fprintf(out, "%s\"%s\"", sep, direction_names[sig[i]]);
        else
            fprintf(out, "%s%s", sep, direction_names[sig[i]]);
    }
}

static const char *core_name(uint32_t core_type)
{
    return core_type == SIMPLER_CORE_TYPE_AIC ? "AIC" : "AIV";
}

/* An image simpler_callable_check accepted, read through the public
 * format structs (callable.h; docs/file-formats.md has the offsets). */
typedef struct image_view {
    const SimplerCallableHeader *header;
    size_t image_size;
    const uint8_t *signature;             /* at header_size */
    const SimplerCallableChild *children; /* at the next 64-byte boundary */
    const char *names;                    /* format version 2: right after the children; else NULL */
    uint32_t tensor_count, scalar_count;  /* counted from the signature */
} image_view;

static void image_view_read(const uint8_t *bytes, size_t size, image_view *v)
{
    const SimplerCallableHeader *h = (const SimplerCallableHeader *)(const void *)bytes;
    uint64_t table = ((uint64_t)h->header_size + h->signature_count + SIMPLER_CALLABLE_ALIGN - 1) /
                     SIMPLER_CALLABLE_ALIGN * SIMPLER_CALLABLE_ALIGN;
    v->header = h;
    v->image_size = size;
    v->signature = bytes + h->header_size;
    v->children = (const SimplerCallableChild *)(const void *)(bytes + table);
    v->names = h->format_version == SIMPLER_CALLABLE_FORMAT_VERSION_NAMES
                   ? (const char *)(bytes + table + (uint64_t)h->child_count * sizeof(SimplerCallableChild))
                   : NULL;
    v->scalar_count = 0;
    for (uint32_t i = 0; i < h->signature_count; i++)
        v->scalar_count += v->signature[i] == SIMPLER_ARG_SCALAR;
    v->tensor_count = h->signature_count - v->scalar_count;
}

/* Child i's name, or "" in an image without names. */
static const char *child_name(const image_view *v, uint32_t i)
{
    return v->names != NULL ? v->names + (size_t)i * SIMPLER_CALLABLE_KERNEL_NAME_BYTES : "";
}

static void inspect_text(const image_view *v)
{
    const SimplerCallableHeader *h = v->header;
    printf("callable image: %zu bytes, format version %u\n", v->image_size, h->format_version);
    printf("entry: %s\n", h->entry_name);
    printf("orchestration: offset %llu, %zu bytes\n", (unsigned long long)h->orchestration_offset,
           (size_t)h->orchestration_size);
    printf("signature (%u tensors, %u scalars%s): ", v->tensor_count, v->scalar_count,
           h->scalar_count == 0 ? ", scalar_count not recorded" : "");
    signature_print(stdout, v->signature, h->signature_count, 0);
    printf("\nchildren: %u\n", h->child_count);
    for (uint32_t i = 0; i < h->child_count; i++) {
        const SimplerCallableChild *c = &v->children[i];
        if (v->names != NULL)
            printf("  %s", child_name(v, i));
        printf("  func_id %d  %s  offset %llu  %llu bytes  signature ", c->func_id, core_name(c->core_type),
               (unsigned long long)c->binary_offset, (unsigned long long)c->binary_size);
        signature_print(stdout, c->signature, c->signature_count, 0);
        printf("\n");
    }
}

static void inspect_json(const image_view *v)
{
    const SimplerCallableHeader *h = v->header;
    printf("{\"image_size\":%zu,\"format_version\":%u,\"entry\":\"%s\",", v->image_size, h->format_version,
           h->entry_name);
    printf("\"orchestration\":{\"offset\":%llu,\"size\":%zu},", (unsigned long long)h->orchestration_offset,
           (size_t)h->orchestration_size);
    printf("\"scalar_count_recorded\":%u,\"tensor_count\":%u,\"scalar_count\":%u,\"signature\":[",
           h->scalar_count, v->tensor_count, v->scalar_count);
    signature_print(stdout, v->signature, h->signature_count, 1);
    printf("],\"children\":[");
    for (uint32_t i = 0; i < h->child_count; i++) {
        const SimplerCallableChild *c = &v->children[i];
        printf("%s{", i == 0 ? "" : ",");
        if (v->names != NULL)
            printf("\"name\":\"%s\",", child_name(v, i));
        printf("\"func_id\":%d,\"core_type\":\"%s\",\"offset\":%llu,\"size\":%llu,\"signature\":[",
               c->func_id, core_name(c->core_type), (unsigned long long)c->binary_offset,
               (unsigned long long)c->binary_size);
        signature_print(stdout, c->signature, c->signature_count, 1);
        printf("]}");
    }
    printf("]}\n");
}

enum { INSPECT_OPT_JSON, INSPECT_OPTS };

static const options_spec inspect_specs[INSPECT_OPTS] = {
    [INSPECT_OPT_JSON] = {"--json", NULL, OPTIONS_FLAG, 0, NULL},
};

int cmd_inspect(int argc, char **argv)
{
    const char *path = NULL, *extra = NULL;
    int json = 0;
    options_parser p;
    options_item it;
    options_init(&p, argc, argv, inspect_specs, INSPECT_OPTS);
    while (options_next(&p, &it) != OPTIONS_END) {
        if (it.event == OPTIONS_HELP) {
            puts("usage: simpler inspect FILE [--json]");
            return 0;
        }
        if (it.event == OPTIONS_OPTION)
            json = 1;
        else if (path == NULL) /* any other argument, even "-x", is the FILE */
            path = it.arg;
        else if (extra == NULL)
            extra = it.arg;
    }
    if (extra != NULL)
        return cli_usage_error("inspect", "unexpected argument '%s' (FILE is already '%s')", extra, path);
    if (path == NULL || *path == '\0')
        return cli_usage_error("inspect", "missing FILE%s", path == NULL ? "" : " (an empty argument was given)");
    file_bytes f;
    if (file_read("inspect", path, &f) != 0)
        return 1;
    int rc = simpler_callable_check(f.bytes, f.size);
    if (rc != 0) {
        char reason[RUN_REASON_MAX], text[RUN_REASON_MAX + 128];
        cli_reason_take(reason, sizeof(reason));
        cli_status_format(text, sizeof(text), rc, reason);
        fprintf(stderr, "simpler inspect: '%s' is not a valid callable image: %s\n", path, text);
        simpler_callable_free(f.bytes);
        return 1;
    }
    rc = simpler_callable_verify(f.bytes, f.size);
    if (rc != 0) {
        char prefix[RUN_REASON_MAX];
        snprintf(prefix, sizeof(prefix), "simpler inspect: '%s'", path);
        cli_refusal(prefix, rc, NULL);
        free(f.bytes);
        return 1;
    }
    image_view v;
    image_view_read(f.bytes, f.size, &v);
    if (json)
        inspect_json(&v);
    else
        inspect_text(&v);
    simpler_callable_free(f.bytes);
    return 0;
}
