/* The machinery of a fault sweep: fail host allocation k, or device call
 * k (of one kind, or any) through the counting platform table, for
 * k = 1, 2, ... until the call under test runs with the fault unused.
 * A sweep arms fault k, makes the call, disarms (learning whether the
 * fault fired), and checks the refusal-reason rule without stopping, so
 * that one run lists every point that breaks it (sweep_done fails the
 * test then). */
#ifndef SIMPLER_TEST_FAULT_SWEEP_H
#define SIMPLER_TEST_FAULT_SWEEP_H

#include <dirent.h>
#include <string.h>

#include "support.h"

#include "common/host_alloc.h"
#include "platform/platform_counter.h"
#include "simpler/runtime_c_api.h"
#include "simpler/simdev.h"

/* Far more than any sweep needs; a sweep that reaches it is a bug. */
#define SWEEP_LIMIT 400u

typedef enum { FAULT_HOST, FAULT_DEVICE } fault_kind;

typedef struct sweep {
    fault_kind kind;
    int call; /* PLATFORM_CALL_* failed (FAULT_DEVICE; PLATFORM_CALL_ANY = any) */
    int code; /* device code injected (FAULT_DEVICE) */
    platform_counter counter;
    uint64_t k;
    uint64_t host_before, injected_before;
    int defects; /* reason-rule violations seen */
} sweep;

/* The three sweeps most entries get, as initializers of a sweep. */
#define SWEEP_HOST_ALLOCATIONS {.kind = FAULT_HOST}
#define SWEEP_DEVICE_CALLS {.kind = FAULT_DEVICE, .call = PLATFORM_CALL_ANY, .code = SIMDEV_ERROR_INVALID_PARAM}
#define SWEEP_DEVICE_ALLOCATIONS                                                                                     \
    {.kind = FAULT_DEVICE, .call = PLATFORM_CALL_MEM_ALLOC, .code = SIMDEV_ERROR_MEMORY_ALLOCATION}

/* A cmocka test `name` that runs `call` (which names the sweep `s`) over
 * a sweep of kind `kind`, one of the initializers above. */
#define SWEEP_TEST(name, kind, call)                                                                                 \
    static void name(void **state)                                                                                   \
    {                                                                                                                \
        sweep s = kind;                                                                                              \
        (void)state;                                                                                                 \
        call;                                                                                                        \
    }

/* Arms fault k of the sweep's kind. */
static inline void sweep_arm(sweep *s, uint64_t k)
{
    s->k = k;
    s->host_before = host_alloc_count();
    s->injected_before = platform_counter_injected(&s->counter);
    if (s->kind == FAULT_HOST)
        host_alloc_fail_nth(k);
    else
        platform_counter_fail_nth(&s->counter, s->call, k, s->code);
}

/* Disarms both kinds; 1 when the armed fault fired since sweep_arm. */
static inline int sweep_disarm(sweep *s)
{
    int fired = s->kind == FAULT_HOST ? host_alloc_count() - s->host_before >= s->k
                                      : platform_counter_injected(&s->counter) > s->injected_before;
    host_alloc_fail_nth(0);
    platform_counter_fail_nth(&s->counter, PLATFORM_CALL_ANY, 0, 0);
    return fired;
}

static inline const char *sweep_kind_name(const sweep *s)
{
    if (s->kind == FAULT_HOST)
        return "host allocation";
    return s->call == PLATFORM_CALL_ANY ? "device call" : "device allocation";
}

/* The refusal-reason rule (reason_check.h), counted instead of fatal;
 * read right after the call under test. */
static inline void sweep_reason_check(sweep *s, const char *entry, int rc)
{
    const char *why = simpler_last_error_message();
    if (rc == 0 && why[0] != '\0') {
        print_message("DEFECT %s, %s %llu failing: returned 0 but left the reason \"%s\"\n", entry,
                      sweep_kind_name(s), (unsigned long long)s->k, why);
        s->defects++;
    } else if (rc != 0 && why[0] == '\0') {
        print_message("DEFECT %s, %s %llu failing: status %d (%s) without a reason\n", entry, sweep_kind_name(s),
                      (unsigned long long)s->k, rc, simpler_strerror(rc));
        s->defects++;
    } else if (strchr(why, '\n') != NULL) {
        print_message("DEFECT %s: the reason \"%s\" is not one line\n", entry, why);
        s->defects++;
    }
}

/* The sweep of `entry` ended at fault k, which did not fire. */
static inline void sweep_done(sweep *s, const char *entry, uint64_t k)
{
    print_message("%s, %s sweep: %llu injection points\n", entry, sweep_kind_name(s), (unsigned long long)(k - 1));
    assert_int_equal(s->defects, 0);
}

/* What an injected fault may be reported as. */
static inline int sweep_failure_status(int rc)
{
    return rc == PTO_RUNTIME_ERR_OUT_OF_MEMORY || rc == PTO_RUNTIME_ERR_DEVICE;
}

/* Live device allocations on device 0. */
static inline uint64_t sweep_live_allocations(void)
{
    simdev_mem_info info;
    assert_int_equal(simdev_get_mem_info(0, &info), SIMDEV_SUCCESS);
    return info.live_allocations;
}

/* File descriptors this process holds open. */
static inline int sweep_open_fds(void)
{
    int n = 0;
    DIR *dir = opendir("/proc/self/fd");
    assert_non_null(dir);
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(dir);
    return n;
}

/* Files of the test build directory whose name holds `text` (the
 * temporary files a refused trace export must not leave). */
static inline int sweep_test_files_named(const char *text)
{
    int n = 0;
    DIR *dir = opendir(SIMPLER_BINARY_DIR "/tests");
    assert_non_null(dir);
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        n += strstr(e->d_name, text) != NULL;
    closedir(dir);
    return n;
}

#endif
