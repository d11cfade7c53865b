/* simpler run: the simdev demo fills this in. */
#include <stdio.h>

#include "commands.h"

int cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("simpler run: nothing to run in this build\n", stderr);
    return 1;
}
