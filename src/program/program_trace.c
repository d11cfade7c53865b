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
#include "program/program.h"
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

void program_trace_spans(simpler_context *ctx, uint64_t start, uint64_t built, uint64_t finished)
{
    const program_state *ps = program_state_of(ctx);
    trace_host_log *log = &ctx->trace_host;
    trace_host_reset(log);
    trace_host_add(log, "build", start, built);
    trace_host_add(log, "upload", built, ps->exec_marks[0]);
    trace_host_add(log, "launch", ps->exec_marks[0], ps->exec_marks[1]);
    trace_host_add(log, "wait", ps->exec_marks[1], ps->exec_marks[2]);
    trace_host_add(log, "copy back", ps->exec_marks[2], finished);
    trace_host_close(log, 0, 1);
}

typedef struct program_names {
    const simpler_context *ctx;
    int32_t id;
} program_names;

/* The run's callable, when the stamps name its kernel table as it is. */
static const char *kernel_name(void *user, uint64_t kernels_addr, uint64_t generation, int32_t func_id)
{
    const program_names *n = user;
    const device_kernel_table *table = program_state_of(n->ctx)->kernel_tables[n->id];
    const loaded_callable *lc = NULL;
    if (table == NULL || (uint64_t)(uintptr_t)table != kernels_addr || table->generation != generation ||
        residency_lookup(&n->ctx->residency, n->id, &lc, NULL) != 0)
        return NULL;
    const callable_kernel *k = callable_kernel_find(lc, func_id);
    return k != NULL ? k->name : NULL;
}

int program_trace_export(simpler_context *ctx, const CallConfig *config, const device_run_desc *desc, int32_t id)
{
    char path[TRACE_PATH_MAX];
    program_names names = {ctx, id};
    trace_device_source src = {
        .trace_base = ctx->trace.base,
        .trace_bytes = ctx->trace.bytes,
        .definition_base = (const void *)(uintptr_t)desc->definition_base,
        .definition_bytes = (size_t)desc->definition_bytes,
        .device_id = ctx->device_id,
        .kernel_name = kernel_name,
        .user = &names,
        .host = &ctx->trace_host,
    };
    int rc = trace_export_path(config->output_prefix, path);
    return rc ? rc : trace_device_export_source(ctx->ops, &src, path, &ctx->last_device_error);
}

int program_trace_path_check(const CallConfig *config)
{
    char path[TRACE_PATH_MAX], dir[TRACE_PATH_MAX];
    if (trace_export_path(config->output_prefix, path) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "CallConfig.output_prefix: the trace path '%strace.json' is longer than %d bytes",
                            config->output_prefix, TRACE_PATH_MAX - 1);
    /* An existing file is written (replaced, or in place): it must be a
     * writable regular file; its folder need not take new files
     * (common/file_out.h writes in place then). */
    struct stat st;
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode) || access(path, W_OK) != 0)
            return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                                "CallConfig.output_prefix: trace path \"%s\": exists and is not a writable file", path);
        return 0;
    }
    /* A new file: the directory it goes in must exist and take it. */
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        strcpy(dir, ".");
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "CallConfig.output_prefix: trace path \"%s\": cannot be created: directory '%s' %s",
                            path, dir, errno == ENOENT ? "does not exist" : "is not a writable directory");
    return 0;
}
