/* The `simpler` program's subcommands; each lives in its own file. */
#ifndef SIMPLER_TOOLS_COMMANDS_H
#define SIMPLER_TOOLS_COMMANDS_H

/* The largest --replays / --runs a command accepts: a bound on run time,
 * not on memory (bench keeps one double per run). */
#define CMD_REPLAYS_MAX 1000000
/* The largest --cores: far above any simdev core count; the runtime
 * refuses a count the device does not have. */
#define CMD_CORES_MAX 65536

int cmd_run(int argc, char **argv);     /* cmd_run_kernel.c */
int cmd_run_decode(int json);           /* cmd_run_decode.c: `simpler run decode` */
int cmd_bench(int argc, char **argv);   /* cmd_bench.c */
int cmd_pack(int argc, char **argv);    /* cmd_callable.c */
int cmd_inspect(int argc, char **argv); /* cmd_callable.c */

#endif
