/* program_trace_path_check accepts what the trace writer can write
 * (common/file_out.h): an existing writable file even in a folder the
 * caller may not add files to (written in place), and refuses a new
 * file there. Run as another user in a child process (root passes every
 * permission check); skipped when not root or when the build folder is
 * closed to others. */
#include "support.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "program/program_run.h"
#include "simpler/task_args.h"
#include "other_user.h"

#define LOCKED SIMPLER_BINARY_DIR "/tests/program_trace_locked"

static int check_as_other_user(void *arg)
{
    CallConfig config;
    (void)arg;
    simpler_call_config_default(&config);
    config.trace = 1;
    snprintf(config.output_prefix, sizeof(config.output_prefix), "%s/mine_", LOCKED);
    if (program_trace_path_check(&config) != 0)
        return 11; /* mine_trace.json exists and is the child's: written in place */
    snprintf(config.output_prefix, sizeof(config.output_prefix), "%s/new_", LOCKED);
    if (program_trace_path_check(&config) != PTO_RUNTIME_ERR_INVALID_ARGUMENT)
        return 12; /* new_trace.json would have to be added to the folder */
    snprintf(config.output_prefix, sizeof(config.output_prefix), "%s/root_", LOCKED);
    if (program_trace_path_check(&config) != PTO_RUNTIME_ERR_INVALID_ARGUMENT)
        return 13; /* root_trace.json is not the child's to write */
    return 0;
}

static void trace_path_check_follows_what_the_writer_can_write(void **state)
{
    locked_folder l;
    (void)state;
    if (geteuid() != 0)
        skip();
    assert_int_equal(locked_folder_make(&l, LOCKED, "mine_trace.json", "root_trace.json", ""), 0);
    int rc = as_other_user(l.dir, check_as_other_user, NULL);
    locked_folder_remove(&l);
    if (rc == OTHER_USER_CLOSED)
        skip();
    assert_int_equal(rc, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_path_check_follows_what_the_writer_can_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
