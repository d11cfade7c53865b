/* trace_device_export: the one reader of a device trace buffer, through a
 * platform table whose device memory is host memory. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simpler/orchestration.h>

#include "common/host_alloc.h"
#include "device/trace_record.h"
#include "graph/graph_image.h"
#include "platform/platform_counter.h"
#include "platform/platform_status.h"
#include "trace/trace_device.h"

#define RECORDS 5

static int host_memcpy(void *user, void *dst, const void *src, size_t size)
{
    (void)user;
    memcpy(dst, src, size);
    return 0;
}

static const platform_ops host_ops = {.memcpy_sync = host_memcpy};

typedef struct buffer {
    device_trace_header header;
    device_trace_record records[RECORDS];
} buffer;

static void buffer_fill(buffer *b, uint32_t claimed)
{
    memset(b, 0, sizeof(*b));
    b->header.magic = DEVICE_TRACE_MAGIC;
    b->header.version = DEVICE_TRACE_VERSION;
    b->header.capacity = RECORDS;
    b->header.record_count = claimed;
    for (uint32_t i = 0; i < RECORDS; i++)
        b->records[i] = (device_trace_record){1000 + i, 1500 + i, i, (int32_t)(10 + i), i, SIMPLER_CORE_TYPE_AIV,
                                                DEVICE_TRACE_KIND_TASK};
}

static char path[64];

static int setup(void **state)
{
    (void)state;
    snprintf(path, sizeof(path), "/tmp/simpler_trace_device_%d.json", (int)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove(path);
    return 0;
}

/* The number of complete events ("ph":"X") the file holds. */
static int events_in_file(void)
{
    char text[8192];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    int count = 0;
    for (const char *p = text; (p = strstr(p, "\"ph\":\"X\"")) != NULL; p++)
        count++;
    return count;
}

static void trace_device_export_reads_the_claimed_records(void **state)
{
    buffer b;
    int last = 0;
    (void)state;
    buffer_fill(&b, 3);
    assert_int_equal(trace_device_export(&host_ops, &b, sizeof(b), path, 0, &last), 0);
    assert_int_equal(events_in_file(), 3);
    assert_int_equal(last, 0);
}

/* record_count past the capacity, a capacity past what the buffer
 * holds, and a buffer never traced: the reader stays inside it. */
static void trace_device_export_count_stays_inside_the_buffer(void **state)
{
    buffer b;
    int last = 0;
    (void)state;
    buffer_fill(&b, 9);
    assert_int_equal(trace_device_export(&host_ops, &b, sizeof(b), path, 0, &last), 0);
    assert_int_equal(events_in_file(), RECORDS);
    b.header.capacity = 1000;
    assert_int_equal(trace_device_export(&host_ops, &b, sizeof(b.header) + 2 * sizeof(b.records[0]), path, 0, &last),
                     0);
    assert_int_equal(events_in_file(), 2);
    b.header.magic = 0;
    assert_int_equal(trace_device_export(&host_ops, &b, sizeof(b), path, 0, &last), 0);
    assert_int_equal(events_in_file(), 0);
}

