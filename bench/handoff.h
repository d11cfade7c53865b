/*
 * handoff.h — the machine's floor for any threaded runtime: the cost of
 * handing control from one thread to another through a mutex and a
 * condition variable (half of a ping-pong round trip). Every executed
 * simdev op and every baseline-pool task pays at least one such handoff,
 * so the benchmarks print it beside their own figures.
 */
#ifndef SIMPLER_BENCH_HANDOFF_H
#define SIMPLER_BENCH_HANDOFF_H

/* Nanoseconds per handoff over `round_trips` ping-pong round trips, or a
 * negative value when the helper thread could not be started. */
double bench_handoff_ns(unsigned round_trips);

#endif
