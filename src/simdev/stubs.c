/* Temporary stubs: every simdev entry point exists; replaced file by file. */
#include "simpler/simdev.h"

int simdev_config_default(simdev_config *config)
{
    (void)config;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_configure(const simdev_config *config)
{
    (void)config;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_get_config(simdev_config *out)
{
    (void)out;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_finalize(void)
{
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_set_device(int device_id)
{
    (void)device_id;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_get_device(int *device_id)
{
    (void)device_id;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_reset_device(int device_id)
{
    (void)device_id;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_malloc(void **dev_ptr, size_t size)
{
    (void)dev_ptr;
    (void)size;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_free(void *dev_ptr)
{
    (void)dev_ptr;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_memcpy(void *dst, const void *src, size_t size)
{
    (void)dst;
    (void)src;
    (void)size;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_memset(void *dev_ptr, int value, size_t size)
{
    (void)dev_ptr;
    (void)value;
    (void)size;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_memcpy_async(void *dst, const void *src, size_t size, simdev_stream_t stream)
{
    (void)dst;
    (void)src;
    (void)size;
    (void)stream;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_memset_async(void *dev_ptr, int value, size_t size, simdev_stream_t stream)
{
    (void)dev_ptr;
    (void)value;
    (void)size;
    (void)stream;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_get_mem_info(int device_id, simdev_mem_info *out)
{
    (void)device_id;
    (void)out;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_stream_create(simdev_stream_t *stream)
{
    (void)stream;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_stream_destroy(simdev_stream_t stream)
{
    (void)stream;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_stream_synchronize(simdev_stream_t stream)
{
    (void)stream;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_stream_query(simdev_stream_t stream)
{
    (void)stream;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_device_synchronize(void)
{
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_event_create(simdev_event_t *event)
{
    (void)event;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_event_destroy(simdev_event_t event)
{
    (void)event;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_event_record(simdev_event_t event, simdev_stream_t stream)
{
    (void)event;
    (void)stream;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_stream_wait_event(simdev_stream_t stream, simdev_event_t event)
{
    (void)stream;
    (void)event;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_event_synchronize(simdev_event_t event)
{
    (void)event;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_event_query(simdev_event_t event)
{
    (void)event;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_launch_kernel(simdev_stream_t stream, simdev_engine engine, simdev_kernel_fn fn, uint32_t block_dim, const void *args, size_t args_size)
{
    (void)stream;
    (void)engine;
    (void)fn;
    (void)block_dim;
    (void)args;
    (void)args_size;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_launch_host_func(simdev_stream_t stream, void (*fn)(void *), void *user_data)
{
    (void)stream;
    (void)fn;
    (void)user_data;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_kernel_report_fault(int code)
{
    (void)code;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_capture_begin(simdev_stream_t stream, simdev_capture_mode mode)
{
    (void)stream;
    (void)mode;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_capture_end(simdev_stream_t stream, simdev_graph_t *graph)
{
    (void)stream;
    (void)graph;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_capture_get_info(simdev_stream_t stream, simdev_capture_status *status, simdev_graph_t *graph)
{
    (void)stream;
    (void)status;
    (void)graph;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_capture_thread_exchange_mode(simdev_capture_mode *mode)
{
    (void)mode;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_graph_launch(simdev_graph_t graph, simdev_stream_t stream)
{
    (void)graph;
    (void)stream;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_graph_destroy(simdev_graph_t graph)
{
    (void)graph;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_graph_node_count(simdev_graph_t graph, size_t *count)
{
    (void)graph;
    (void)count;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_graph_debug_dot(simdev_graph_t graph, const char *path)
{
    (void)graph;
    (void)path;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_get_counters(simdev_counters *out)
{
    (void)out;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_get_thread_counters(simdev_counters *out)
{
    (void)out;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_get_device_counters(int device_id, simdev_counters *out)
{
    (void)device_id;
    (void)out;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_fault_inject(simdev_call_class cls, uint64_t nth, int code)
{
    (void)cls;
    (void)nth;
    (void)code;
    return SIMDEV_ERROR_INVALID_PARAM;
}

int simdev_fault_clear(void)
{
    return SIMDEV_ERROR_INVALID_PARAM;
}

const char * simdev_error_name(int code)
{
    (void)code;
    return "SIMDEV_ERROR_UNKNOWN";
}
