/*
 * file_out — a file written whole or not at all, where its name allows.
 *
 * A regular file with no other link, or no file, is replaced whole: the
 * bytes go to a new file beside it (`<path>.partial.<pid>.<n>`, created
 * exclusively, with the replaced file's mode), renamed over `path` once
 * complete, so a failed write leaves what was there and no partial file.
 * Anything else (a symbolic link, a FIFO, a device, a file with other
 * hard links, another user's file, a name too long for the suffix, a
 * folder the caller may not add a file to) is written in place, through
 * the name, as opening it would; a failed write there can leave an
 * existing file partly written (a file it created at `path` is removed;
 * the target it made for a dangling symbolic link stays). Used by
 * every library call that writes a file the caller names (trace
 * exports, graph drawings, simdev's DOT dump).
 */
#ifndef SIMPLER_COMMON_FILE_OUT_H
#define SIMPLER_COMMON_FILE_OUT_H

#include <stdio.h>

/* Longest name of the file beside `path`: paths longer than Linux's
 * PATH_MAX fail to open anyway. */
#define FILE_OUT_TMP_MAX 4160

/* Which step failed (errno holds why); FILE_OUT_OK (0) when none did. */
typedef enum file_out_step {
    FILE_OUT_OK = 0,
    FILE_OUT_READ_ONLY,      /* the regular file at `path` is not writable */
    FILE_OUT_CREATE_BESIDE,  /* the file beside `path` could not be made (its name in tmp) */
    FILE_OUT_CREATE,         /* `path` could not be opened for writing in place */
    FILE_OUT_WRITE,          /* a write or the close failed */
    FILE_OUT_REPLACE,        /* the rename over `path` failed */
} file_out_step;

typedef struct file_out {
    FILE *f;                 /* write here between open and close */
    const char *path;        /* borrowed until file_out_close */
    int replace;             /* 1: f is the file beside, renamed by close */
    int created;             /* 1: written in place where no file was */
    char tmp[FILE_OUT_TMP_MAX];
} file_out;

/* Opens `path` for writing as above. FILE_OUT_OK, or the failed step
 * with errno set and nothing created. */
file_out_step file_out_open(file_out *o, const char *path);

/* Closes o->f; when `ok` and every write and the close succeeded, puts
 * the file in place (renames the file beside over `path`) and returns
 * FILE_OUT_OK. Otherwise removes the file beside, or the file it
 * created in place (an existing file written in place stays as
 * written), and returns the failed step: FILE_OUT_WRITE when `ok` is 0. */
file_out_step file_out_close(file_out *o, int ok);

#endif
