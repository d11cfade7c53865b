/* simpler_kernel_mode_trace_export (runtime_c_api.h): its refusals, and
 * the file of a traced launch read back as JSON with one complete event
 * per task of the last execution. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsize_limit.h"
#include "kernel_fixture.h"
#include "text_file.h"
#include "../program/image_fixture.h"

#define TRACE_PATH SIMPLER_BINARY_DIR "/tests/kernel_trace_export.json"
#define TRACE_TEXT_MAX (1u << 20)

/* ---- a small JSON checker: the whole document one value, counting the
 * objects that hold "ph":"X" (Chrome complete events) ---- */

typedef struct json_scan {
    const char *p;
    int complete_events;
} json_scan;

static int scan_value(json_scan *s, int depth);

static void scan_space(json_scan *s)
{
    while (*s->p != '\0' && strchr(" \t\r\n", *s->p) != NULL)
        s->p++;
}

/* A string without escapes; *is_x set when it is the literal "task". */
static int scan_string(json_scan *s, int *is_x)
{
    const char *start = ++s->p;
    while (*s->p != '"' && *s->p != '\0' && *s->p != '\\' && (unsigned char)*s->p >= 0x20)
        s->p++;
    if (*s->p != '"')
        return -1;
    if (is_x != NULL)
        *is_x = s->p - start == 4 && strncmp(start, "task", 4) == 0;
    s->p++;
    return 0;
}

static int scan_members(json_scan *s, int depth, char close)
{
    int ph_key = 0, ph_x = 0, is_x = 0;
    s->p++;
    scan_space(s);
    while (*s->p != close) {
        if (close == '}') {
            const char *key = s->p + 1;
            if (*s->p != '"' || scan_string(s, NULL) != 0)
                return -1;
            ph_key = strncmp(key, "cat\"", 4) == 0;
            scan_space(s);
            if (*s->p++ != ':')
                return -1;
            scan_space(s);
        }
        if (ph_key && *s->p == '"') {
            if (scan_string(s, &is_x) != 0)
                return -1;
            ph_x |= is_x;
        } else if (scan_value(s, depth + 1) != 0) {
            return -1;
        }
        scan_space(s);
        if (*s->p == ',') {
            s->p++;
            scan_space(s);
            if (*s->p == close)
                return -1;
        } else if (*s->p != close) {
            return -1;
        }
    }
    s->p++;
    s->complete_events += ph_x;
    return 0;
}

static int scan_value(json_scan *s, int depth)
{
    if (depth > 16)
        return -1;
    scan_space(s);
    if (*s->p == '{')
        return scan_members(s, depth, '}');
    if (*s->p == '[')
        return scan_members(s, depth, ']');
    if (*s->p == '"')
        return scan_string(s, NULL);
    char *end = NULL;
    (void)strtod(s->p, &end);
    if (end == s->p)
        return -1;
    s->p = end;
    return 0;
}

/* The task events ("cat":"task") of the JSON file at `path`, or -1 when
 * it is not one JSON value. */
static int trace_file_complete_events(const char *path)
{
    static char text[TRACE_TEXT_MAX];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    assert_true(n < sizeof(text) - 1);
    text[n] = '\0';
    json_scan s = {text, 0};
    if (scan_value(&s, 0) != 0)
        return -1;
    scan_space(&s);
    return *s.p == '\0' ? s.complete_events : -1;
}

/* ---- the contracts ---- */

/* A kernel context whose trace buffer holds every task of `rounds_max`. */
static void open_traced(kfix *k, uint64_t rounds_max)
{
    SimplerKernelCtxControl c = kfix_plan(&image, rounds_max);
    c.trace_records = (uint32_t)kfix_task_count(&image, rounds_max);
    kfix_open(k, &image, &c);
}

/* open_traced, with device buffers allocated and inputs `v` uploaded. */
static void open_traced_with_inputs(kfix *k, kbufs *d, vadd_buffers *v, uint64_t rounds_max)
{
    open_traced(k, rounds_max);
    kbufs_alloc(d);
    kbufs_upload(d, v, 1.0f);
}

static void close_traced(kfix *k, kbufs *d)
{
    kbufs_free(d);
    kfix_close(k);
}

