/* Reads a whole file (an image built at configure time) into a fresh
 * 64-aligned buffer, the alignment every image entry point expects. */
#ifndef SIMPLER_TEST_FILE_IMAGE_H
#define SIMPLER_TEST_FILE_IMAGE_H

#include <stdio.h>
#include <stdlib.h>

/* The bytes of `path` (free() them) and their count in *size, or NULL
 * with *size 0 when the file cannot be read. */
static inline void *file_image_read(const char *path, size_t *size)
{
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *bytes = n > 0 ? aligned_alloc(64, ((size_t)n + 63) / 64 * 64) : NULL;
    int whole = bytes != NULL && fread(bytes, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    if (!whole) {
        free(bytes);
        return NULL;
    }
    *size = (size_t)n;
    return bytes;
}

#endif
