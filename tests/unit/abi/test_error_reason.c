/* simpler_last_error_message: a per-thread reason with every refusal,
 * cleared by the next call, logged at warning level. */
#define _POSIX_C_SOURCE 200809L /* strdup, mkstemp, fdopen, setenv */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#include "common/error.h"
#include "simpler/runtime_c_api.h"

static SimplerKernelCtxControl freeze_block(void)
{
    SimplerKernelCtxControl c;
    memset(&c, 0, sizeof c);
    c.abi_version = SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION;
    c.struct_size = sizeof c;
    c.action = SIMPLER_KERNEL_CTX_FREEZE;
    return c;
}

static void error_reason_empty_before_any_refusal(void **state)
{
    (void)state;
    assert_non_null(simpler_last_error_message());
    assert_string_equal(simpler_last_error_message(), "");
}

static void error_reason_names_the_bad_field(void **state)
{
    (void)state;
    DeviceContextHandle ctx = create_device_context();
    assert_non_null(ctx);
    SimplerKernelCtxControl c = freeze_block();
    c.struct_size = 95;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &c), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(simpler_last_error_message(), "struct_size = 95"));
    c = freeze_block();
    c.reserved[1] = 7;
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &c), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(simpler_last_error_message(), "reserved[1] = 7"));
    c = freeze_block();
    assert_int_equal(simpler_kernel_mode_ctx_control(ctx, &c), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_non_null(strstr(simpler_last_error_message(), "FREEZE"));
    destroy_device_context(ctx);
}

static void error_reason_cleared_by_the_next_call(void **state)
{
    (void)state;
    SimplerKernelCtxControl c = freeze_block();
    c.action = 9;
    assert_int_equal(simpler_kernel_mode_ctx_control(NULL, &c), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_string_equal(simpler_last_error_message(), "ctx: NULL");
    /* The readers leave it: a caller names the status, then the reason. */
    (void)simpler_strerror(PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    (void)simpler_clock_ns();
    (void)simpler_host_alloc_count();
    assert_string_equal(simpler_last_error_message(), "ctx: NULL");
    CallConfig cfg;
    assert_int_equal(simpler_call_config_default(&cfg), 0);
    assert_string_equal(simpler_last_error_message(), "");
}

static void *refuse_on_other_thread(void *arg)
{
    (void)arg;
    SimplerKernelCtxControl c = freeze_block();
    c.abi_version = 3;
    DeviceContextHandle ctx = create_device_context();
    int rc = simpler_kernel_mode_ctx_control(ctx, &c);
    char *copy = strdup(simpler_last_error_message());
    destroy_device_context(ctx);
    return rc == PTO_RUNTIME_ERR_INVALID_ARGUMENT ? copy : NULL;
}

static void error_reason_is_per_thread(void **state)
{
    (void)state;
    assert_int_equal(simpler_kernel_mode_ctx_control(NULL, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    pthread_t t;
    void *other = NULL;
    assert_int_equal(pthread_create(&t, NULL, refuse_on_other_thread, NULL), 0);
    assert_int_equal(pthread_join(t, &other), 0);
    assert_non_null(other);
    assert_non_null(strstr(other, "abi_version = 3"));
    free(other);
    assert_string_equal(simpler_last_error_message(), "ctx: NULL");
}

static void error_fail_returns_status_and_cuts_long_reasons(void **state)
{
    (void)state;
    char big[3 * SIMPLER_ERROR_REASON_BYTES];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(simpler_fail(PTO_RUNTIME_ERR_CAPACITY_EXCEEDED, "%s", big), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(strlen(simpler_last_error_message()), SIMPLER_ERROR_REASON_BYTES - 1);
    simpler_error_clear();
    assert_string_equal(simpler_last_error_message(), "");
}

/* The reason goes to the log at warning level, after the status name. */
static void error_reason_logged_at_warning(void **state)
{
    (void)state;
    char path[] = "/tmp/simpler_error_logXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    assert_true(dup2(fd, STDERR_FILENO) >= 0);
    (void)simpler_fail(PTO_RUNTIME_ERR_INVALID_STATE, "reason %d", 42);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    char line[256] = {0};
    FILE *f = fdopen(fd, "r");
    assert_non_null(f);
    rewind(f);
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    unlink(path);
    assert_string_equal(line, "simpler[warn]: PTO_RUNTIME_ERR_INVALID_STATE: reason 42\n");
}

int main(void)
{
    /* Read once, on the first log call: set before any. */
    setenv("SIMPLER_LOG", "warn", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(error_reason_empty_before_any_refusal),
        cmocka_unit_test(error_reason_names_the_bad_field),
        cmocka_unit_test(error_reason_cleared_by_the_next_call),
        cmocka_unit_test(error_reason_is_per_thread),
        cmocka_unit_test(error_fail_returns_status_and_cuts_long_reasons),
        cmocka_unit_test(error_reason_logged_at_warning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