static void trace_export_refuses_null_with_invalid_argument(void **state)
{
    kfix k;
    (void)state;
    assert_int_equal(simpler_kernel_mode_trace_export(NULL, TRACE_PATH), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    open_traced(&k, 2);
    assert_int_equal(simpler_kernel_mode_trace_export(k.ctx, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    kfix_close(&k);
}

static void trace_export_refuses_a_context_not_in_kernel_mode_with_invalid_state(void **state)
{
    (void)state;
    DeviceContextHandle fresh = create_device_context();
    assert_non_null(fresh);
    assert_int_equal(simpler_kernel_mode_trace_export(fresh, TRACE_PATH), PTO_RUNTIME_ERR_INVALID_STATE);
    destroy_device_context(fresh);
    DeviceContextHandle program = create_device_context();
    assert_non_null(program);
    assert_int_equal(simpler_init(program, 0, NULL), 0);
    assert_int_equal(simpler_kernel_mode_trace_export(program, TRACE_PATH), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(finalize_device(program), 0);
    destroy_device_context(program);
}

static void trace_export_refuses_a_kernel_context_without_trace_buffer(void **state)
{
    kfix k;
    (void)state;
    unlink(TRACE_PATH);
    kfix_open_plan(&k, &image, 2);
    assert_int_equal(simpler_kernel_mode_trace_export(k.ctx, TRACE_PATH), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_int_equal(access(TRACE_PATH, F_OK), -1);
    kfix_close(&k);
}

static void trace_export_writes_one_complete_event_per_task_of_the_last_launch(void **state)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    (void)state;
    open_traced_with_inputs(&k, &d, &v, 4);
    kfix_assert_golden(&k, &d, &v, 4);
    unlink(TRACE_PATH);
    assert_int_equal(simpler_kernel_mode_trace_export(k.ctx, TRACE_PATH), 0);
    assert_int_equal(trace_file_complete_events(TRACE_PATH), (int)kfix_task_count(&image, 4));
    /* A smaller launch overwrites the records: only its tasks remain. */
    kbufs_upload(&d, &v, 2.0f);
    kfix_assert_golden(&k, &d, &v, 1);
    assert_int_equal(simpler_kernel_mode_trace_export(k.ctx, TRACE_PATH), 0);
    assert_int_equal(trace_file_complete_events(TRACE_PATH), (int)kfix_task_count(&image, 1));
    close_traced(&k, &d);
}

static void trace_export_to_an_uncreatable_file_fails_and_changes_nothing(void **state)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    (void)state;
    open_traced_with_inputs(&k, &d, &v, 2);
    kfix_assert_golden(&k, &d, &v, 2);
    assert_int_equal(simpler_kernel_mode_trace_export(k.ctx, "/nonexistent-dir/x/trace.json"),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    /* The context still launches, and the records are still there. */
    kfix_assert_golden(&k, &d, &v, 2);
    assert_int_equal(simpler_kernel_mode_trace_export(k.ctx, TRACE_PATH), 0);
    assert_int_equal(trace_file_complete_events(TRACE_PATH), (int)kfix_task_count(&image, 2));
    close_traced(&k, &d);
}

/* The file's text, for the checks the event counter does not make. */
static const char *trace_text(const char *path)
{
    static char text[TRACE_TEXT_MAX];
    const char *t = text_file_read(path, text, sizeof text);
    assert_non_null(t);
    return t;
}

/* Files named like the temporary ones of this suite's exports, left in
 * the test directory (other suites export there too, at the same time). */
static int partial_files(void)
{
    int n = 0;
    DIR *dir = opendir(SIMPLER_BINARY_DIR "/tests");
    assert_non_null(dir);
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        n += strncmp(e->d_name, "kernel_trace_export", strlen("kernel_trace_export")) == 0 &&
             strstr(e->d_name, ".json.partial.") != NULL;
    closedir(dir);
    return n;
}

/* runtime_c_api.h: "A failed export changes nothing and leaves no
 * partial file." An export whose write fails (here: the file size limit,
 * EFBIG) must leave a file the caller already had at `path` as it was;
 * today the file is opened with "w" (truncated) and then removed. */
static void trace_export_whose_write_fails_keeps_the_existing_file(void **state)
{
    static const char kept[] = "the caller's own file\n";
    static vadd_buffers v;
    kfix k;
    kbufs d;
    (void)state;
    open_traced_with_inputs(&k, &d, &v, 2);
    kfix_assert_golden(&k, &d, &v, 2);
    assert_int_equal(text_file_write(TRACE_PATH, kept), 0);

    fsize_limit l;
    assert_int_equal(fsize_limit_begin(&l, 64), 0); /* a trace file is several KiB: its write fails */
    int rc = simpler_kernel_mode_trace_export(k.ctx, TRACE_PATH);
    fsize_limit_end(&l);

    int exists = access(TRACE_PATH, F_OK) == 0;
    const char *text = exists ? trace_text(TRACE_PATH) : "";
    close_traced(&k, &d);
    assert_int_equal(rc, PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    if (!exists)
        fail_msg("the refused export removed the file that was at %s", TRACE_PATH);
    assert_string_equal(text, kept);
    assert_int_equal(partial_files(), 0);
}

/* How an export treats what is at its path: a regular file keeps its
 * mode, a symbolic link is written through (the link stays, its target
 * gets the JSON), and files a killed export left beside the path under
 * this process id do not stop it. */
static void trace_export_keeps_modes_links_and_survives_leftovers(void **state)
{
    static vadd_buffers v;
    static const char target[] = SIMPLER_BINARY_DIR "/tests/kernel_trace_export_target.json";
    static const char link_path[] = SIMPLER_BINARY_DIR "/tests/kernel_trace_export_link.json";
    char name[sizeof(TRACE_PATH) + 48];
    struct stat st;
    kfix k;
    kbufs d;
    (void)state;
    open_traced_with_inputs(&k, &d, &v, 2);
    kfix_assert_golden(&k, &d, &v, 2);

    assert_int_equal(text_file_write(TRACE_PATH, ""), 0);
    assert_int_equal(chmod(TRACE_PATH, 0640), 0);
    assert_int_equal(simpler_kernel_mode_trace_export(k.ctx, TRACE_PATH), 0);
    assert_int_equal(stat(TRACE_PATH, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    assert_non_null(strstr(trace_text(TRACE_PATH), "traceEvents"));

    remove(link_path);
    assert_int_equal(text_file_write(target, ""), 0);
    assert_int_equal(symlink(target, link_path), 0);
    assert_int_equal(simpler_kernel_mode_trace_export(k.ctx, link_path), 0);
    assert_int_equal(lstat(link_path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_non_null(strstr(trace_text(target), "traceEvents"));

    for (unsigned n = 0; n < 32; n++) {
        snprintf(name, sizeof name, "%s.partial.%ld.%u", TRACE_PATH, (long)getpid(), n);
        assert_int_equal(text_file_write(name, ""), 0);
    }
    int rc = simpler_kernel_mode_trace_export(k.ctx, TRACE_PATH);
    for (unsigned n = 0; n < 32; n++) {
        snprintf(name, sizeof name, "%s.partial.%ld.%u", TRACE_PATH, (long)getpid(), n);
        remove(name);
    }
    close_traced(&k, &d);
    remove(link_path);
    remove(target);
    assert_int_equal(rc, 0);
    assert_int_equal(partial_files(), 0);
}

/* An argument-slot launch traces too: its tasks, the scheduler's phases,
 * the dependencies, and the host spans of write_args and launch_slot. */
static void trace_export_of_a_slot_launch_holds_its_tasks_and_host_spans(void **state)
{
    static vadd_buffers v;
    SimplerKernelCtxControl c = kfix_plan(&image, 4);
    ChipStorageTaskArgs args;
    kfix k;
    kbufs d;
    (void)state;
    c.trace_records = (uint32_t)kfix_task_count(&image, 4);
    c.arg_slot_count = 1;
    kfix_open(&k, &image, &c);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 1.0f);
    vadd_args_make(&args, d.a, d.b, d.f, SIMPLER_ADDRESS_SPACE_DEVICE, 3, 0);
    assert_int_equal(simpler_kernel_mode_write_args(k.ctx, 0, KFIX_ID, &args, k.stream), 0);
    assert_int_equal(simpler_kernel_mode_launch_slot(k.ctx, 0, k.stream), 0);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&d, &v, 3), 0);
    unlink(TRACE_PATH);
    assert_int_equal(simpler_kernel_mode_trace_export(k.ctx, TRACE_PATH), 0);
    assert_int_equal(trace_file_complete_events(TRACE_PATH), (int)kfix_task_count(&image, 3));
    const char *text = trace_text(TRACE_PATH);
    assert_non_null(strstr(text, "\"name\":\"build\",\"cat\":\"host\""));
    assert_non_null(strstr(text, "\"name\":\"write args\",\"cat\":\"host\""));
    assert_non_null(strstr(text, "\"name\":\"enqueue\",\"cat\":\"host\""));
    assert_non_null(strstr(text, "\"name\":\"dispatch\",\"cat\":\"scheduler\""));
    assert_non_null(strstr(text, "\"dependencies\":\"from the executed graph\""));
    assert_int_equal(text_count(text, "\"ph\":\"s\""), text_count(text, "\"ph\":\"f\""));
    assert_true(text_count(text, "\"ph\":\"s\"") > 0);
    close_traced(&k, &d);
}

/* A captured launch: its first replay carries the launch's host spans
 * (they built the packet it runs), a second replay of it none, and the
 * file says which run of the packet it holds. */
static void trace_export_of_a_second_replay_carries_no_host_spans(void **state)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    (void)state;
    open_traced_with_inputs(&k, &d, &v, 2);
    simdev_graph_t captured = kfix_capture(&k, &d, 2);
    assert_int_equal(simdev_graph_launch(captured, k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_trace_export(k.ctx, TRACE_PATH), 0);
    const char *text = trace_text(TRACE_PATH);
    assert_int_equal(text_count(text, "\"cat\":\"host\""), 2);
    assert_non_null(strstr(text, "\"runs\":1,"));
    assert_int_equal(simdev_graph_launch(captured, k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(kbufs_check(&d, &v, 2), 0);
    assert_int_equal(simpler_kernel_mode_trace_export(k.ctx, TRACE_PATH), 0);
    text = trace_text(TRACE_PATH);
    assert_int_equal(text_count(text, "\"cat\":\"host\""), 0);
    assert_non_null(strstr(text, "\"runs\":2,"));
    assert_int_equal(trace_file_complete_events(TRACE_PATH), (int)kfix_task_count(&image, 2));
    assert_int_equal(simdev_graph_destroy(captured), SIMDEV_SUCCESS);
    close_traced(&k, &d);
}

/* Tasks are named from the callable the execution ran; once the slot
 * holds another generation, the names are no longer known: "func N". */
static void trace_export_names_kernels_of_the_resident_generation_only(void **state)
{
    static vadd_buffers v;
    kfix k;
    kbufs d;
    (void)state;
    open_traced_with_inputs(&k, &d, &v, 2);
    kfix_assert_golden(&k, &d, &v, 2);
    assert_int_equal(simpler_kernel_mode_trace_export(k.ctx, TRACE_PATH), 0);
    const char *text = trace_text(TRACE_PATH);
    assert_non_null(strstr(text, "\"name\":\"vadd_kernel\",\"cat\":\"task\""));
    assert_null(strstr(text, "\"name\":\"func "));
    assert_int_equal(simpler_kernel_mode_prepare_callable(k.ctx, KFIX_ID, image.bytes, image.size, k.stream), 0);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(simpler_kernel_mode_trace_export(k.ctx, TRACE_PATH), 0);
    text = trace_text(TRACE_PATH);
    assert_null(strstr(text, "\"name\":\"vadd_kernel\""));
    assert_non_null(strstr(text, "\"name\":\"func "));
    close_traced(&k, &d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_export_refuses_null_with_invalid_argument),
        cmocka_unit_test(trace_export_refuses_a_context_not_in_kernel_mode_with_invalid_state),
        cmocka_unit_test(trace_export_refuses_a_kernel_context_without_trace_buffer),
        cmocka_unit_test(trace_export_writes_one_complete_event_per_task_of_the_last_launch),
        cmocka_unit_test(trace_export_to_an_uncreatable_file_fails_and_changes_nothing),
        cmocka_unit_test(trace_export_whose_write_fails_keeps_the_existing_file),
        cmocka_unit_test(trace_export_keeps_modes_links_and_survives_leftovers),
        cmocka_unit_test(trace_export_of_a_slot_launch_holds_its_tasks_and_host_spans),
        cmocka_unit_test(trace_export_of_a_second_replay_carries_no_host_spans),
        cmocka_unit_test(trace_export_names_kernels_of_the_resident_generation_only),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
