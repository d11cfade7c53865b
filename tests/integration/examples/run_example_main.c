/* The program-mode runner (tools/cmd_run_program.c) on its own, for the
 * example tests: its parser alone sees the command line (so --mode
 * kernel is refused, as cli_run_example.sh checks), and it lives in the
 * build root, so the default image lookup
 * (<exe dir>/examples/<name>.callable) is exercised as the CLI uses it. */
#include "run_program.h"

int main(int argc, char **argv)
{
    return cmd_run_program(argc, argv);
}
