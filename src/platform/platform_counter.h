/*
 * platform_counter — a counting, fault-injecting wrapper around a
 * platform_ops table.
 *
 * Runtime tests sweep failure paths through it: wrap the table the runtime
 * will use, run an operation with "fail device call k" armed for k = 1, 2,
 * ... until it succeeds, and check every failure returns its documented
 * status, leaks nothing and leaves the object usable. The wrapper counts
 * every call per entry (failed ones included) and, when armed, makes the
 * n-th call from now on (overall, or of one entry) return a chosen code
 * without calling the inner table, so the injected failure has no effect
 * on the device, as a real failed call would not.
 *
 * Counters are atomic: the wrapped table may be used from several threads.
 * Arming is not synchronized with calls in flight; arm between operations.
 */
#ifndef SIMPLER_PLATFORM_COUNTER_H
#define SIMPLER_PLATFORM_COUNTER_H

#include <stdatomic.h>
#include <stdint.h>

#include "platform/platform_ops.h"

/* One value per platform_ops entry, in declaration order, after ANY. */
enum {
    PLATFORM_CALL_ANY = 0, /* every call, whatever its entry */
    PLATFORM_CALL_MEM_ALLOC,
    PLATFORM_CALL_MEM_FREE,
    PLATFORM_CALL_MEMCPY_SYNC,
    PLATFORM_CALL_MEMSET_SYNC,
    PLATFORM_CALL_MEMCPY_ASYNC,
    PLATFORM_CALL_MEMSET_ASYNC,
    PLATFORM_CALL_MEM_PEEK,
    PLATFORM_CALL_MEM_SIGNAL,
    PLATFORM_CALL_STREAM_CREATE,
    PLATFORM_CALL_STREAM_DESTROY,
    PLATFORM_CALL_STREAM_SYNCHRONIZE,
    PLATFORM_CALL_STREAMS_SYNCHRONIZE,
    PLATFORM_CALL_STREAM_QUERY,
    PLATFORM_CALL_STREAM_WAIT_EVENT,
    PLATFORM_CALL_EVENT_CREATE,
    PLATFORM_CALL_EVENT_DESTROY,
    PLATFORM_CALL_EVENT_RECORD,
    PLATFORM_CALL_EVENT_SYNCHRONIZE,
    PLATFORM_CALL_EVENT_QUERY,
    PLATFORM_CALL_LAUNCH_KERNEL,
    PLATFORM_CALL_LAUNCH_HOST_FUNC,
    PLATFORM_CALL_CAPTURE_GET_INFO,
    PLATFORM_CALL_SET_DEVICE,
    PLATFORM_CALL_GET_DEVICE,
    PLATFORM_CALL_RESET_DEVICE,
    PLATFORM_CALL_DEVICE_SYNCHRONIZE,
    PLATFORM_CALL_DEVICE_INFO,
    PLATFORM_CALL_COUNT
};

/* Caller-owned state of one wrapper; treat the fields as private. */
typedef struct platform_counter {
    platform_ops ops;                          /* the wrapping table; user = this */
    const platform_ops *inner;                 /* the wrapped table */
    _Atomic uint64_t calls[PLATFORM_CALL_COUNT]; /* [PLATFORM_CALL_ANY] = all calls */
    _Atomic uint64_t injected;                 /* calls failed by the arming */
    _Atomic uint64_t fail_at;                  /* count of fail_call that fails; 0 = disarmed */
    _Atomic int fail_call;
    _Atomic int fail_code;
} platform_counter;

/* Initializes *state (counters zero, disarmed) to wrap `inner` (both
 * non-NULL; every entry of `inner` the caller will reach must be non-NULL)
 * and returns the wrapping table, which lives inside *state: it is valid
 * while *state is, and `inner` must outlive it. */
const platform_ops *platform_ops_counting(const platform_ops *inner, platform_counter *state);

/* Calls made through the wrapper to `call` (a PLATFORM_CALL_* value; ANY
 * = all entries), failed and injected ones included. Out of range -> 0. */
uint64_t platform_counter_calls(const platform_counter *state, int call);

/* Calls that the arming failed so far. */
uint64_t platform_counter_injected(const platform_counter *state);

/* Arms one fault: the nth (1-based) call to `call` (ANY = any entry) made
 * from now on returns `code` (nonzero) without reaching the inner table.
 * Replaces a previous arming. nth == 0 or code == 0 disarms. */
void platform_counter_fail_nth(platform_counter *state, int call, uint64_t nth, int code);

/* Stable lower-case name of a PLATFORM_CALL_* value ("mem_alloc"), or
 * "unknown". */
const char *platform_call_name(int call);

#endif
