/* simpler graph: an example's task graph as Graphviz DOT, built on the
 * host with simpler_graph_dot on the arguments `simpler run` gives that
 * example (docs/cli.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_cases.h"
#include "example_driver.h"
#include "commands.h"
#include "options.h"
#include "run_program.h"
#include "simpler/runtime_c_api.h"

#define GRAPH_PATH_MAX 4096

enum { GRAPH_OPT_DOT, GRAPH_OPT_EXAMPLE, GRAPH_OPTS };

static const options_spec graph_specs[GRAPH_OPTS] = {
    [GRAPH_OPT_DOT] = {"--dot", NULL, OPTIONS_TEXT, 0, NULL},
    [GRAPH_OPT_EXAMPLE] = {"--example", NULL, OPTIONS_TEXT, 0, NULL},
};

static void graph_usage(FILE *out)
{
    fputs("usage: simpler graph IMAGE --dot FILE [--example NAME]\n"
          "  IMAGE is an example's name (" EXAMPLE_NAMES ") or an image file;\n"
          "  the arguments are that example's (--example NAME, default: the file's stem).\n",
          out);
}

typedef struct graph_args {
    const char *image; /* example name or path */
    const char *dot;
    const char *example;
} graph_args;

/* 0, 1 for --help, -1 for a usage error. */
static int graph_parse(graph_args *a, int argc, char **argv)
{
    options_parser p;
    options_item it;
    options_init(&p, argc, argv, graph_specs, GRAPH_OPTS);
    while (options_next(&p, &it) != OPTIONS_END) {
        if (it.event == OPTIONS_HELP)
            return 1;
        if (it.event == OPTIONS_POSITIONAL && a->image == NULL)
            a->image = it.arg;
        else if (it.event == OPTIONS_OPTION && it.index == GRAPH_OPT_DOT)
            a->dot = it.value;
        else if (it.event == OPTIONS_OPTION && it.index == GRAPH_OPT_EXAMPLE)
            a->example = it.value;
        else
            return -1;
    }
    return a->image != NULL && a->dot != NULL ? 0 : -1;
}

/* The example whose arguments drive IMAGE: --example, else IMAGE itself
 * when it names one, else the file's stem. */
static void example_name(const graph_args *a, char *name, size_t size)
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

static int graph_write(const graph_args *a)
{
    char name[256], path[GRAPH_PATH_MAX];
    example_case c;
    example_name(a, name, sizeof name);
    if (example_case_default(name, &c) != 0) {
        fprintf(stderr, "simpler graph: no example '%s' to take arguments from (examples: %s)\n", name,
                EXAMPLE_NAMES);
        return 2;
    }
    /* IMAGE that names an example is that example's built image. */
    example_case named;
    const char *image_path = a->image;
    if (example_case_default(a->image, &named) == 0 && example_image_path(a->image, path, sizeof path) == 0)
        image_path = path;
    void *image = NULL;
    size_t size = 0;
    int read = example_image_read(image_path, &image, &size);
    if (read != 0) {
        char prefix[4200];
        snprintf(prefix, sizeof(prefix), "simpler graph: cannot read the image '%s'", image_path);
        cli_refusal(prefix, read, NULL);
        return 2;
    }
    example_buffers host;
    ChipStorageTaskArgs args;
    SimplerGraphRequirements req;
    int rc = example_buffers_create(&c, NULL, &host);
    rc = rc ? rc : example_args_make(&c, &host, &args);
    rc = rc ? rc : simpler_graph_dot(image, size, &args, a->dot);
    char reason[256];
    snprintf(reason, sizeof reason, "%s", simpler_last_error_message());
    if (rc == 0)
        rc = simpler_graph_requirements(image, size, &args, &req);
    example_buffers_destroy(NULL, &host);
    simpler_callable_free(image);
    if (rc != 0) {
        cli_refusal("simpler graph: failed", rc, reason);
        return 1;
    }
    printf("graph %s: %llu tasks, arguments of example %s -> %s\n", image_path, (unsigned long long)req.task_count,
           name, a->dot);
    return 0;
}

int cmd_graph(int argc, char **argv)
{
    graph_args a;
    memset(&a, 0, sizeof a);
    int parsed = graph_parse(&a, argc, argv);
    if (parsed != 0) {
        graph_usage(parsed > 0 ? stdout : stderr);
        return parsed > 0 ? 0 : 2;
    }
    return graph_write(&a);
}
