/* simpler run: kernel mode by default. One eager launch, then a
 * launch captured on the caller stream and replayed N times with fresh
 * inputs copied in place, every run checked against the golden
 * (kernel_session.h). `--mode program` runs the program-mode runner
 * (run_program.h) instead. Both print the one report of run_common.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "kernel_session.h"
#include "run_common.h"
#include "run_program.h"

static int run_kernel(const run_options *o)
{
    static kernel_session s;
    run_report rep;
    double us = 0;
    run_report_init(&rep, o, "kernel");
    rep.first_what = "eager launch + synchronize";
    rep.run_what = "replay + synchronize";
    rep.allocs_what = "the eager and the captured launch";
    int rc = kernel_session_open(&s, o->name, o->cores, o->trace_path != NULL);
    if (rc == 2) {
        kernel_session_close(&s);
        return 2;
    }
    rep.image = s.image_path;
    rc = rc ? rc : kernel_session_first(&s);
    for (int r = 1; rc == 0 && r <= o->runs; r++) {
        rc = kernel_session_replay(&s, (uint64_t)r, &us);
        if (rc == 0)
            run_report_time(&rep, us);
    }
    if (rc == 0 && o->trace_path != NULL) {
        rc = simpler_kernel_mode_trace_export(s.ctx, o->trace_path);
        if (rc != 0)
            run_outcome_fail(&s.out, "simpler_kernel_mode_trace_export", rc);
        else if (o->runs > 0)
            snprintf(rep.trace_holds, sizeof rep.trace_holds, "replay %d of %d of the captured launch", o->runs,
                     o->runs);
        else
            snprintf(rep.trace_holds, sizeof rep.trace_holds, "the eager launch");
    }
    rep.tasks = s.task_count;
    rep.first_us = s.first_us;
    rep.host_allocs = s.launch_allocs;
    rep.device_allocs = s.launch_device_allocs;
    rep.committed_bytes = committed_device_memory_ctx(s.ctx);
    rep.heap_before = s.heap_before;
    rep.temp_before = s.temp_before;
    rep.heap_after = get_arena_bank_gm_heap_base_ctx(s.ctx, 0);
    rep.temp_after = get_retained_temp_addr_ctx(s.ctx, 0);
    int closed = kernel_session_close(&s);
    rep.out = s.out;
    run_report_print(&rep, o->json);
    return run_report_ok(&rep) && closed == 0 ? 0 : 1;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: simpler run [EXAMPLE] [--mode kernel|program] [--runs N] [--cores N]\n"
            "                   [--trace FILE] [--json] [--image PATH]\n"
            "  EXAMPLE is one of: %s (default %s);\n"
            "  'simpler run decode [--json]' runs the decode loop (docs/cli.md).\n"
            "  --mode     kernel (default): one eager launch, then one captured launch\n"
            "             replayed N times; program: N simpler_run calls.\n"
            "  --runs N   timed runs, 1..%d (default %d); --replays is the same option.\n"
            "  --cores N  AICores to use, 1..the device's (default: all).\n"
            "  --trace    write the last run's Chrome/Perfetto trace JSON to FILE.\n"
            "  --json     print one JSON object (docs/cli.md) instead of the summary.\n"
            "  --image    program mode only: run this image instead of the example's.\n"
            "Every run gets fresh inputs and is checked against the example's golden.\n",
            EXAMPLE_NAMES, EXAMPLE_DEFAULT_NAME, CMD_RUNS_MAX, RUN_DEFAULT_RUNS);
}

int cmd_run(int argc, char **argv)
{
    /* `simpler run decode [--json]` is its own command (cmd_run_decode.c). */
    if (argc >= 2 && strcmp(argv[1], "decode") == 0)
        return cmd_run_decode(argc - 1, argv + 1);
    run_options o;
    int parsed = run_options_parse(RUN_COMMAND_RUN, argc, argv, &o);
    if (parsed == 1) {
        usage(stdout);
        return 0;
    }
    if (parsed != 0)
        return parsed;
    return o.mode == RUN_MODE_PROGRAM ? run_program(&o) : run_kernel(&o);
}
