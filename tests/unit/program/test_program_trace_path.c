/* program_trace_path_check accepts what the trace writer can write
 * (common/file_out.h): an existing writable file even in a folder the
 * caller may not add files to (written in place), and refuses a new
 * file there. Run as another user in a child process (root passes every
 * permission check); skipped when not root or when the build folder is
 * closed to others. */
#include "support.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "program/program_run.h"
#include "simpler/task_args.h"
#include "text_file.h"

#define LOCKED SIMPLER_BINARY_DIR "/tests/program_trace_locked"

static int check_as_other_user(void)
{
    CallConfig config;
    if (setgid(65534) != 0 || setuid(65534) != 0)
        return 10;
    if (access(LOCKED, X_OK) != 0)
        return 77;
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
    static const char mine[] = LOCKED "/mine_trace.json", theirs[] = LOCKED "/root_trace.json";
    (void)state;
    if (geteuid() != 0)
        skip();
    remove(mine);
    remove(theirs);
    rmdir(LOCKED);
    assert_int_equal(mkdir(LOCKED, 0755), 0);
    assert_int_equal(text_file_write(mine, ""), 0);
    assert_int_equal(chown(mine, 65534, 65534), 0);
    assert_int_equal(text_file_write(theirs, ""), 0);
    assert_int_equal(chmod(theirs, 0644), 0);
    int status = -1;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(check_as_other_user());
    assert_int_equal(waitpid(pid, &status, 0), pid);
    remove(mine);
    remove(theirs);
    rmdir(LOCKED);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77)
        skip();
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_path_check_follows_what_the_writer_can_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
