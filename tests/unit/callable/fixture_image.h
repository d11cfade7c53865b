/* Helpers for the loader and residency tests: read fixture .so files and
 * pack them into images. Fixture binaries come from fixtures.cmake. */
#ifndef SIMPLER_TESTS_CALLABLE_FIXTURE_IMAGE_H
#define SIMPLER_TESTS_CALLABLE_FIXTURE_IMAGE_H

#include <dirent.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simpler/callable.h"

#define FIXTURE(name) CALLABLE_FIXTURE_OUT "/" name ".so"

typedef struct fixture_file {
    uint8_t *bytes;
    size_t size;
} fixture_file;

static inline fixture_file fixture_read(const char *path)
{
    fixture_file f = {NULL, 0};
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, 0, SEEK_END), 0);
    long n = ftell(fp);
    assert_true(n > 0);
    rewind(fp);
    f.bytes = malloc((size_t)n);
    assert_non_null(f.bytes);
    assert_int_equal(fread(f.bytes, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    f.size = (size_t)n;
    return f;
}

/* Packs an image into a 64-aligned malloc'd buffer (free with free()). */
static inline uint8_t *fixture_pack(const SimplerCallableDesc *d, size_t *size)
{
    assert_int_equal(simpler_callable_build(d, NULL, 0, size), 0);
    uint8_t *image = aligned_alloc(64, (*size + 63) / 64 * 64);
    assert_non_null(image);
    assert_int_equal(simpler_callable_build(d, image, *size, size), 0);
    return image;
}

/* Packs the orchestration fixture ("fixture_orch", signature in,in,out,
 * scalar) with up to two kernels given as (func_id, core type, path). */
static inline uint8_t *fixture_image(const char *orch_path, const char *entry, const char *k1_path, int32_t k1_id,
                                     const char *k2_path, int32_t k2_id, size_t *size)
{
    static const uint8_t sig[4] = {SIMPLER_ARG_IN, SIMPLER_ARG_IN, SIMPLER_ARG_OUT, SIMPLER_ARG_SCALAR};
    static const uint8_t ksig[2] = {SIMPLER_ARG_IN, SIMPLER_ARG_OUT};
    fixture_file orch = fixture_read(orch_path);
    fixture_file k[2] = {{NULL, 0}, {NULL, 0}};
    SimplerCallableChildDesc kids[2];
    uint32_t n = 0;
    if (k1_path != NULL) {
        k[n] = fixture_read(k1_path);
        SimplerCallableChildDesc c = {k1_id, SIMPLER_CORE_TYPE_AIV, 2, 0, ksig, k[n].bytes, k[n].size};
        kids[n++] = c;
    }
    if (k2_path != NULL) {
        k[n] = fixture_read(k2_path);
        SimplerCallableChildDesc c = {k2_id, SIMPLER_CORE_TYPE_AIC, 0, 0, NULL, k[n].bytes, k[n].size};
        kids[n++] = c;
    }
    SimplerCallableDesc d = {sizeof d, 4, sig, orch.bytes, orch.size, entry, 0, n, kids, 0, NULL};
    uint8_t *image = fixture_pack(&d, size);
    free(orch.bytes);
    free(k[0].bytes);
    free(k[1].bytes);
    return image;
}

/* Open file descriptors of this process (to check nothing leaks). */
static inline int fixture_open_fds(void)
{
    DIR *dir = opendir("/proc/self/fd");
    assert_non_null(dir);
    int n = 0;
    while (readdir(dir) != NULL)
        n++;
    closedir(dir);
    return n;
}

static inline int fixture_count_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    (*(int *)data)++;
    return 0;
}

/* Shared objects mapped in this process (to check every dlopen was
 * matched by a dlclose). */
static inline int fixture_loaded_objects(void)
{
    int n = 0;
    dl_iterate_phdr(fixture_count_object, &n);
    return n;
}

#endif
