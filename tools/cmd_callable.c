/* simpler pack / inspect: the callable module fills these in. */
#include <stdio.h>

#include "commands.h"

int cmd_pack(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("simpler pack: this build has no callable module\n", stderr);
    return 1;
}

int cmd_inspect(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("simpler inspect: this build has no callable module\n", stderr);
    return 1;
}
