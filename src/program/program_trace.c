/* The trace of a program-mode run: a device buffer the executor fills,
 * read back and exported as JSON after the run (trace/trace_device.h). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "common/host_alloc.h"
#include "context/context.h"
#include "device/trace_record.h"
#include "program/program_run.h"
#include "trace/trace_device.h"
#include "trace/trace_export.h"

int program_trace_reserve(simpler_context *ctx, uint32_t task_count)
{
    uint64_t bytes = device_trace_bytes(task_count);
    if (ctx->trace.bytes >= bytes)
        return 0;
    int rc = device_arena_release(&ctx->trace, ctx->ops);
    return rc ? rc : device_arena_commit(&ctx->trace, (size_t)bytes, ctx->ops);
}

int program_trace_export(simpler_context *ctx, const CallConfig *config)
{
    char path[TRACE_PATH_MAX];
    int rc = trace_export_path(config->output_prefix, path);
    return rc ? rc
              : trace_device_export(ctx->ops, ctx->trace.base, ctx->trace.bytes, path, ctx->device_id,
                                    &ctx->last_device_error);
}

int program_trace_path_check(const CallConfig *config)
{
    char path[TRACE_PATH_MAX], dir[TRACE_PATH_MAX];
    if (trace_export_path(config->output_prefix, path) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "CallConfig.output_prefix: the trace path '%strace.json' is longer than %d bytes",
                            config->output_prefix, TRACE_PATH_MAX - 1);
    /* The directory the file goes in must exist and take a new file. */
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        strcpy(dir, ".");
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "CallConfig.output_prefix: trace path \"%s\": cannot be created: directory '%s' %s",
                            path, dir, errno == ENOENT ? "does not exist" : "is not a writable directory");
    /* An existing file is replaced: it must be a writable regular file. */
    if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || access(path, W_OK) != 0))
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "CallConfig.output_prefix: trace path \"%s\": exists and is not a writable file", path);
    return 0;
}
