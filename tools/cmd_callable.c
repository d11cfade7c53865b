/* simpler pack / inspect: build a callable image from .so files, and print
 * one (docs/file-formats.md describes the bytes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"
#include "commands.h"
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

/* ---- pack ---- */

static void pack_usage(FILE *out)
{
    fputs("usage: simpler pack -o OUT --orchestration ORCH.so --entry NAME [--sig LIST]\n"
          "                    [--kernel ID:AIC|AIV:KERNEL.so[:LIST][:NAME]]...\n"
          "  LIST is a comma-separated signature: in, out, inout, scalar (tensors first).\n"
          "  NAME names the kernel (default: KERNEL.so's file stem); 1..31 of A-Za-z0-9_.+-.\n"
          "  Each kernel .so exports kernel_entry; ORCH.so exports NAME.\n",
          out);
}

/* 0, 1 for --help, 2 for a usage error, printed naming the option and
 * the value (cli_parse.h). */
static int pack_parse(pack_args *a, int argc, char **argv)
{
    char msg[320];
    int rc = pack_parse_line(a, argc, argv, msg, sizeof(msg));
    return rc < 0 ? cli_usage_error("pack", "%s", msg) : rc;
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
        pack_args_release(a);
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
            fprintf(out, "%s\"%s\"", sep, cli_direction_names[sig[i]]);
        else
            fprintf(out, "%s%s", sep, cli_direction_names[sig[i]]);
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

int cmd_inspect(int argc, char **argv)
{
    inspect_args a;
    char msg[320];
    int parsed = inspect_parse_line(&a, argc, argv, msg, sizeof(msg));
    if (parsed > 0) {
        puts("usage: simpler inspect FILE [--json]");
        return 0;
    }
    if (parsed < 0)
        return cli_usage_error("inspect", "%s", msg);
    const char *path = a.path;
    int json = a.json;
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
        simpler_callable_free(f.bytes);
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
