/* The callable loader: memfd + dlopen for every binary of an image. */
#define _GNU_SOURCE

#include "callable/loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "callable/callable_image.h"
#include "common/error.h"
#include "common/host_alloc.h"
#include "simpler/runtime_c_api.h"

/* One binary: written to a fresh memory file, opened, `symbol` resolved. */
typedef struct loaded_binary {
    void *handle;
    void *symbol;
    int fd;
} loaded_binary;

static int write_all(int fd, const uint8_t *bytes, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, bytes, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        bytes += n;
        size -= (size_t)n;
    }
    return 0;
}

/* `what` names the binary in a refusal's reason ("orchestration",
 * "child 2 (func_id 7)"). */
static int binary_load(const uint8_t *bytes, size_t size, const char *symbol, const char *what,
                       loaded_binary *out)
{
    int rc = PTO_RUNTIME_ERR_OUT_OF_MEMORY;
    int fd = memfd_create("simpler-callable", MFD_CLOEXEC);
    if (fd < 0)
        return simpler_fail(rc, "callable image: %s: no memory file for the binary (%s)", what, strerror(errno));
    if (write_all(fd, bytes, size) != 0) {
        simpler_fail(rc, "callable image: %s: writing the binary to its memory file failed", what);
        goto err_close_fd;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    rc = PTO_RUNTIME_ERR_INVALID_ARGUMENT;
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *why = dlerror();
        simpler_fail(rc, "callable image: %s binary rejected by dlopen (not a shared object for this machine, or "
                         "an unresolved symbol): %s",
                     what, why != NULL ? why : "no reason given");
        goto err_close_fd;
    }
    void *sym = dlsym(handle, symbol);
    if (sym == NULL) {
        simpler_fail(rc, "callable image: %s does not export %s", what, symbol);
        goto err_dlclose;
    }
    out->handle = handle;
    out->symbol = sym;
    out->fd = fd;
    return 0;

err_dlclose:
    dlclose(handle);
err_close_fd:
    close(fd);
    return rc;
}

static void binary_unload(void *handle, int fd)
{
    if (handle != NULL)
        dlclose(handle);
    if (fd >= 0)
        close(fd);
}

/* Allocates the loaded_callable and copies the image's metadata in; no
 * binary is loaded yet. */
static loaded_callable *loaded_create(const callable_view *v)
{
    loaded_callable *lc = host_calloc(1, sizeof *lc);
    if (lc == NULL)
        return NULL;
    if (v->child_count != 0) {
        lc->kernels = host_calloc(v->child_count, sizeof *lc->kernels);
        if (lc->kernels == NULL) {
            host_free(lc);
            return NULL;
        }
    }
    lc->orch_fd = -1;
    memcpy(lc->entry_name, v->entry_name, sizeof lc->entry_name);
    lc->signature_count = v->signature_count;
    lc->tensor_count = v->tensor_count;
    lc->scalar_count = v->scalar_count;
    memcpy(lc->signature, v->signature, v->signature_count);
    for (size_t i = 0; i < SIMPLER_CALLABLE_FUNC_ID_LIMIT; i++)
        lc->kernel_index[i] = -1;
    for (uint32_t i = 0; i < v->child_count; i++) {
        callable_kernel *k = &lc->kernels[i];
        k->func_id = v->children[i].func_id;
        k->core_type = v->children[i].core_type;
        k->signature_count = v->children[i].signature_count;
        memcpy(k->signature, v->children[i].signature, sizeof k->signature);
        if (callable_view_kernel_name(v, i) != NULL)
            memcpy(k->name, callable_view_kernel_name(v, i), sizeof k->name);
        k->fd = -1;
        lc->kernel_index[k->func_id] = (int16_t)i;
    }
    return lc;
}

static int binaries_load(loaded_callable *lc, const callable_view *v)
{
    loaded_binary b;
    int rc = binary_load(v->orchestration, v->orchestration_size, v->entry_name, "orchestration", &b);
    if (rc != 0)
        return rc;
    lc->orch_handle = b.handle;
    lc->orch_fd = b.fd;
    /* The symbol is a function; POSIX guarantees the conversion. */
    memcpy(&lc->orch_entry, &b.symbol, sizeof lc->orch_entry);
    for (uint32_t i = 0; i < v->child_count; i++) {
        const SimplerCallableChild *c = &v->children[i];
        char what[48];
        snprintf(what, sizeof what, "child %u (func_id %d)", i, c->func_id);
        rc = binary_load(callable_view_child_binary(v, i), (size_t)c->binary_size, SIMPLER_CALLABLE_KERNEL_ENTRY,
                         what, &b);
        if (rc != 0)
            return rc;
        lc->kernels[i].handle = b.handle;
        lc->kernels[i].entry = b.symbol;
        lc->kernels[i].fd = b.fd;
    }
    return 0;
}

int callable_load(const void *image, size_t size, callable_dlopen_counts *counts, loaded_callable **out)
{
    callable_view v;
    if (out == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable_load: NULL out");
    int checked = callable_image_check(image, size, &v);
    if (checked != 0)
        return checked;
    loaded_callable *lc = loaded_create(&v);
    if (lc == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "callable: host memory for the loaded callable ran out");
    lc->kernel_count = v.child_count;
    int rc = binaries_load(lc, &v);
    if (rc != 0) {
        callable_unload(lc);
        return rc;
    }
    if (counts != NULL) {
        atomic_fetch_add(&counts->host, 1);
        atomic_fetch_add(&counts->aicpu, v.child_count);
    }
    *out = lc;
    return 0;
}

void callable_unload(loaded_callable *lc)
{
    if (lc == NULL)
        return;
    /* Reverse order of loading: children, then the orchestration. */
    for (uint32_t i = lc->kernel_count; i-- > 0;)
        binary_unload(lc->kernels[i].handle, lc->kernels[i].fd);
    binary_unload(lc->orch_handle, lc->orch_fd);
    host_free(lc->kernels);
    host_free(lc);
}

const callable_kernel *callable_kernel_find(const loaded_callable *lc, int32_t func_id)
{
    if (lc == NULL || func_id < 0 || func_id >= SIMPLER_CALLABLE_FUNC_ID_LIMIT)
        return NULL;
    int16_t i = lc->kernel_index[func_id];
    return i < 0 ? NULL : &lc->kernels[i];
}
