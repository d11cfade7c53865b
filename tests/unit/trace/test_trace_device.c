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
#include "platform/platform_counter.h"
#include "platform/platform_status.h"
#include "trace/trace_device.h"

#define RECORDS 4

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
        b->records[i] = (device_trace_record){1000 + i, 1500 + i, i, (int32_t)(10 + i), i, SIMPLER_CORE_TYPE_AIV};
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_device_export_reads_the_claimed_records),
        cmocka_unit_test(trace_device_export_count_stays_inside_the_buffer),
        cmocka_unit_test(trace_device_export_refuses_bad_arguments),
        cmocka_unit_test(trace_device_export_copy_failures_are_kept_and_leak_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
