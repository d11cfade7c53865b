/*
 * bench_simdev — what the simulated device costs per operation: kernel
 * enqueue, an event record+wait pair, a stream round trip, and graph
 * replay for captured graphs of 1, 10, 100 and 1000 nodes, the host cost
 * of simdev_graph_launch alone at those sizes, and beside them
 * the machine's thread handoff cost and cross-CPU cache-line round trip
 * (handoff.h). Every figure
 * is the median of --runs runs (default 7). Kernels are empty, so the
 * figures are simdev's own overhead. Usage: bench_simdev [--json] [--runs N]
 */
#include <stdio.h>
#include <stdlib.h>

#include "handoff.h"
#include "simpler/simdev.h"
#include "timing.h"

/* Operations per run. Enqueue-only loops stay below the stream ring
 * (SIMDEV_STREAM_RING_OPS) so that no enqueue waits for the worker. */
#define ENQUEUE_LAUNCHES 1000
#define EVENT_PAIRS 500
#define REPLAY_NODE_BUDGET 2000 /* node executions per replay run */
#define HANDOFF_ROUND_TRIPS 2000
#define REPLAYS_MIN 20
#define HOST_LAUNCHES 200 /* timed simdev_graph_launch calls per run */

_Static_assert(HOST_LAUNCHES < SIMDEV_STREAM_RING_OPS, "launch loop must not fill the ring");

_Static_assert(ENQUEUE_LAUNCHES < SIMDEV_STREAM_RING_OPS, "enqueue loop must not fill the ring");
_Static_assert(EVENT_PAIRS < SIMDEV_STREAM_RING_OPS, "event loop must not fill the ring");

static void check(int rc, const char *what)
{
    if (rc != SIMDEV_SUCCESS) {
        fprintf(stderr, "bench_simdev: %s failed: %s (%d)\n", what, simdev_error_name(rc), rc);
        exit(1);
    }
}

static void launch_empty(simdev_stream_t s)
{
    check(simdev_launch_kernel(s, SIMDEV_ENGINE_AICORE, bench_empty_kernel, 1, NULL, 0), "simdev_launch_kernel");
}

/* One run: ns per launch for the enqueue loop alone (*enqueue) and for
 * enqueue plus the synchronize that drains it (*executed). */
static void run_enqueue(simdev_stream_t s, double *enqueue, double *executed)
{
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < ENQUEUE_LAUNCHES; i++)
        launch_empty(s);
    uint64_t t1 = bench_now_ns();
    check(simdev_stream_synchronize(s), "simdev_stream_synchronize");
    uint64_t t2 = bench_now_ns();
    *enqueue = (double)(t1 - t0) / ENQUEUE_LAUNCHES;
    *executed = (double)(t2 - t0) / ENQUEUE_LAUNCHES;
}

/* One run: ns per (record on a, wait on b) pair, enqueue only and until
 * both streams drained. */
static void run_event_pairs(simdev_stream_t a, simdev_stream_t b, simdev_event_t e, double *enqueue,
                            double *completed)
{
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < EVENT_PAIRS; i++) {
        check(simdev_event_record(e, a), "simdev_event_record");
        check(simdev_stream_wait_event(b, e), "simdev_stream_wait_event");
    }
    uint64_t t1 = bench_now_ns();
    check(simdev_stream_synchronize(a), "simdev_stream_synchronize");
    check(simdev_stream_synchronize(b), "simdev_stream_synchronize");
    uint64_t t2 = bench_now_ns();
    *enqueue = (double)(t1 - t0) / EVENT_PAIRS;
    *completed = (double)(t2 - t0) / EVENT_PAIRS;
}

static simdev_graph_t capture_chain(simdev_stream_t s, unsigned nodes)
{
    simdev_graph_t g = NULL;
    check(simdev_capture_begin(s, SIMDEV_CAPTURE_MODE_GLOBAL), "simdev_capture_begin");
    for (unsigned i = 0; i < nodes; i++)
        launch_empty(s);
    check(simdev_capture_end(s, &g), "simdev_capture_end");
    size_t count = 0;
    check(simdev_graph_node_count(g, &count), "simdev_graph_node_count");
    if (count != nodes) {
        fprintf(stderr, "bench_simdev: captured %zu nodes, expected %u\n", count, nodes);
        exit(1);
    }
    return g;
}

/* Captures a chain of `nodes` empty kernels on one stream and times
 * `replays` launches of it followed by one synchronize. */
