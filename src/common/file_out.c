/* A file written whole or not at all (file_out.h). */
#define _POSIX_C_SOURCE 200809L /* fdopen, lstat, O_CLOEXEC */
#include "common/file_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

/* Names tried for the file beside before giving up (a killed writer may
 * have left one behind under the same process id). */
#define FILE_OUT_TRIES 64

/* Opens a new file beside `path`, its name in tmp: created exclusively,
 * with the mode of the file it will replace (`was`) or the one a plain
 * create gives. NULL with errno on failure. */
static FILE *open_beside(const char *path, const struct stat *was, char *tmp, size_t size)
{
    static atomic_uint serial;
    int fd = -1;
    for (int i = 0; fd < 0 && i < FILE_OUT_TRIES; i++) {
        int n = snprintf(tmp, size, "%s.partial.%ld.%u", path, (long)getpid(), atomic_fetch_add(&serial, 1u));
        if (n < 0 || (size_t)n >= size) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            return NULL;
    }
    if (fd < 0)
        return NULL;
    FILE *out = was != NULL && fchmod(fd, was->st_mode & 07777) != 0 ? NULL : fdopen(fd, "w");
    if (out == NULL) {
        int e = errno;
        close(fd);
        remove(tmp);
        errno = e;
    }
    return out;
}

/* Opens `path` for writing where it is. A name that did not exist is
 * created exclusively (*created = 1: a failed write may remove it, and
 * no file another process made meanwhile is taken for ours); an existing
 * one is truncated without O_CREAT (with fs.protected_regular, an
 * O_CREAT open of another user's file in a sticky folder is refused);
 * a dangling symbolic link gets its target made. NULL with errno. */
static FILE *open_in_place(const char *path, int exists, int *created)
{
    int fd = -1;
    *created = 0;
    if (!exists) {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            return NULL;
        *created = fd >= 0;
    }
    if (fd < 0)
        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        int e = errno;
        close(fd);
        if (*created)
            remove(path);
        *created = 0;
        errno = e;
    }
    return f;
}

file_out_step file_out_open(file_out *o, const char *path)
{
    struct stat st;
    o->f = NULL;
    o->path = path;
    o->tmp[0] = '\0';
    o->created = 0;
    if (path[0] == '\0') {
        errno = ENOENT; /* "" names no file; the name beside it would be ".partial..." */
        return FILE_OUT_CREATE;
    }
    const int exists = lstat(path, &st) == 0;
    /* Another user's file is written in place: a rename over it could
     * fail where opening it works (a sticky folder such as /tmp), and
     * would make it ours. */
    o->replace = !exists || (S_ISREG(st.st_mode) && st.st_nlink == 1 && st.st_uid == geteuid());
    if (exists && S_ISREG(st.st_mode) && access(path, W_OK) != 0)
        return FILE_OUT_READ_ONLY;
    if (o->replace) {
        o->f = open_beside(path, exists ? &st : NULL, o->tmp, sizeof o->tmp);
        if (o->f != NULL)
            return FILE_OUT_OK;
        /* No room for the longer name, or no right to add a file to the
         * folder (a writable file in a folder that is not): in place,
         * as opening it would. */
        if (errno != ENAMETOOLONG && errno != EACCES && errno != EPERM)
            return FILE_OUT_CREATE_BESIDE;
        o->replace = 0;
        o->tmp[0] = '\0';
    }
    o->f = open_in_place(path, exists, &o->created);
    return o->f != NULL ? FILE_OUT_OK : FILE_OUT_CREATE;
}

file_out_step file_out_close(file_out *o, int ok)
{
    file_out_step step = ok && !ferror(o->f) ? FILE_OUT_OK : FILE_OUT_WRITE;
    int e = errno;
    if (fclose(o->f) != 0 && step == FILE_OUT_OK) {
        step = FILE_OUT_WRITE;
        e = errno;
    }
    o->f = NULL;
    if (step == FILE_OUT_OK && o->replace && rename(o->tmp, o->path) != 0) {
        step = FILE_OUT_REPLACE;
        e = errno;
    }
    if (step != FILE_OUT_OK && o->replace)
        remove(o->tmp);
    else if (step != FILE_OUT_OK && o->created)
        remove(o->path); /* made in place by this writer: none was there */
    errno = e;
    return step;
}
