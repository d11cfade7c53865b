/* file_out: a file the library writes for a caller is replaced whole
 * where its name allows (a regular file of the writer's with one link,
 * or none), keeping the mode, so a failed write leaves what was there
 * and no partial file; symbolic links are written through, files with
 * other links, other users' files and over-long names in place. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_out.h"
#include "fsize_limit.h"
#include "other_user.h"
#include "support.h"
#include "text_file.h"

#define DIR_PATH SIMPLER_BINARY_DIR "/tests"
#define OUT_PATH DIR_PATH "/file_out_test.txt"

static char text[4096];

static const char *read_back(const char *path)
{
    const char *t = text_file_read(path, text, sizeof text);
    assert_non_null(t);
    return t;
}

/* Files named "file_out_test.txt.partial.*" left in the tests' folder. */
static int partial_files(void)
{
    DIR *d = opendir(DIR_PATH);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, "file_out_test.txt.partial.", 26) == 0;
    closedir(d);
    return n;
}

static file_out_step write_text(const char *path, const char *t, int ok)
{
    file_out o;
    file_out_step step = file_out_open(&o, path);
    if (step != FILE_OUT_OK)
        return step;
    fputs(t, o.f);
    return file_out_close(&o, ok);
}

static void file_out_creates_and_replaces_keeping_the_mode(void **state)
{
    struct stat st;
    (void)state;
    remove(OUT_PATH);
    assert_int_equal(write_text(OUT_PATH, "first\n", 1), FILE_OUT_OK);
    assert_string_equal(read_back(OUT_PATH), "first\n");
    assert_int_equal(chmod(OUT_PATH, 0640), 0);
    assert_int_equal(write_text(OUT_PATH, "second\n", 1), FILE_OUT_OK);
    assert_string_equal(read_back(OUT_PATH), "second\n");
    assert_int_equal(stat(OUT_PATH, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    assert_int_equal(partial_files(), 0);
    remove(OUT_PATH);
}

/* A write that fails (the file size limit) or a caller's own failure
 * leaves the file that was there, or none, and no partial file. */
static void file_out_failure_leaves_what_was_there(void **state)
{
    static char big[8192];
    fsize_limit l;
    (void)state;
    memset(big, 'x', sizeof big - 1);
    assert_int_equal(text_file_write(OUT_PATH, "kept\n"), 0);
    assert_int_equal(fsize_limit_begin(&l, 64), 0);
    file_out_step step = write_text(OUT_PATH, big, 1);
    fsize_limit_end(&l);
    assert_int_equal(step, FILE_OUT_WRITE);
    assert_string_equal(read_back(OUT_PATH), "kept\n");
    assert_int_equal(write_text(OUT_PATH, "not wanted\n", 0), FILE_OUT_WRITE);
    assert_string_equal(read_back(OUT_PATH), "kept\n");
    remove(OUT_PATH);
    assert_int_equal(write_text(OUT_PATH, "not wanted\n", 0), FILE_OUT_WRITE);
    assert_int_equal(access(OUT_PATH, F_OK), -1);
    assert_int_equal(partial_files(), 0);
}

/* A symbolic link stays and its target gets the text; a file with
 * another hard link is written in place, so both names see it. */
static void file_out_writes_links_through(void **state)
{
    static const char target[] = DIR_PATH "/file_out_target.txt";
    static const char other[] = DIR_PATH "/file_out_other_link.txt";
    struct stat st;
    (void)state;
    remove(OUT_PATH);
    assert_int_equal(text_file_write(target, ""), 0);
    assert_int_equal(symlink(target, OUT_PATH), 0);
    assert_int_equal(write_text(OUT_PATH, "through\n", 1), FILE_OUT_OK);
    assert_int_equal(lstat(OUT_PATH, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_string_equal(read_back(target), "through\n");
    remove(OUT_PATH);

    remove(other);
    assert_int_equal(link(target, other), 0);
    assert_int_equal(write_text(target, "both names\n", 1), FILE_OUT_OK);
    assert_string_equal(read_back(other), "both names\n");
    assert_int_equal(partial_files(), 0);
    remove(other);
    remove(target);
}

/* Files a killed writer left beside the path under this process id do
 * not stop the next; a missing folder is refused before anything is
 * made; a file that is not writable is refused (not as root, who may). */
static void file_out_survives_leftovers_and_refuses_what_it_cannot_make(void **state)
{
    char name[sizeof(OUT_PATH) + 48];
    (void)state;
    for (unsigned n = 0; n < 32; n++) {
        snprintf(name, sizeof name, "%s.partial.%ld.%u", OUT_PATH, (long)getpid(), n);
        assert_int_equal(text_file_write(name, ""), 0);
    }
    file_out_step step = write_text(OUT_PATH, "after leftovers\n", 1);
    for (unsigned n = 0; n < 32; n++) {
        snprintf(name, sizeof name, "%s.partial.%ld.%u", OUT_PATH, (long)getpid(), n);
        remove(name);
    }
    assert_int_equal(step, FILE_OUT_OK);
    assert_string_equal(read_back(OUT_PATH), "after leftovers\n");
    assert_int_equal(partial_files(), 0);

    assert_int_equal(write_text("/nonexistent-simpler-dir/x.txt", "x", 1), FILE_OUT_CREATE_BESIDE);
    if (geteuid() != 0) {
        assert_int_equal(chmod(OUT_PATH, 0440), 0);
        assert_int_equal(write_text(OUT_PATH, "refused\n", 1), FILE_OUT_READ_ONLY);
        assert_string_equal(read_back(OUT_PATH), "after leftovers\n");
    }
    remove(OUT_PATH);
}

/* A name with no room for the suffix is written in place; a failed
 * write there removes the file it created. The empty name is refused
 * (it would have made ".partial.*" in the working folder). */
static void file_out_long_and_empty_names(void **state)
{
    char path[sizeof(DIR_PATH) + 256];
    (void)state;
    int n = snprintf(path, sizeof path, "%s/", DIR_PATH);
    memset(path + n, 'l', 250); /* NAME_MAX is 255: no room for ".partial.<pid>.<n>" */
    path[n + 250] = '\0';
    remove(path);
    assert_int_equal(write_text(path, "in place\n", 1), FILE_OUT_OK);
    assert_string_equal(read_back(path), "in place\n");
    assert_int_equal(remove(path), 0);
    assert_int_equal(write_text(path, "not wanted\n", 0), FILE_OUT_WRITE);
    assert_int_equal(access(path, F_OK), -1);

    file_out o;
    assert_int_equal(file_out_open(&o, ""), FILE_OUT_CREATE);
    assert_null(o.f);
}

/* Another user's file is written in place (a rename would make it the
 * writer's, and fails in a sticky folder): its owner stays. Needs root
 * to give the file away. */
static void file_out_keeps_another_user_s_file(void **state)
{
    struct stat st;
    (void)state;
    if (geteuid() != 0)
        skip();
    assert_int_equal(text_file_write(OUT_PATH, "theirs\n"), 0);
    assert_int_equal(chown(OUT_PATH, 65534, 65534), 0);
    assert_int_equal(write_text(OUT_PATH, "written\n", 1), FILE_OUT_OK);
    assert_int_equal(stat(OUT_PATH, &st), 0);
    assert_int_equal(st.st_uid, 65534);
    assert_string_equal(read_back(OUT_PATH), "written\n");
    assert_int_equal(partial_files(), 0);
    remove(OUT_PATH);
}

/* A dangling symbolic link: the link stays, its target is made. */
static void file_out_makes_a_dangling_link_s_target(void **state)
{
    static const char target[] = DIR_PATH "/file_out_dangling_target.txt";
    struct stat st;
    (void)state;
    remove(OUT_PATH);
    remove(target);
    assert_int_equal(symlink(target, OUT_PATH), 0);
    assert_int_equal(write_text(OUT_PATH, "made\n", 1), FILE_OUT_OK);
    assert_int_equal(lstat(OUT_PATH, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_string_equal(read_back(target), "made\n");
    remove(OUT_PATH);
    remove(target);
}

/* As another user: a writable file of its own in a folder it may not
 * add files to is written in place; a new name there cannot be made; a
 * file it may not write is refused as read-only. */
static int other_user_writes(void *arg)
{
    const locked_folder *l = arg;
    char fresh[700];
    snprintf(fresh, sizeof fresh, "%s/fresh.txt", l->dir);
    if (write_text(l->mine, "child\n", 1) != FILE_OUT_OK)
        return 11;
    if (write_text(fresh, "x", 1) != FILE_OUT_CREATE || access(fresh, F_OK) == 0)
        return 12;
    if (write_text(l->theirs, "x", 1) != FILE_OUT_READ_ONLY)
        return 13;
    return 0;
}

static void file_out_in_a_folder_the_writer_may_not_add_to(void **state)
{
    locked_folder l;
    (void)state;
    if (geteuid() != 0)
        skip();
    assert_int_equal(locked_folder_make(&l, DIR_PATH "/file_out_locked", "mine.txt", "theirs.txt", "before\n"), 0);
    int rc = as_other_user(l.dir, other_user_writes, &l);
    const char *got = read_back(l.mine);
    locked_folder_remove(&l);
    if (rc == OTHER_USER_CLOSED)
        skip();
    assert_int_equal(rc, 0);
    assert_string_equal(got, "child\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(file_out_creates_and_replaces_keeping_the_mode),
        cmocka_unit_test(file_out_failure_leaves_what_was_there),
        cmocka_unit_test(file_out_writes_links_through),
        cmocka_unit_test(file_out_survives_leftovers_and_refuses_what_it_cannot_make),
        cmocka_unit_test(file_out_long_and_empty_names),
        cmocka_unit_test(file_out_keeps_another_user_s_file),
        cmocka_unit_test(file_out_makes_a_dangling_link_s_target),
        cmocka_unit_test(file_out_in_a_folder_the_writer_may_not_add_to),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
