/* A stand-alone `simpler run --mode program` for the example tests, until
 * the `simpler` program dispatches to tools/cmd_run_example.c itself: it
 * lives in the build root, so the default image lookup
 * (<exe dir>/examples/<name>.callable) is exercised as the CLI uses it. */
#include "run_example.h"

int main(int argc, char **argv)
{
    return cmd_run_example(argc, argv);
}
