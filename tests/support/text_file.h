/* Small text files the tests write and read back (trace JSON, DOT): the
 * whole text into a buffer of the caller's, and counts of a marker in it. */
#ifndef SIMPLER_TEST_TEXT_FILE_H
#define SIMPLER_TEST_TEXT_FILE_H

#include <stdio.h>
#include <string.h>

/* The text of `path` in buf (NUL-terminated, cut to size - 1 bytes), or
 * NULL when the file cannot be opened. */
static inline char *text_file_read(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Replaces `path` with `text`; 0, or -1 when it cannot be written. */
static inline int text_file_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* How many times `what` occurs in `text`. */
static inline int text_count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
        n++;
    return n;
}

#endif
