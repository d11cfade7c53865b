/* The built `simpler` binary, run through the shell as a user would,
 * its output captured in `cli_out` (shared by the CLI test files). */
#ifndef SIMPLER_TEST_CLI_CAPTURE_H
#define SIMPLER_TEST_CLI_CAPTURE_H

#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define CLI_PATH SIMPLER_BINARY_DIR "/simpler"
#define CLI_OUT_MAX 65536

static char cli_out[CLI_OUT_MAX];

/* Runs `simpler ARGS REDIRECT` (REDIRECT chooses which of the program's
 * streams reach the pipe, e.g. "2>&1") and reads the pipe into cli_out.
 * Returns the exit status, or -1 when the program did not exit
 * normally. */
static inline int cli_capture(const char *args, const char *redirect)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "'%s' %s %s", CLI_PATH, args, redirect);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(cli_out, 1, sizeof(cli_out) - 1, p);
    cli_out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The number after `"key":` in cli_out, or -1 when absent. */
static inline double cli_json_number(const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *at = strstr(cli_out, pat);
    return at != NULL ? strtod(at + strlen(pat), NULL) : -1.0;
}

#endif
