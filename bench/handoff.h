/*
 * handoff.h — the machine's floor for any threaded runtime: the cost of
 * handing control from one thread to another through a mutex and a
 * condition variable (half of a ping-pong round trip). Every executed
 * simdev op and every baseline-pool task pays at least one such handoff,
 * so the benchmarks print it beside their own figures. Beside it, the
 * same floor for simdev: a bare launch + synchronize.
 */
#ifndef SIMPLER_BENCH_HANDOFF_H
#define SIMPLER_BENCH_HANDOFF_H

#include <stdint.h>

#include "simpler/simdev.h"

/* Nanoseconds per handoff over `round_trips` ping-pong round trips, or a
 * negative value when the helper thread could not be started. */
double bench_handoff_ns(unsigned round_trips);

/* Nanoseconds per round trip of a cache line between the first two CPUs
 * this process may use: two threads pinned one per CPU take turns
 * storing a counter the other polls (with a pause), no syscall. Every
 * scheduler <-> core exchange pays this, so it says which "mode" the
 * machine is in (the build VM swings between about 100 and 400 ns).
 * Negative when fewer than two CPUs are allowed or pinning failed. */
double bench_line_round_trip_ns(unsigned round_trips);
/* Ping-pongs per sample the benchmarks use. */
#define LINE_ROUND_TRIPS 20000u

/* Adds bench_line_round_trip_ns as the row "machine: CPU-to-CPU
 * cache-line round trip" (ns), one sample per run; no row when it cannot
 * be measured. Every figure that crosses CPUs scales with it, and it
 * swings several fold between the machine's periods, so bench_graph and
 * bench_kernel print it first. Call it before pinning the caller. */
struct bench_report;
void bench_machine_row(struct bench_report *r, unsigned runs);

/* The empty kernel the simdev benchmarks launch. */
void bench_empty_kernel(uint32_t block_idx, uint32_t block_dim, const void *args);

/* Nanoseconds per simdev round trip on `stream`: an empty one-block
 * AICore kernel launched, then the stream synchronized, `trips` times;
 * the device's floor for anything that waits for its work. On a failed
 * launch or synchronize, minus its simdev status. */
double bench_simdev_round_trip_ns(simdev_stream_t stream, unsigned trips);
/* Round trips per sample the benchmarks use. */
#define SIMDEV_ROUND_TRIPS 500u

#endif
