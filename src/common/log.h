/*
 * log — a tiny logger to stderr for the runtime.
 *
 * The level comes from the environment variable SIMPLER_LOG (error, warn,
 * info or debug; anything else or unset means error), read once on the
 * first call. A line is printed when its level is at or above that
 * threshold. Every PTO_RUNTIME_ERR_INTERNAL return is preceded by an
 * error line saying which invariant broke, and a device error
 * (-1008) by a line naming the device call and its code. Thread-safe: one
 * line is one fprintf.
 */
#ifndef SIMPLER_COMMON_LOG_H
#define SIMPLER_COMMON_LOG_H

enum {
    SIMPLER_LOG_ERROR = 0,
    SIMPLER_LOG_WARN = 1,
    SIMPLER_LOG_INFO = 2,
    SIMPLER_LOG_DEBUG = 3
};

/* Prints "simpler[<level>]: <message>\n" when `level` passes the
 * threshold. `fmt` is a printf format. */
void simpler_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The threshold in force (a SIMPLER_LOG_* value). */
int simpler_log_level(void);

/* The SIMPLER_LOG_* value a SIMPLER_LOG string names; SIMPLER_LOG_ERROR
 * for NULL or an unknown name. Pure. */
int simpler_log_level_parse(const char *name);

/* Logs "<module> invariant broke: <cond> (<file>:<line>)" as an error
 * and aborts: the failure path of the always-on invariant assertions
 * (GRAPH_ASSERT). */
_Noreturn void simpler_log_assert_fail(const char *module, const char *cond, const char *file, int line);

#endif
