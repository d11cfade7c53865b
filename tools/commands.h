/* The `simpler` program's subcommands; each lives in its own file. */
#ifndef SIMPLER_TOOLS_COMMANDS_H
#define SIMPLER_TOOLS_COMMANDS_H

#include <stdlib.h>

/* The largest --replays / --runs a command accepts: a bound on run time,
 * not on memory (bench keeps one double per run). */
#define CMD_REPLAYS_MAX 1000000
/* The largest --cores: far above any simdev core count; the runtime
 * refuses a count the device does not have. */
#define CMD_CORES_MAX 65536

int cmd_run(int argc, char **argv);     /* cmd_run.c */
int cmd_bench(int argc, char **argv);   /* cmd_bench.c */
int cmd_pack(int argc, char **argv);    /* cmd_callable.c */
int cmd_inspect(int argc, char **argv); /* cmd_callable.c */

/* `text` as a count in 1..max (strtol, the whole string), or -1.
 * Inline so that the program-mode runner (cmd_run_example.c), which is
 * also linked alone into a test driver, needs no other tool file. */
static inline long cmd_count_parse(const char *text, long max)
{
    char *end = NULL;
    long n = strtol(text, &end, 10);
    return end != text && *end == '\0' && n >= 1 && n <= max ? n : -1;
}

#endif
