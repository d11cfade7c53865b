/* The `simpler` program's subcommands; each lives in its own file. */
#ifndef SIMPLER_TOOLS_COMMANDS_H
#define SIMPLER_TOOLS_COMMANDS_H

/* The largest --runs (alias --replays) a command accepts: a bound on run
 * time, not on memory (bench keeps one double per run). */
#define CMD_RUNS_MAX 1000000
/* The largest --cores the parser takes; run and bench then refuse a
 * count above the device's AICores with a named usage error. */
#define CMD_CORES_MAX 65536

int cmd_run(int argc, char **argv);     /* cmd_run_kernel.c */
int cmd_run_decode(int argc, char **argv); /* cmd_run_decode.c: `simpler run decode`, argv[0] "decode" */
int cmd_bench(int argc, char **argv);   /* cmd_bench.c */
int cmd_pack(int argc, char **argv);    /* cmd_callable.c */
int cmd_inspect(int argc, char **argv); /* cmd_callable.c */
int cmd_graph(int argc, char **argv);   /* cmd_graph.c */

#endif
