/* Public entry points the command line needed from internals
 * (runtime_c_api.h): the kernel-mode trace export and the host
 * allocation count. Thin wrappers until each moves to the module that
 * owns it. */
#include "common/host_alloc.h"
#include "context/kernel_trace.h"
#include "simpler/runtime_c_api.h"

SIMPLER_API int simpler_kernel_mode_trace_export(DeviceContextHandle ctx, const char *path)
{
    return kernel_trace_export(ctx, path);
}

SIMPLER_API uint64_t simpler_host_alloc_count(void)
{
    return host_alloc_count();
}
