/* trace_export writes Chrome/Perfetto JSON: a small JSON parser reads
 * the output back and checks its shape and values. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simpler/runtime_c_api.h>

#include "trace/trace_export.h"

/* ---- a minimal JSON reader, enough to validate the exporter ---- */
typedef struct cursor {
    const char *p;
    int events;   /* objects in traceEvents */
    int x_events; /* of which "ph":"X" */
} cursor;

static int parse_value(cursor *c, int depth, const char *key);

static void skip_ws(cursor *c)
{
    while (*c->p == ' ' || *c->p == '\n' || *c->p == '\t' || *c->p == '\r')
        c->p++;
}

static int parse_string(cursor *c, char *out, size_t cap)
{
    size_t n = 0;
    if (*c->p != '"')
        return -1;
    c->p++;
    while (*c->p != '"') {
        if (*c->p == '\0' || *c->p == '\\' || (unsigned char)*c->p < 0x20)
            return -1;
        if (n + 1 < cap)
            out[n++] = *c->p;
        c->p++;
    }
    c->p++;
    out[n] = '\0';
    return 0;
}

static int parse_number(cursor *c)
{
    const char *start = c->p;
    if (*c->p == '-')
        c->p++;
    while ((*c->p >= '0' && *c->p <= '9') || *c->p == '.')
        c->p++;
    return c->p == start ? -1 : 0;
}

static int parse_object(cursor *c, int depth)
{
    char key[64], ph[8] = "";
    c->p++;
    skip_ws(c);
    if (*c->p == '}')
        return c->p++, 0;
    for (;;) {
        skip_ws(c);
        if (parse_string(c, key, sizeof(key)) != 0)
            return -1;
        skip_ws(c);
        if (*c->p++ != ':')
            return -1;
        skip_ws(c);
        if (strcmp(key, "ph") == 0) {
            if (parse_string(c, ph, sizeof(ph)) != 0)
                return -1;
        } else if (parse_value(c, depth + 1, key) != 0) {
            return -1;
        }
        skip_ws(c);
        if (*c->p == '}')
            break;
        if (*c->p++ != ',')
            return -1;
    }
    c->p++;
    if (strcmp(ph, "X") == 0)
        c->x_events++;
    return 0;
}

static int parse_array(cursor *c, int depth, int count_events)
{
    c->p++;
    skip_ws(c);
    if (*c->p == ']')
        return c->p++, 0;
    for (;;) {
        skip_ws(c);
        if (parse_value(c, depth + 1, NULL) != 0)
            return -1;
        if (count_events)
            c->events++;
        skip_ws(c);
        if (*c->p == ']')
            break;
        if (*c->p++ != ',')
            return -1;
    }
    c->p++;
    return 0;
}

static int parse_value(cursor *c, int depth, const char *key)
{
    char s[128];
    if (depth > 8)
        return -1;
    skip_ws(c);
    if (*c->p == '{')
        return parse_object(c, depth);
    if (*c->p == '[')
        return parse_array(c, depth, key != NULL && strcmp(key, "traceEvents") == 0);
    if (*c->p == '"')
        return parse_string(c, s, sizeof(s));
    return parse_number(c);
}

/* Parses a whole document; 0 when it is one valid JSON value. */
static int parse_document(const char *text, cursor *c)
{
    memset(c, 0, sizeof(*c));
    c->p = text;
    if (parse_value(c, 0, NULL) != 0)
        return -1;
    skip_ws(c);
    return *c->p == '\0' ? 0 : -1;
}

