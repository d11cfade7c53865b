/*
 * run_program — `simpler run --mode program [EXAMPLE]`: loads an example's
 * callable image, runs it in program mode on fresh inputs, checks every
 * run against the example's golden and prints the report both modes
 * share (run_common.h; the layout and the JSON schema are in
 * docs/cli.md).
 *
 * The examples and their goldens are in examples/ (docs/examples.md);
 * their images are built at <build>/examples/<name>.callable and
 * installed in <prefix>/share/simpler/examples.
 */
#ifndef SIMPLER_TOOLS_RUN_PROGRAM_H
#define SIMPLER_TOOLS_RUN_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "run_common.h"

/* Runs example o->name o->runs times (simpler_init, register, then one
 * simpler_run per run), each with fresh inputs: run 0 uses the canonical
 * inputs (vector: a=2, b=3), run r > 0 inputs drawn from seed r. The
 * image is o->image_path, else the example's. When o->trace_path is not
 * NULL the last run is traced and its Chrome/Perfetto JSON is written to
 * exactly that file. Prints the report (JSON with o->json). Returns 0
 * when every run succeeded and matched the golden, 1 when one failed,
 * 2 for an unknown example or an unreadable image. */
int run_program(const run_options *o);

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

/* run_program without the report, for `simpler bench`: times_us (one
 * entry per run, o->runs entries, not NULL) receives each simpler_run's
 * wall time, *task_count the tasks of one run and *out what went wrong.
 * Returns 0 when every run succeeded and matched the golden; 1 when one
 * failed; 2 for an unknown example or an unreadable image. */
int run_program_measure(const run_options *o, double *times_us, uint64_t *task_count, run_outcome *out);

#endif
