/* Where `simpler run` and `simpler bench` find an example's image
 * (run_program.h, example_image_path). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "run_program.h"

/* The installed examples relative to the installed executable's
 * directory; the build passes the one its install layout gives. */
#ifndef SIMPLER_EXAMPLES_FROM_BIN
#define SIMPLER_EXAMPLES_FROM_BIN "../share/simpler/examples"
#endif

#define EXAMPLE_PATH_MAX 4096

/* `dir`/`rel`/`name`.callable into `out`, each leading "../" of `rel`
 * taking the last component off `dir` (the executable's directory is
 * already free of links and dots). 0, or -1 when it does not fit. */
static int candidate(const char *dir, const char *rel, const char *name, char *out, size_t size)
{
    char base[EXAMPLE_PATH_MAX];
    if (snprintf(base, sizeof(base), "%s", dir) >= (int)sizeof(base))
        return -1;
    while (strncmp(rel, "../", 3) == 0) {
        char *slash = strrchr(base, '/');
        if (slash != NULL)
            *slash = '\0';
        rel += 3;
    }
    int w = snprintf(out, size, "%s/%s/%s.callable", base, rel, name);
    return w > 0 && (size_t)w < size ? 0 : -1;
}

int example_image_path(const char *name, char *path, size_t size)
{
    static const char *const dirs[] = {SIMPLER_EXAMPLES_FROM_BIN, "examples"};
    char exe[EXAMPLE_PATH_MAX], cand[EXAMPLE_PATH_MAX];
    if (path == NULL || size == 0)
        return -1;
    path[0] = '\0';
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        snprintf(path, size, "none: /proc/self/exe cannot be read");
        return -1;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL)
        *slash = '\0';
    size_t used = 0;
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        if (candidate(exe, dirs[i], name, cand, sizeof(cand)) != 0)
            continue;
        if (access(cand, R_OK) == 0 && strlen(cand) < size) {
            memcpy(path, cand, strlen(cand) + 1);
            return 0;
        }
        /* Not readable there: add it to the list of paths tried. */
        int w = snprintf(path + used, size - used, "%s%s", used > 0 ? ", " : "", cand);
        if (w > 0)
            used = (size_t)w < size - used ? used + (size_t)w : size - 1;
    }
    return -1;
}