static char *export_to_string(const trace_event *events, size_t count, int device)
{
    static char text[8192];
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(trace_export_write(f, events, count, device), 0);
    rewind(f);
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void trace_export_writes_one_complete_event_per_record(void **state)
{
    trace_event ev[3] = {
        {.core = 0, .core_type = 0, .task_id = 0, .func_id = 4, .start_ns = 5000, .end_ns = 7500},
        {.core = 2, .core_type = 1, .task_id = 1, .func_id = 9, .start_ns = 1000, .end_ns = 1001},
        {.core = 1, .core_type = 1, .task_id = 2, .func_id = 9, .start_ns = 9000, .end_ns = 8000},
    };
    cursor c;
    (void)state;
    const char *text = export_to_string(ev, 3, 1);
    assert_int_equal(parse_document(text, &c), 0);
    /* The process name, a name and an order per core, three tasks. */
    assert_int_equal(c.events, 1 + 2 * 3 + 3);
    assert_int_equal(c.x_events, 3);
    assert_non_null(strstr(text, "\"tid\":2,\"args\":{\"name\":\"AIV 2\"}"));
    /* ts counts from the earliest start, in microseconds with ns kept. */
    assert_non_null(strstr(text, "\"name\":\"func 4\",\"cat\":\"task\",\"ph\":\"X\",\"pid\":1,\"tid\":0,"
                                 "\"ts\":4.000,\"dur\":2.500"));
    assert_non_null(strstr(text, "\"tid\":2,\"ts\":0.000,\"dur\":0.001"));
    /* An end before the start is written as a zero duration. */
    assert_non_null(strstr(text, "\"tid\":1,\"ts\":8.000,\"dur\":0.000"));
    assert_non_null(strstr(text, "\"args\":{\"task\":2,\"func_id\":9,\"core_type\":1}"));
}

static const char *odd_name(void *user, int32_t func_id)
{
    (void)user;
    return func_id == 4 ? "a\"b\\c\x01" : "";
}

/* A kernel name is a JSON string whatever it holds (quote, backslash
 * and control characters escaped); an empty one is "func N". */
static void trace_export_escapes_kernel_names_and_falls_back_to_func(void **state)
{
    trace_event ev[2] = {
        {.core = 0, .task_id = 0, .func_id = 4, .start_ns = 10, .end_ns = 20},
        {.core = 0, .task_id = 1, .func_id = 5, .start_ns = 30, .end_ns = 40},
    };
    trace_run run = {.events = ev, .event_count = 2, .kernel_name = odd_name};
    static char text[8192];
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(trace_export_write_run(f, &run), 0);
    rewind(f);
    text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
    fclose(f);
    assert_non_null(strstr(text, "\"name\":\"a\\\"b\\\\c\\u0001\""));
    assert_non_null(strstr(text, "\"name\":\"func 5\""));
}

static void trace_export_of_no_records_is_an_empty_event_list(void **state)
{
    cursor c;
    (void)state;
    const char *text = export_to_string(NULL, 0, 0);
    assert_int_equal(parse_document(text, &c), 0);
    assert_int_equal(c.events, 1); /* the process name only */
    assert_non_null(strstr(text, "\"traceEvents\":["));
}

static void trace_export_refuses_null_arguments(void **state)
{
    trace_event ev = {0};
    char path[TRACE_PATH_MAX];
    (void)state;
    assert_int_equal(trace_export_write(NULL, &ev, 1, 0), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(trace_export_write(stderr, NULL, 1, 0), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(trace_export_file(NULL, &ev, 1, 0), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(trace_export_path(NULL, path), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
}

static void trace_export_path_appends_the_file_name_and_refuses_overlong(void **state)
{
    char path[TRACE_PATH_MAX];
    char prefix[TRACE_PATH_MAX];
    (void)state;
    assert_int_equal(trace_export_path("out/run1_", path), 0);
    assert_string_equal(path, "out/run1_trace.json");
    memset(prefix, 'p', sizeof(prefix) - 1);
    prefix[sizeof(prefix) - 1] = '\0';
    assert_int_equal(trace_export_path(prefix, path), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
}

static void trace_export_file_to_unwritable_path_is_internal_and_leaves_no_file(void **state)
{
    trace_event ev = {0};
    (void)state;
    assert_int_equal(trace_export_file("/nonexistent-dir/x/trace.json", &ev, 1, 0), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_export_writes_one_complete_event_per_record),
        cmocka_unit_test(trace_export_of_no_records_is_an_empty_event_list),
        cmocka_unit_test(trace_export_escapes_kernel_names_and_falls_back_to_func),
        cmocka_unit_test(trace_export_refuses_null_arguments),
        cmocka_unit_test(trace_export_path_appends_the_file_name_and_refuses_overlong),
        cmocka_unit_test(trace_export_file_to_unwritable_path_is_internal_and_leaves_no_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
