/*
 * kernel_session — one example driven through kernel mode, the caller's
 * flow of docs/kernel-mode.md: CONFIGURE sized from the graph's
 * requirements, init, prepare, FREEZE, then launches (eager or captured
 * and replayed), each checked against the example's golden.
 * `simpler run` and `simpler bench` both drive a session.
 */
#ifndef SIMPLER_TOOLS_KERNEL_SESSION_H
#define SIMPLER_TOOLS_KERNEL_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "example_cases.h"
#include "example_driver.h"
#include "run_common.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"

typedef struct kernel_session {
    example_case c;
    example_buffers b;
    ChipStorageTaskArgs args;
    DeviceContextHandle ctx;
    simdev_stream_t stream;
    simdev_graph_t graph; /* the captured launch, after kernel_session_first */
    void *image;
    size_t image_size;
    char image_path[4096]; /* where the image was read */
    uint64_t captured_scalars[EXAMPLE_MAX_SCALARS]; /* the scalars every replay runs with */
    uint64_t task_count;
    double eager_us; /* the first eager launch, enqueue only */
    double first_us; /* the first eager launch, launch + synchronize */
    uint64_t launch_allocs, launch_device_allocs;
    uint64_t heap_before, temp_before;
    int mismatches; /* launches whose output missed the golden */
    run_outcome out; /* the first failing call, the first run that missed the golden */
} kernel_session;

/* Loads example `name`'s image (run_program.h, example_image_path:
 * installed, then build tree), creates a context and a stream, and configures,
 * inits (with `cores` AICores, 0 = all; traced when `trace` is nonzero),
 * prepares and freezes it. Returns 0; 2 for an unknown example or an
 * unreadable image; 1 when a call failed (printed on stderr). Call
 * kernel_session_close afterwards in every case. */
int kernel_session_open(kernel_session *s, const char *name, uint32_t cores, int trace);

/* One eager launch on seed 0 (run 0; timed, counting what it
 * allocates), then one launch captured on the session's stream into
 * s->graph. 0 or a status. Every failure is recorded in s->out. */
int kernel_session_first(kernel_session *s);

/* An eager launch on inputs of seed `seed` (its tensors and scalars),
 * synchronized and checked; *us is launch + synchronize. 0 or a status. */
int kernel_session_eager(kernel_session *s, uint64_t seed, double *us);

/* A replay of s->graph on inputs of seed `seed`, synchronized and
 * checked as run `seed`; *us is launch + synchronize. A replay runs the packet it
 * captured: only tensor contents change, the scalars stay those of the
 * captured launch (seed 0's), and the golden uses them. 0 or a status. */
int kernel_session_replay(kernel_session *s, uint64_t seed, double *us);

/* Releases everything the session holds; 0 or the first status. */
int kernel_session_close(kernel_session *s);

#endif
