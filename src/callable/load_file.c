/* simpler_callable_load_file / simpler_callable_free: an image file into
 * 64-byte aligned host memory, through the host allocation hook (so the
 * allocation is counted and can be failed by the sweeps).
 *
 * The block is over-allocated by SIMPLER_CALLABLE_ALIGN bytes; the
 * pointer host_alloc returned is kept in the word just below the aligned
 * address the caller gets, where simpler_callable_free finds it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "common/host_alloc.h"
#include "simpler/callable.h"
#include "simpler/runtime_c_api.h"

/* The word below `image` holds the block host_alloc returned. */
static void **block_slot(void *image)
{
    return (void **)image - 1;
}

/* An aligned buffer of `size` bytes, or NULL (host memory ran out). */
static void *aligned_block(size_t size)
{
    size_t extra = SIMPLER_CALLABLE_ALIGN + sizeof(void *);
    if (size > SIZE_MAX - extra)
        return NULL;
    void *block = host_alloc(size + extra);
    if (block == NULL)
        return NULL;
    uintptr_t at = ((uintptr_t)block + sizeof(void *) + SIMPLER_CALLABLE_ALIGN - 1) /
                   SIMPLER_CALLABLE_ALIGN * SIMPLER_CALLABLE_ALIGN;
    void *image = (void *)at;
    *block_slot(image) = block;
    return image;
}

/* Reads `size` bytes of `fd` into `buf`; 0, or the errno of the failure
 * (EIO for a file that ended early). */
static int read_all(int fd, unsigned char *buf, size_t size)
{
    size_t done = 0;
    while (done < size) {
        ssize_t n = read(fd, buf + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return EIO;
        done += (size_t)n;
    }
    return 0;
}

/* The file's size, checked: a regular, nonempty file that fits size_t. */
static int file_size(int fd, const char *path, size_t *size)
{
    const int bad = PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return simpler_fail(bad, "path '%s': cannot stat: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return simpler_fail(bad, "path '%s': not a regular file", path);
    if (st.st_size <= 0)
        return simpler_fail(bad, "path '%s': empty file", path);
    if ((uintmax_t)st.st_size > SIZE_MAX)
        return simpler_fail(bad, "path '%s': %jd bytes do not fit in memory", path, (intmax_t)st.st_size);
    *size = (size_t)st.st_size;
    return 0;
}

int simpler_callable_load_file(const char *path, void **image, size_t *size)
{
    simpler_error_clear();
    const int bad = PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    if (path == NULL)
        return simpler_fail(bad, "path: NULL");
    if (image == NULL)
        return simpler_fail(bad, "image: NULL (where the loaded image's address goes)");
    if (size == NULL)
        return simpler_fail(bad, "size: NULL (where the loaded image's size goes)");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return simpler_fail(bad, "path '%s': cannot open: %s", path, strerror(errno));
    size_t n = 0;
    int rc = file_size(fd, path, &n);
    void *bytes = rc == 0 ? aligned_block(n) : NULL;
    if (rc == 0 && bytes == NULL)
        rc = simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "path '%s': no host memory for its %zu bytes", path, n);
    int err = rc == 0 ? read_all(fd, bytes, n) : 0;
    if (err != 0)
        rc = simpler_fail(bad, "path '%s': cannot read: %s", path, strerror(err));
    close(fd);
    if (rc != 0) {
        simpler_callable_free(bytes);
        return rc;
    }
    *image = bytes;
    *size = n;
    return 0;
}

void simpler_callable_free(void *image)
{
    if (image != NULL)
        host_free(*block_slot(image));
}
