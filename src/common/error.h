/*
 * error — the calling thread's refusal reason.
 *
 * Every public entry point that returns a status clears the reason on
 * entry (simpler_error_clear); a refusal records a one-line reason that
 * names the argument, field or index and the expected versus given value
 * (simpler_fail), and the caller reads it with
 * simpler_last_error_message(). The reason is per thread, so calls on
 * different contexts from different threads do not mix their reasons.
 *
 * Code that gets a failure from a callee and recovers from it (retries,
 * falls back) clears the reason itself, so that a call that succeeds
 * always leaves "".
 */
#ifndef SIMPLER_COMMON_ERROR_H
#define SIMPLER_COMMON_ERROR_H

/* The longest reason kept, terminator included; longer ones are cut. */
#define SIMPLER_ERROR_REASON_BYTES 256

/* Records the printf-formatted reason for the calling thread, logs it
 * at warning level as "<STATUS_NAME>: <reason>" and returns `status`,
 * so a refusal reads `return simpler_fail(status, "...", ...);`. */
int simpler_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Forgets the calling thread's reason (it reads "" afterwards). */
void simpler_error_clear(void);

#endif
