/* simpler graph: an example's task graph as Graphviz DOT, built on the
 * host with simpler_graph_dot on the arguments `simpler run` gives that
 * example (docs/cli.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_cases.h"
#include "example_driver.h"
#include "cli_parse.h"
#include "commands.h"
#include "run_program.h"
#include "simpler/runtime_c_api.h"

#define GRAPH_PATH_MAX 4096

static void graph_usage(FILE *out)
{
    fputs("usage: simpler graph IMAGE --dot FILE [--example NAME]\n"
          "  IMAGE is an example's name (" EXAMPLE_NAMES ") or an image file;\n"
          "  the arguments are that example's (--example NAME, default: the file's stem).\n",
          out);
}

static int graph_write(const graph_args *a)
{
    char name[256], path[GRAPH_PATH_MAX];
    example_case c;
    graph_example_name(a, name, sizeof name);
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
    char msg[320];
    int parsed = graph_parse_line(&a, argc, argv, msg, sizeof(msg));
    if (parsed != 0) {
        if (parsed < 0)
            fprintf(stderr, "simpler graph: %s\n", msg);
        graph_usage(parsed > 0 ? stdout : stderr);
        return parsed > 0 ? 0 : 2;
    }
    return graph_write(&a);
}
