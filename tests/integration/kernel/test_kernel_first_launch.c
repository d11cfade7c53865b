/* The very first kernel-mode launch of a process allocates nothing and
 * starts no thread: everything the launch needs on the device (its
 * engine threads included) was started by init, so a host OOM can no
 * longer strike inside the first launch. This suite is its own process,
 * so its launch is the process's first. */
#include "support.h"

#include <dirent.h>

#include "common/host_alloc.h"
#include "kernel_fixture.h"
#include "../program/image_fixture.h"

/* Threads of this process. */
static int thread_count(void)
{
    DIR *dir = opendir("/proc/self/task");
    assert_non_null(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL)
        n += e->d_name[0] != '.';
    closedir(dir);
    return n;
}

static void kernel_first_launch_in_process_allocates_nothing_and_starts_no_thread(void **state)
{
    (void)state;
    static vadd_buffers v;
    kfix k;
    kbufs d;
    kfix_open_plan(&k, &image, 2);
    kbufs_alloc(&d);
    kbufs_upload(&d, &v, 1.0f);
    int threads = thread_count();
    uint64_t allocs = simpler_host_alloc_count();
    assert_int_equal(kfix_launch(&k, &d, 2), 0);
    assert_int_equal(simpler_host_alloc_count(), allocs);
    assert_int_equal(simdev_stream_synchronize(k.stream), SIMDEV_SUCCESS);
    assert_int_equal(thread_count(), threads);
    assert_int_equal(kbufs_check(&d, &v, 2), 0);
    kbufs_free(&d);
    kfix_close(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_first_launch_in_process_allocates_nothing_and_starts_no_thread),
    };
    return cmocka_run_group_tests(tests, image_group_setup, image_group_teardown);
}