static void trace_device_export_refuses_bad_arguments(void **state)
{
    buffer b;
    int last = 0;
    (void)state;
    buffer_fill(&b, 1);
    assert_int_equal(trace_device_export(NULL, &b, sizeof(b), path, 0, &last), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(trace_device_export(&host_ops, NULL, sizeof(b), path, 0, &last),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(trace_device_export(&host_ops, &b, sizeof(b), NULL, 0, &last), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(trace_device_export(&host_ops, &b, sizeof(b.header) - 1, path, 0, &last),
                     PTO_RUNTIME_ERR_INVALID_ARGUMENT);
}

/* Each copy failing in turn returns the mapped status, keeps the device
 * code, and frees what it allocated; then the export succeeds. */
static void trace_device_export_copy_failures_are_kept_and_leak_nothing(void **state)
{
    platform_counter counter;
    buffer b;
    (void)state;
    buffer_fill(&b, 2);
    const platform_ops *ops = platform_ops_counting(&host_ops, &counter);
    for (uint64_t k = 1; k <= 2; k++) {
        int last = 0;
        uint64_t allocs = host_alloc_count(), frees = host_free_count();
        platform_counter_fail_nth(&counter, PLATFORM_CALL_MEMCPY_SYNC, k, PLATFORM_ERROR_INVALID_PARAM);
        assert_int_equal(trace_device_export(ops, &b, sizeof(b), path, 0, &last), PTO_RUNTIME_ERR_DEVICE);
        assert_int_equal(last, PLATFORM_ERROR_INVALID_PARAM);
        assert_int_equal(host_alloc_count() - allocs, host_free_count() - frees);
    }
    platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, 0, 0);
    for (uint64_t n = 1;; n++) {
        int last = 0;
        host_alloc_fail_nth(n);
        int rc = trace_device_export(ops, &b, sizeof(b), path, 0, &last);
        host_alloc_fail_nth(0);
        if (rc == 0)
            break;
        assert_int_equal(rc, PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        assert_true(n < 8);
    }
    assert_int_equal(events_in_file(), 2);
}

/* ---- version 2: stamps, scheduler records, the graph, names, host ---- */

/* A 3-task graph image, edges 0->1, 0->2, 1->2, in 8-aligned storage. */
typedef struct image3 {
    uint64_t words[64];
    size_t bytes;
} image3;

static void image3_make(image3 *im)
{
    graph_image_header h;
    memset(im, 0, sizeof(*im));
    assert_int_equal(graph_image_layout(3, 0, 3, 0, 0, &h), 0);
    assert_true(h.image_bytes <= sizeof(im->words));
    h.magic = GRAPH_IMAGE_MAGIC;
    h.version = GRAPH_IMAGE_VERSION;
    h.header_bytes = sizeof(h);
    h.chain_heads[SIMPLER_CORE_TYPE_AIC] = 1; /* task 0 */
    h.chain_heads[SIMPLER_CORE_TYPE_AIV] = 2; /* tasks 1 and 2: task 2 has two predecessors */
    memcpy(im->words, &h, sizeof(h));
    graph_image_task *t = (graph_image_task *)((uint8_t *)im->words + h.task_offset);
    uint32_t *fanout = (uint32_t *)((uint8_t *)im->words + h.fanout_offset);
    t[0] = (graph_image_task){10, SIMPLER_CORE_TYPE_AIC, 0, 0, 0, 0, 0, 2};
    t[1] = (graph_image_task){11, SIMPLER_CORE_TYPE_AIV, 0, 0, 0, 1, 2, 1};
    t[2] = (graph_image_task){12, SIMPLER_CORE_TYPE_AIV, 0, 0, 1, 2, 3, 0};
    fanout[0] = 1, fanout[1] = 2, fanout[2] = 2;
    im->bytes = (size_t)h.image_bytes;
}

/* A version 2 buffer of that graph: the scheduler's two records, then
 * tasks 0 and 1 (task 2's record `with_last`). */
static void buffer_v2(buffer *b, const image3 *im, int with_last)
{
    memset(b, 0, sizeof(*b));
    b->header = (device_trace_header){.magic = DEVICE_TRACE_MAGIC, .version = DEVICE_TRACE_VERSION,
                                      .capacity = RECORDS, .record_count = with_last ? 5 : 4, .task_count = 3,
                                      .serial = 7, .generation = 3, .kernels_addr = 0x1000,
                                      .image_bytes = im->bytes, .runs = 1, .aic_count = 1, .aiv_count = 1};
    b->records[0] = (device_trace_record){100, 200, DEVICE_TRACE_SCHED_PREPARE, -1, 0, 0, DEVICE_TRACE_KIND_SCHED};
    b->records[1] = (device_trace_record){200, 900, DEVICE_TRACE_SCHED_DISPATCH, -1, 0, 0, DEVICE_TRACE_KIND_EMPTY};
    b->records[2] = (device_trace_record){300, 400, 0, 10, 0, SIMPLER_CORE_TYPE_AIC, DEVICE_TRACE_KIND_TASK};
    b->records[3] = (device_trace_record){500, 600, 1, 11, 1, SIMPLER_CORE_TYPE_AIV, DEVICE_TRACE_KIND_TASK};
}

/* Names for the stamped table only: func 10 is "qk", 11 has none. */
static const char *names_for(void *user, uint64_t kernels_addr, uint64_t generation, int32_t func_id)
{
    (void)user;
    if (kernels_addr != 0x1000 || generation != 3)
        return NULL;
    return func_id == 10 ? "qk" : NULL;
}

static char file_text[16384];

static const char *file_read(void)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(file_text, 1, sizeof(file_text) - 1, f);
    fclose(f);
    file_text[n] = '\0';
    return file_text;
}

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
        n++;
    return n;
}

static trace_device_source source_of(const buffer *b, const image3 *im, const trace_host_log *host)
{
    return (trace_device_source){b, sizeof(*b), im->words, sizeof(im->words), 0, names_for, NULL, host};
}

/* An unwritten scheduler record is left out; tasks get their kernel's
 * name or "func N"; the tracks are named from the core split; only the
 * edge whose two tasks have records becomes a flow, starting on the
 * predecessor's track at its start and finishing on the successor's. */
static void trace_device_export_source_names_tracks_and_draws_present_edges(void **state)
{
    buffer b;
    image3 im;
    int last = 0;
    (void)state;
    image3_make(&im);
    buffer_v2(&b, &im, 0);
    trace_device_source src = source_of(&b, &im, NULL);
    assert_int_equal(trace_device_export_source(&host_ops, &src, path, &last), 0);
    const char *text = file_read();
    assert_int_equal(count_of(text, "\"cat\":\"scheduler\""), 1);
    assert_non_null(strstr(text, "\"name\":\"prepare\",\"cat\":\"scheduler\",\"ph\":\"X\",\"pid\":0,\"tid\":1000"));
    assert_non_null(strstr(text, "\"name\":\"qk\",\"cat\":\"task\",\"ph\":\"X\",\"pid\":0,\"tid\":0,"));
    assert_non_null(strstr(text, "\"name\":\"func 11\",\"cat\":\"task\",\"ph\":\"X\",\"pid\":0,\"tid\":1,"));
    assert_non_null(strstr(text, "\"tid\":0,\"args\":{\"name\":\"AIC 0\"}"));
    assert_non_null(strstr(text, "\"tid\":1,\"args\":{\"name\":\"AIV 0\"}"));
    assert_non_null(strstr(text, "\"tid\":1000,\"args\":{\"name\":\"scheduler\"}"));
    assert_int_equal(count_of(text, "\"ph\":\"s\""), 1);
    assert_int_equal(count_of(text, "\"ph\":\"f\""), 1);
    assert_non_null(strstr(text, "\"ph\":\"s\",\"id\":1,\"pid\":0,\"tid\":0,\"ts\":0.200,\"args\":{\"from\":0,\"to\":1}"));
    assert_non_null(strstr(text, "\"ph\":\"f\",\"bp\":\"e\",\"id\":1,\"pid\":0,\"tid\":1,\"ts\":0.400"));
    assert_non_null(strstr(text, "\"dependencies\":\"from the executed graph\""));
    assert_null(strstr(text, "\"cat\":\"host\""));
    /* A table that is not the stamped one names nothing. */
    b.header.generation = 4;
    assert_int_equal(trace_device_export_source(&host_ops, &src, path, &last), 0);
    assert_non_null(strstr(file_read(), "\"name\":\"func 10\""));
}

/* The image is used only when the checker accepts it and it is the
 * stamped execution's: else no arrows, and the file says so. */
static void trace_device_export_source_draws_no_arrow_from_a_foreign_image(void **state)
{
    buffer b;
    image3 im;
    int last = 0;
    (void)state;
    image3_make(&im);
    buffer_v2(&b, &im, 1);
    b.records[4] = (device_trace_record){700, 800, 2, 12, 1, SIMPLER_CORE_TYPE_AIV, DEVICE_TRACE_KIND_TASK};
    trace_device_source src = source_of(&b, &im, NULL);
    assert_int_equal(trace_device_export_source(&host_ops, &src, path, &last), 0);
    assert_int_equal(count_of(file_read(), "\"ph\":\"s\""), 3);
    b.header.task_count = 4; /* another execution's image */
    assert_int_equal(trace_device_export_source(&host_ops, &src, path, &last), 0);
    assert_int_equal(count_of(file_read(), "\"ph\":\"s\""), 0);
    assert_non_null(strstr(file_text, "\"dependencies\":\"unavailable\""));
    b.header.task_count = 3;
    im.words[0] ^= 1; /* a broken magic */
    assert_int_equal(trace_device_export_source(&host_ops, &src, path, &last), 0);
    assert_int_equal(count_of(file_read(), "\"ph\":\"s\""), 0);
    im.words[0] ^= 1;
    b.header.image_bytes = sizeof(im.words) + 8; /* past the definition region */
    assert_int_equal(trace_device_export_source(&host_ops, &src, path, &last), 0);
    assert_int_equal(count_of(file_read(), "\"ph\":\"s\""), 0);
}

/* Host spans go with the execution they lead to: a closed log of its
 * serial on its first run, or program mode's log of any execution. */
static void trace_device_export_source_adds_host_spans_of_this_execution_only(void **state)
{
    buffer b;
    image3 im;
    trace_host_log log;
    int last = 0;
    (void)state;
    image3_make(&im);
    buffer_v2(&b, &im, 0);
    memset(&log, 0, sizeof(log));
    trace_host_add(&log, "build", 10, 20);
    trace_host_add(&log, "enqueue", 20, 30);
    trace_device_source src = source_of(&b, &im, &log);
    assert_int_equal(trace_device_export_source(&host_ops, &src, path, &last), 0);
    assert_int_equal(count_of(file_read(), "\"cat\":\"host\""), 0); /* not closed yet */
    trace_host_close(&log, 7, 0);
    assert_int_equal(trace_device_export_source(&host_ops, &src, path, &last), 0);
    assert_int_equal(count_of(file_read(), "\"cat\":\"host\""), 2);
    assert_non_null(strstr(file_text, "\"name\":\"build\",\"cat\":\"host\",\"ph\":\"X\",\"pid\":0,\"tid\":1001,\"ts\":0.000,\"dur\":0.010"));
    assert_non_null(strstr(file_text, "\"tid\":1001,\"args\":{\"name\":\"host\"}"));
    b.header.runs = 2; /* a second replay of the packet */
    assert_int_equal(trace_device_export_source(&host_ops, &src, path, &last), 0);
    assert_int_equal(count_of(file_read(), "\"cat\":\"host\""), 0);
    b.header.runs = 1;
    b.header.serial = 8; /* another launch's execution */
    assert_int_equal(trace_device_export_source(&host_ops, &src, path, &last), 0);
    assert_int_equal(count_of(file_read(), "\"cat\":\"host\""), 0);
    trace_host_close(&log, 0, 1);
    assert_int_equal(trace_device_export_source(&host_ops, &src, path, &last), 0);
    assert_int_equal(count_of(file_read(), "\"cat\":\"host\""), 2);
    /* The log is bounded: spans past its room are counted. */
    for (uint32_t i = 0; i < TRACE_HOST_SPAN_MAX + 3; i++)
        trace_host_add(&log, "build", 40 + i, 41 + i);
    assert_int_equal(log.count, TRACE_HOST_SPAN_MAX);
    assert_int_equal(log.dropped, 3);
}

/* Every copy and every allocation of the full reader failing in turn:
 * the documented status, the device code kept, nothing leaked. */
static void trace_device_export_source_failures_leak_nothing(void **state)
{
    platform_counter counter;
    buffer b;
    image3 im;
    (void)state;
    image3_make(&im);
    buffer_v2(&b, &im, 0);
    const platform_ops *ops = platform_ops_counting(&host_ops, &counter);
    trace_device_source src = source_of(&b, &im, NULL);
    for (uint64_t k = 1; k <= 3; k++) {
        int last = 0;
        uint64_t allocs = host_alloc_count(), frees = host_free_count();
        platform_counter_fail_nth(&counter, PLATFORM_CALL_MEMCPY_SYNC, k, PLATFORM_ERROR_INVALID_PARAM);
        assert_int_equal(trace_device_export_source(ops, &src, path, &last), PTO_RUNTIME_ERR_DEVICE);
        assert_int_equal(last, PLATFORM_ERROR_INVALID_PARAM);
        assert_int_equal(host_alloc_count() - allocs, host_free_count() - frees);
    }
    platform_counter_fail_nth(&counter, PLATFORM_CALL_ANY, 0, 0);
    uint64_t n = 1;
    for (;; n++) {
        int last = 0;
        uint64_t allocs = host_alloc_count(), frees = host_free_count();
        host_alloc_fail_nth(n);
        int rc = trace_device_export_source(ops, &src, path, &last);
        host_alloc_fail_nth(0);
        /* Every allocation that succeeded was freed (the failed one is
         * counted as attempted). */
        assert_int_equal(host_alloc_count() - allocs - (rc != 0), host_free_count() - frees);
        if (rc == 0)
            break;
        assert_int_equal(rc, PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        assert_true(n < 16);
    }
    assert_true(n > 5); /* records, events, image, scratch, edges, the task index */
    assert_int_equal(count_of(file_read(), "\"ph\":\"s\""), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_device_export_reads_the_claimed_records),
        cmocka_unit_test(trace_device_export_count_stays_inside_the_buffer),
        cmocka_unit_test(trace_device_export_refuses_bad_arguments),
        cmocka_unit_test(trace_device_export_copy_failures_are_kept_and_leak_nothing),
        cmocka_unit_test(trace_device_export_source_names_tracks_and_draws_present_edges),
        cmocka_unit_test(trace_device_export_source_draws_no_arrow_from_a_foreign_image),
        cmocka_unit_test(trace_device_export_source_adds_host_spans_of_this_execution_only),
        cmocka_unit_test(trace_device_export_source_failures_leak_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
