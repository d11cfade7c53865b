/*
 * cli_parse — the command-line parsers of `simpler pack`, `simpler graph`
 * and `simpler inspect`: argv in, the command's arguments (or a usage
 * error's one-line reason) out, nothing printed, nothing opened. Internal
 * to the `simpler` program; declared here so the commands and the fuzz
 * target tests/fuzz/fuzz_cli_options.c share them. Not public API.
 *
 * Every parser returns 0 for a line the command runs, 1 for help and -1
 * for a usage error, with its reason written into `msg` (`size` >= 1 bytes,
 * NUL-terminated, truncated to fit; "" otherwise).
 */
#ifndef SIMPLER_TOOLS_CLI_PARSE_H
#define SIMPLER_TOOLS_CLI_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "simpler/callable.h"

/* Signature entries by value: SIMPLER_ARG_SCALAR (0), then in, out, inout. */
extern const char *const cli_direction_names[4];

/* Parses "in,in,out,scalar" (the empty text is no entry) into at most
 * `max` direction bytes and *count. On a bad entry, or more than `max`,
 * writes why into `msg` and returns -1, *count untouched. */
int cli_signature_parse(const char *text, uint8_t *sig, uint32_t max, uint32_t *count, char *msg, size_t size);

/* ---- pack ---- */

#define PACK_MAX_KERNELS SIMPLER_CALLABLE_MAX_CHILDREN

typedef struct pack_args {
    const char *output; /* the values point into argv */
    const char *orchestration;
    const char *entry;
    uint8_t signature[SIMPLER_CALLABLE_MAX_SIGNATURE];
    uint32_t signature_count;
    uint32_t kernel_count;
    SimplerCallableChildDesc kernels[PACK_MAX_KERNELS]; /* binary NULL: pack reads kernel_paths[i] */
    uint8_t kernel_sigs[PACK_MAX_KERNELS][SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE];
    const char *kernel_paths[PACK_MAX_KERNELS];
    char kernel_names[PACK_MAX_KERNELS][SIMPLER_CALLABLE_KERNEL_NAME_BYTES];
    const char *kernel_name_ptrs[PACK_MAX_KERNELS];
    char *kernel_specs[PACK_MAX_KERNELS]; /* copies of each --kernel value; paths point inside */
} pack_args;

/* `simpler pack` (usage in cmd_callable.c): *a zeroed by the caller, and
 * released with pack_args_release whatever this returns. The first
 * mistake is the one reported; -o, --orchestration and --entry are all
 * required. Each --kernel ID:AIC|AIV:PATH[:LIST][:NAME] becomes one
 * child: a last field that is a valid NAME (1..31 of A-Za-z0-9_.+-) names
 * it when it is not a LIST or the field before it is one (PATH:LIST:NAME;
 * `k.so::in` is the kernel `in` without a signature), else the name is
 * PATH's file stem; then a last field that is a LIST is its signature,
 * else the colon belongs to PATH. */
int pack_parse_line(pack_args *a, int argc, char **argv, char *msg, size_t size);

/* Frees what pack_parse_line copied. */
void pack_args_release(pack_args *a);

/* ---- graph ---- */

typedef struct graph_args {
    const char *image; /* example name or path (argv) */
    const char *dot;
    const char *example;
} graph_args;

/* `simpler graph IMAGE --dot FILE [--example NAME]`: *a zeroed by the
 * caller. */
int graph_parse_line(graph_args *a, int argc, char **argv, char *msg, size_t size);

/* The example whose arguments drive the image, into `name` (`size` > 0
 * bytes, NUL-terminated, truncated to fit): --example as given, else
 * IMAGE's file name without its directory and last extension. */
void graph_example_name(const graph_args *a, char *name, size_t size);

/* ---- inspect ---- */

typedef struct inspect_args {
    const char *path; /* argv */
    int json;
} inspect_args;

/* `simpler inspect FILE [--json]`: any argument that is not --json or
 * help, even one starting with '-', is FILE; a second one, or none (or
 * an empty one), is a usage error. */
int inspect_parse_line(inspect_args *a, int argc, char **argv, char *msg, size_t size);

#endif
