/* The `simpler` program's subcommands; each lives in its own file. */
#ifndef SIMPLER_TOOLS_COMMANDS_H
#define SIMPLER_TOOLS_COMMANDS_H

int cmd_run(int argc, char **argv);     /* cmd_run.c */
int cmd_pack(int argc, char **argv);    /* cmd_callable.c */
int cmd_inspect(int argc, char **argv); /* cmd_callable.c */

#endif
