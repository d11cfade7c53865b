/* simpler_run_times: the public face of program_run_times_get. */
#include "context/program_run.h"
#include "simpler/runtime_c_api.h"

SIMPLER_API int simpler_run_times(DeviceContextHandle ctx, SimplerRunTimes *out)
{
    program_run_times t;
    if (ctx == NULL || out == NULL || out->struct_size != sizeof(*out))
        return PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    int rc = program_run_times_get(ctx, &t);
    if (rc != 0)
        return rc;
    out->reserved = 0;
    out->host_build_ns = t.host_build_ns;
    out->upload_ns = t.upload_ns;
    out->launch_ns = t.launch_ns;
    out->wait_ns = t.wait_ns;
    out->finish_ns = t.finish_ns;
    out->device_prepare_ns = t.device_prepare_ns;
    out->device_graph_ns = t.device_graph_ns;
    return 0;
}
