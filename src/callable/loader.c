/* The callable loader: an ELF check, then memfd + dlopen for every
 * binary of an image. */
#define _GNU_SOURCE

#include "callable/loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "callable/callable_image.h"
#include "callable/elf_check.h"
#include "common/error.h"
#include "common/host_alloc.h"
#include "simpler/runtime_c_api.h"

/* One binary: written to a fresh memory file, opened, `symbol` resolved. */
typedef struct loaded_binary {
    void *handle;
    void *symbol;
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

/* Every dlopen and dlclose of this file, the probe of fd_name_fresh
 * included, runs under one process-wide lock. The dynamic loader
 * serializes them anyway, under a lock of its own that ThreadSanitizer
 * cannot see: a probe that finds another thread's object by its fd name
 * and drops the last reference frees what that thread's dlopen
 * allocated, which TSan reports as a race. Recursive, so that a
 * binary's constructor that loads a callable does not deadlock. */
static pthread_mutex_t dl_lock;
static pthread_once_t dl_lock_once = PTHREAD_ONCE_INIT;

static void dl_lock_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&dl_lock, &a);
    pthread_mutexattr_destroy(&a);
}

static void dl_enter(void)
{
    pthread_once(&dl_lock_once, dl_lock_init);
    pthread_mutex_lock(&dl_lock);
}

static void dl_leave(void)
{
    pthread_mutex_unlock(&dl_lock);
}

static int descriptors_exhausted(int err)
{
    return err == EMFILE || err == ENFILE;
}

/* The dynamic loader finds an already loaded object by its path before
 * anything else, and the path /proc/self/fd/N of a descriptor closed
 * after its load stays that object's name. So *fd is moved to a number
 * whose path names no live object (each step passes one such object, so
 * this ends). Then one more descriptor is tried, the one dlopen itself
 * opens, so that running out of descriptors is told apart from a binary
 * dlopen rejects. Returns 0, or -1 with errno set. */
static int fd_name_fresh(int *fd, char *path, size_t path_bytes)
{
    for (;;) {
        snprintf(path, path_bytes, "/proc/self/fd/%d", *fd);
        int spare = fcntl(*fd, F_DUPFD_CLOEXEC, 0);
        if (spare < 0)
            return -1;
        void *live = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        close(spare);
        if (live == NULL)
            return 0;
        dlclose(live);
        /* Upwards only, so no number is tried twice. Past the limit
         * F_DUPFD says EINVAL: that too is running out of descriptors. */
        int next = fcntl(*fd, F_DUPFD_CLOEXEC, *fd + 1);
        if (next < 0) {
            errno = errno == EINVAL ? EMFILE : errno;
            return -1;
        }
        close(*fd);
        *fd = next;
    }
}

/* A memory file holding `size` bytes, its descriptor in *fd and a path
 * dlopen can load it by in `path`. */
static int memfile_make(const uint8_t *bytes, size_t size, const char *who, int *fd, char *path, size_t path_bytes)
{
    *fd = memfd_create("simpler-callable", MFD_CLOEXEC);
    if (*fd < 0 || write_all(*fd, bytes, size) != 0 || fd_name_fresh(fd, path, path_bytes) != 0) {
        int err = errno;
        if (*fd >= 0)
            close(*fd);
        *fd = -1;
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "callable image: %s: no memory file to load it from: %s%s",
                           who, strerror(err), descriptors_exhausted(err) ? " (file descriptors exhausted)" : "");
    }
    return 0;
}

/* Loads a checked binary from a memory file and resolves `symbol`. The
 * memory file is closed once loaded: the mapping keeps its pages, so a
 * loaded binary holds no descriptor. */
static int binary_load(const uint8_t *bytes, size_t size, const char *symbol, const char *who, loaded_binary *out)
{
    int fd;
    char path[64];
    dl_enter();
    int rc = memfile_make(bytes, size, who, &fd, path, sizeof path);
    void *handle = rc == 0 ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (rc == 0)
        close(fd);
    dl_leave();
    if (rc != 0)
        return rc;
    if (handle == NULL) {
        const char *why = dlerror();
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT,
                            "callable image: %s binary rejected by dlopen (not a shared object for this machine, or "
                            "an unresolved symbol): %s",
                            who, why != NULL ? why : "no reason given");
    }
    void *sym = dlsym(handle, symbol);
    if (sym == NULL) {
        dl_enter();
        dlclose(handle);
        dl_leave();
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable image: %s does not export %s", who, symbol);
    }
    out->handle = handle;
    out->symbol = sym;
    return 0;
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
        lc->kernel_index[k->func_id] = (int16_t)i;
    }
    return lc;
}

static void child_name(const callable_view *v, uint32_t i, char *who, size_t who_bytes)
{
    snprintf(who, who_bytes, "child %u (func_id %d)", i, v->children[i].func_id);
}

/* Every binary an ELF shared object for this host, before any is loaded. */
static int binaries_check(const callable_view *v)
{
    char why[ELF_CHECK_REASON_BYTES], who[48];
    if (elf_shared_object_check(v->orchestration, v->orchestration_size, why) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable image: the orchestration: %s", why);
    for (uint32_t i = 0; i < v->child_count; i++) {
        if (elf_shared_object_check(callable_view_child_binary(v, i), (size_t)v->children[i].binary_size, why) != 0) {
            child_name(v, i, who, sizeof who);
            return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable image: %s: %s", who, why);
        }
    }
    return 0;
}

static int binaries_load(loaded_callable *lc, const callable_view *v)
{
    loaded_binary b;
    int rc = binary_load(v->orchestration, v->orchestration_size, v->entry_name, "orchestration", &b);
    if (rc != 0)
        return rc;
    lc->orch_handle = b.handle;
    /* The symbol is a function; POSIX guarantees the conversion. */
    memcpy(&lc->orch_entry, &b.symbol, sizeof lc->orch_entry);
    for (uint32_t i = 0; i < v->child_count; i++) {
        const SimplerCallableChild *c = &v->children[i];
        char who[48];
        child_name(v, i, who, sizeof who);
        rc = binary_load(callable_view_child_binary(v, i), (size_t)c->binary_size, SIMPLER_CALLABLE_KERNEL_ENTRY, who,
                         &b);
        if (rc != 0)
            return rc;
        lc->kernels[i].handle = b.handle;
        lc->kernels[i].entry = b.symbol;
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
    int rc = binaries_check(&v);
    if (rc != 0)
        return rc;
    loaded_callable *lc = loaded_create(&v);
    if (lc == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_OUT_OF_MEMORY, "callable: host memory for the loaded callable ran out");
    lc->kernel_count = v.child_count;
    rc = binaries_load(lc, &v);
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
    dl_enter();
    for (uint32_t i = lc->kernel_count; i-- > 0;) {
        if (lc->kernels[i].handle != NULL)
            dlclose(lc->kernels[i].handle);
    }
    if (lc->orch_handle != NULL)
        dlclose(lc->orch_handle);
    dl_leave();
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