static void bench_replay(struct bench_report *r, simdev_stream_t s, unsigned nodes, unsigned runs)
{
    unsigned replays = REPLAY_NODE_BUDGET / nodes;
    if (replays < REPLAYS_MIN)
        replays = REPLAYS_MIN;
    simdev_graph_t g = capture_chain(s, nodes);
    /* The first launch starts the graph's lane threads; keep it out. */
    check(simdev_graph_launch(g, s), "simdev_graph_launch");
    check(simdev_stream_synchronize(s), "simdev_stream_synchronize");
    double per_replay[BENCH_RUNS_MAX], per_node[BENCH_RUNS_MAX];
    for (unsigned run = 0; run < runs; run++) {
        uint64_t t0 = bench_now_ns();
        for (unsigned i = 0; i < replays; i++)
            check(simdev_graph_launch(g, s), "simdev_graph_launch");
        check(simdev_stream_synchronize(s), "simdev_stream_synchronize");
        per_replay[run] = (double)(bench_now_ns() - t0) / replays;
        per_node[run] = per_replay[run] / nodes;
    }
    /* The host cost: HOST_LAUNCHES calls timed each alone (the ring has
     * room for all, so no call waits for the device), drained untimed. */
    double host[BENCH_RUNS_MAX];
    for (unsigned run = 0; run < runs; run++) {
        uint64_t spent = 0;
        for (unsigned i = 0; i < HOST_LAUNCHES; i++) {
            uint64_t t0 = bench_now_ns();
            check(simdev_graph_launch(g, s), "simdev_graph_launch");
            spent += bench_now_ns() - t0;
        }
        host[run] = (double)spent / HOST_LAUNCHES;
        check(simdev_stream_synchronize(s), "simdev_stream_synchronize");
    }
    check(simdev_graph_destroy(g), "simdev_graph_destroy");
    char name[64];
    snprintf(name, sizeof(name), "graph replay, %u nodes", nodes);
    bench_report_add(r, name, "ns/replay", per_replay, runs);
    snprintf(name, sizeof(name), "graph replay, %u nodes, per node", nodes);
    bench_report_add(r, name, "ns/node", per_node, runs);
    snprintf(name, sizeof(name), "simdev_graph_launch host cost, %u nodes", nodes);
    bench_report_add(r, name, "ns/call", host, runs);
}

static void bench_streams(struct bench_report *r, simdev_stream_t a, simdev_stream_t b, unsigned runs)
{
    simdev_event_t e;
    check(simdev_event_create(&e), "simdev_event_create");
    double x[BENCH_RUNS_MAX], y[BENCH_RUNS_MAX];
    /* A warm-up run starts the engine threads and touches the rings. */
    run_enqueue(a, &x[0], &y[0]);
    for (unsigned run = 0; run < runs; run++)
        run_enqueue(a, &x[run], &y[run]);
    bench_report_add(r, "empty kernel enqueue", "ns/launch", x, runs);
    bench_report_add(r, "empty kernel enqueue+execute", "ns/launch", y, runs);
    run_event_pairs(a, b, e, &x[0], &y[0]);
    for (unsigned run = 0; run < runs; run++)
        run_event_pairs(a, b, e, &x[run], &y[run]);
    bench_report_add(r, "event record+wait enqueue", "ns/pair", x, runs);
    bench_report_add(r, "event record+wait completed", "ns/pair", y, runs);
    for (unsigned run = 0; run < runs; run++)
        if ((x[run] = bench_simdev_round_trip_ns(a, SIMDEV_ROUND_TRIPS)) < 0)
            check((int)-x[run], "launch + synchronize");
    bench_report_add(r, "round trip (launch+synchronize)", "ns/trip", x, runs);
    for (unsigned run = 0; run < runs; run++)
        x[run] = bench_handoff_ns(HANDOFF_ROUND_TRIPS);
    bench_report_add(r, "host: condvar handoff (no simdev)", "ns/handoff", x, runs);
    for (unsigned run = 0; run < runs; run++)
        x[run] = bench_line_round_trip_ns(LINE_ROUND_TRIPS);
    if (x[0] >= 0)
        bench_report_add(r, "host: CPU-to-CPU cache-line round trip", "ns/trip", x, runs);
    check(simdev_event_destroy(e), "simdev_event_destroy");
}

int main(int argc, char **argv)
{
    struct bench_options opt;
    int exit_code = 0;
    if (bench_options_parse(argc, argv, &opt, &exit_code))
        return exit_code;
    static struct bench_report report = {.title = "bench_simdev"};
    simdev_stream_t a, b;
    check(simdev_stream_create(&a), "simdev_stream_create");
    check(simdev_stream_create(&b), "simdev_stream_create");
    bench_streams(&report, a, b, opt.runs);
    static const unsigned sizes[] = {1, 10, 100, 1000};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        bench_replay(&report, a, sizes[i], opt.runs);
    check(simdev_stream_destroy(b), "simdev_stream_destroy");
    check(simdev_stream_destroy(a), "simdev_stream_destroy");
    check(simdev_finalize(), "simdev_finalize");
    bench_report_print(&report, opt.json);
    return 0;
}
