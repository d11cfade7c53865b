#include "common/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t level_once = PTHREAD_ONCE_INIT;
static int level_threshold = SIMPLER_LOG_ERROR;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

int simpler_log_level_parse(const char *name)
{
    if (name == NULL)
        return SIMPLER_LOG_ERROR;
    for (int i = 0; i < (int)(sizeof(level_names) / sizeof(level_names[0])); i++) {
        if (strcmp(name, level_names[i]) == 0)
            return i;
    }
    return SIMPLER_LOG_ERROR;
}

static void level_read(void)
{
    level_threshold = simpler_log_level_parse(getenv("SIMPLER_LOG"));
}

int simpler_log_level(void)
{
    pthread_once(&level_once, level_read);
    return level_threshold;
}

void simpler_log(int level, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    if (level < SIMPLER_LOG_ERROR || level > SIMPLER_LOG_DEBUG || level > simpler_log_level())
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    /* One fprintf per line, so lines of different threads do not mix. */
    fprintf(stderr, "simpler[%s]: %s\n", level_names[level], line);
}

void simpler_log_assert_fail(const char *module, const char *cond, const char *file, int line)
{
    simpler_log(SIMPLER_LOG_ERROR, "%s invariant broke: %s (%s:%d)", module, cond, file, line);
    abort();
}
