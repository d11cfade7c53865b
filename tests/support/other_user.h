/* Checks that need another user than root (root passes every permission
 * check): a folder that user may not add files to, holding one file of
 * that user's and one of root's, and a child process that runs a check
 * as that user (uid and gid 65534). Only root can set either up. */
#ifndef SIMPLER_TEST_OTHER_USER_H
#define SIMPLER_TEST_OTHER_USER_H

#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define OTHER_USER_ID 65534
#define OTHER_USER_CLOSED 77 /* as_other_user: a folder above `dir` is closed to the user */

typedef struct locked_folder {
    char dir[512], mine[640], theirs[640];
} locked_folder;

/* Makes `dir` (0755, root's) with `mine` (the other user's, holding
 * `text`) and `theirs` (root's, 0644) in it. 0, or -1. */
static inline int locked_folder_make(locked_folder *l, const char *dir, const char *mine, const char *theirs,
                                     const char *text)
{
    snprintf(l->dir, sizeof l->dir, "%s", dir);
    snprintf(l->mine, sizeof l->mine, "%s/%s", dir, mine);
    snprintf(l->theirs, sizeof l->theirs, "%s/%s", dir, theirs);
    remove(l->mine);
    remove(l->theirs);
    rmdir(l->dir);
    if (mkdir(l->dir, 0755) != 0)
        return -1;
    FILE *f = fopen(l->mine, "w");
    int ok = f != NULL && fputs(text, f) >= 0;
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    f = fopen(l->theirs, "w");
    ok = ok && f != NULL;
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    return ok && chown(l->mine, OTHER_USER_ID, OTHER_USER_ID) == 0 && chmod(l->theirs, 0644) == 0 ? 0 : -1;
}

static inline void locked_folder_remove(const locked_folder *l)
{
    remove(l->mine);
    remove(l->theirs);
    rmdir(l->dir);
}

/* Runs check(arg) in a child process as the other user; returns its exit
 * status (the check's result), OTHER_USER_CLOSED when `dir` cannot be
 * reached by that user (a private build folder above it), or -1. */
static inline int as_other_user(const char *dir, int (*check)(void *), void *arg)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (setgid(OTHER_USER_ID) != 0 || setuid(OTHER_USER_ID) != 0)
            _exit(126);
        _exit(access(dir, X_OK) != 0 ? OTHER_USER_CLOSED : check(arg));
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

#endif
