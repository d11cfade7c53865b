#include "graph/graph_status.h"

#include <stdlib.h>

#include "common/log.h"

void graph_assert_fail(const char *cond, const char *file, int line)
{
    simpler_log(SIMPLER_LOG_ERROR, "graph invariant broke: %s (%s:%d)", cond, file, line);
    abort();
}
