/* simpler — command line entry: dispatches to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static void usage(FILE *out)
{
    fputs("usage: simpler <command> [options]\n"
          "  run      run the embedded example (default command)\n"
          "  bench    measure an example in program and kernel mode\n"
          "  pack     pack a callable image\n"
          "  inspect  print a callable image's header, signature and children\n"
          "  graph    write an example's task graph as Graphviz DOT\n"
          "Use 'simpler <command> --help' for a command's options.\n",
          out);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return cmd_run(argc, argv);
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0)
        return cmd_bench(argc - 1, argv + 1);
    if (strcmp(cmd, "pack") == 0)
        return cmd_pack(argc - 1, argv + 1);
    if (strcmp(cmd, "inspect") == 0)
        return cmd_inspect(argc - 1, argv + 1);
    if (strcmp(cmd, "graph") == 0)
        return cmd_graph(argc - 1, argv + 1);
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "simpler: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
