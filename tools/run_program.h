/*
 * run_program — `simpler run --mode program [EXAMPLE]`: loads an example's
 * callable image, runs it in program mode on fresh inputs, checks every
 * run against the example's golden and prints a summary (or JSON).
 *
 * The examples and their goldens are in examples/ (docs/examples.md);
 * their images are built at <build>/examples/<name>.callable and
 * installed in <prefix>/share/simpler/examples.
 */
#ifndef SIMPLER_TOOLS_RUN_PROGRAM_H
#define SIMPLER_TOOLS_RUN_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

/* One program-mode session's options. */
typedef struct run_program_options {
    const char *name;       /* NULL = "vector" */
    const char *image_path; /* NULL = the example's image (example_image_path) */
    const char *mode;       /* NULL or "program"; other modes are refused with status 2 */
    const char *trace_path; /* NULL = no trace */
    int json;
    int replays;            /* <= 0 means 1 */
    uint32_t cores;         /* CallConfig.aicore_count: 0 = every core */
} run_program_options;

/* Runs example `name` `replays` times, each with fresh inputs: run 0
 * uses the canonical inputs (vector: a=2, b=3), run r > 0 inputs drawn
 * from seed r. When `trace_path` is not NULL the last run is traced and
 * its Chrome/Perfetto JSON is written to exactly that file. `json`
 * nonzero prints one JSON object on stdout instead of the
 * human-readable summary. Returns 0 when every run succeeded and
 * matched the golden, 1 when one failed, 2 for a usage error (unknown
 * example or mode, unreadable image). */
int run_program(const run_program_options *options);

/* Finds example `name`'s image (tools/example_path.c): the first
 * readable one of <dir of this executable>/../share/simpler/examples/
 * <name>.callable (where `cmake --install` puts it; the relative part
 * follows the install layout the build was configured with) and
 * <dir of this executable>/examples/<name>.callable (the build tree).
 * Returns 0 with that path in `path` (`size` bytes); -1 when none is
 * readable, with `path` listing every path tried (", " between them,
 * truncated to `size`), for the error message. Shared with the kernel
 * session. */
int example_image_path(const char *name, char *path, size_t size);

/* run_program without the summary, for `simpler bench`: times_ms
 * (one entry per run, options->replays entries, not NULL) receives each
 * simpler_run's wall time and *task_count the tasks of one run. Returns
 * 0 when every run succeeded and matched the golden; 1 when one failed
 * (the summary is printed then); 2 for a usage error. */
int run_program_measure(const run_program_options *options, double *times_ms, uint64_t *task_count);

/* `simpler run --mode program`, which cmd_run hands the whole command
 * line: argv[0] is the command name, then [EXAMPLE] [--mode program]
 * [--image PATH] [--trace FILE] [--json] [--replays N] [--cores N].
 * Returns run_program's status, 0 for --help, or 2 for bad options. */
int cmd_run_program(int argc, char **argv);

#endif
