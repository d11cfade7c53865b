/* simpler_callable_load_file / simpler_callable_free: an image file into
 * 64-byte aligned memory; every refusal names its cause, leaves the
 * outputs unwritten and nothing allocated. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/host_alloc.h"
#include "simpler/callable.h"
#include "simpler/runtime_c_api.h"

#define SENTINEL_IMAGE ((void *)(uintptr_t)0x5a5a)
#define SENTINEL_SIZE ((size_t)0xa5a5)

static char dir[] = "/tmp/simpler_load_file_XXXXXX";
static char path[256];

static int dir_setup(void **state)
{
    (void)state;
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int dir_teardown(void **state)
{
    char cmd[512];
    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes `n` bytes (byte i = i * 7) to <dir>/<name>; returns its path. */
static const char *file_make(const char *name, size_t n)
{
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(fputc((int)(i * 7 & 0xff), fp), (int)(i * 7 & 0xff));
    assert_int_equal(fclose(fp), 0);
    return path;
}

/* A refusal: `status`, the reason mentions `says`, outputs unwritten. */
static void refused(const char *p, void **image, size_t *size, int status, const char *says)
{
    void *img = SENTINEL_IMAGE;
    size_t sz = SENTINEL_SIZE;
    uint64_t allocs = host_alloc_count(), frees = host_free_count();
    assert_int_equal(simpler_callable_load_file(p, image != NULL ? &img : NULL, size != NULL ? &sz : NULL),
                     status);
    if (strstr(simpler_last_error_message(), says) == NULL)
        fail_msg("reason '%s' does not mention '%s'", simpler_last_error_message(), says);
    assert_ptr_equal(img, SENTINEL_IMAGE);
    assert_int_equal(sz, SENTINEL_SIZE);
    /* Whatever was allocated was released. */
    assert_int_equal(host_alloc_count() - allocs, host_free_count() - frees);
}

static void load_file_reads_every_byte_into_aligned_memory(void **state)
{
    (void)state;
    const size_t sizes[] = {1, 63, 64, 65, 4096, 100003};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        void *image = NULL;
        size_t size = 0;
        const char *p = file_make("bytes.bin", sizes[k]);
        assert_int_equal(simpler_callable_load_file(p, &image, &size), 0);
        assert_string_equal(simpler_last_error_message(), "");
        assert_int_equal(size, sizes[k]);
        assert_int_equal((uintptr_t)image % SIMPLER_CALLABLE_ALIGN, 0);
        for (size_t i = 0; i < size; i++)
            assert_int_equal(((const unsigned char *)image)[i], (unsigned char)(i * 7 & 0xff));
        simpler_callable_free(image);
    }
}

static void load_file_reads_a_built_image_that_passes_the_check(void **state)
{
    void *image = NULL;
    size_t size = 0;
    (void)state;
    assert_int_equal(simpler_callable_load_file(SIMPLER_BINARY_DIR "/examples/vector.callable", &image, &size), 0);
    assert_int_equal(simpler_callable_check(image, size), 0);
    simpler_callable_free(image);
}

static void load_file_null_arguments_are_invalid_argument(void **state)
{
    void *image;
    size_t size;
    (void)state;
    const char *p = file_make("ok.bin", 128);
    refused(NULL, (void **)&image, &size, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "path: NULL");
    refused(p, NULL, &size, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "image: NULL");
    refused(p, (void **)&image, NULL, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "size: NULL");
}

static void load_file_missing_file_is_invalid_argument_naming_the_path(void **state)
{
    void *image;
    size_t size;
    char missing[300];
    (void)state;
    snprintf(missing, sizeof(missing), "%s/no_such.callable", dir);
    refused(missing, (void **)&image, &size, PTO_RUNTIME_ERR_INVALID_ARGUMENT, missing);
    refused(missing, (void **)&image, &size, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "cannot open");
}

static void load_file_directory_and_empty_file_are_invalid_argument(void **state)
{
    void *image;
    size_t size;
    (void)state;
    refused(dir, (void **)&image, &size, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "not a regular file");
    const char *p = file_make("empty.bin", 0);
    refused(p, (void **)&image, &size, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "empty file");
    refused("", (void **)&image, &size, PTO_RUNTIME_ERR_INVALID_ARGUMENT, "cannot open");
}

/* Every host allocation the call makes fails in turn: -1007, outputs
 * unwritten, nothing leaked; then it succeeds. */
static void load_file_out_of_memory_sweep(void **state)
{
    void *image;
    size_t size;
    (void)state;
    const char *p = file_make("sweep.bin", 1000);
    uint64_t k = 1;
    for (;; k++) {
        host_alloc_fail_nth(k);
        void *img = SENTINEL_IMAGE;
        size_t sz = SENTINEL_SIZE;
        uint64_t allocs = host_alloc_count(), frees = host_free_count();
        int rc = simpler_callable_load_file(p, &img, &sz);
        host_alloc_fail_nth(0);
        if (rc == 0) {
            simpler_callable_free(img);
            break;
        }
        assert_int_equal(rc, PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        assert_non_null(strstr(simpler_last_error_message(), p));
        assert_ptr_equal(img, SENTINEL_IMAGE);
        assert_int_equal(sz, SENTINEL_SIZE);
        /* The k-th allocation failed; the k - 1 before it were released. */
        assert_int_equal(host_alloc_count() - allocs, k);
        assert_int_equal(host_free_count() - frees, k - 1);
        assert_true(k < 16);
    }
    assert_true(k > 1); /* at least one allocation point was failed */
    (void)image;
    (void)size;
}

static void callable_free_null_is_a_no_op(void **state)
{
    (void)state;
    uint64_t frees = host_free_count();
    simpler_callable_free(NULL);
    assert_int_equal(host_free_count(), frees);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(load_file_reads_every_byte_into_aligned_memory),
        cmocka_unit_test(load_file_reads_a_built_image_that_passes_the_check),
        cmocka_unit_test(load_file_null_arguments_are_invalid_argument),
        cmocka_unit_test(load_file_missing_file_is_invalid_argument_naming_the_path),
        cmocka_unit_test(load_file_directory_and_empty_file_are_invalid_argument),
        cmocka_unit_test(load_file_out_of_memory_sweep),
        cmocka_unit_test(callable_free_null_is_a_no_op),
    };
    return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
