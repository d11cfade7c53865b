/* The bench callable's timed kernel (func_id DAG_ORCH_FUNC_EMPTY): does
 * nothing, so a run measures the runtime's own cost per task. */
#include "simpler/orchestration.h"

void kernel_entry(const SimplerKernelArgs *args);

void kernel_entry(const SimplerKernelArgs *args)
{
    (void)args;
}
