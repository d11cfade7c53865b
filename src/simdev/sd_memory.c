/* Device memory entry points: malloc/free, synchronous copies, mem info;
 * and the copy every simdev copy runs (sd_copy). */
#include <string.h>

#include "simdev/sd_internal.h"

void sd_copy(void *dst, const void *src, size_t size)
{
    memmove(dst, src, size);
}

/* Under sd_g.lock: the current device's heap, or NULL when the thread's
 * device is out of range (after a reconfiguration). */
static struct sd_heap *current_heap(void)
{
    int d = sd_current_device();
    if (d < 0 || (uint32_t)d >= sd_g.cfg.device_count)
        return NULL;
    return &sd_g.dev[d].heap;
}

int simdev_malloc(void **dev_ptr, size_t size)
{
    int rc = sd_call(SIMDEV_CALL_MALLOC);
    if (rc != 0)
        return rc;
    if (dev_ptr == NULL || size == 0)
        return SIMDEV_ERROR_INVALID_PARAM;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    struct sd_heap *h = current_heap();
    void *p = NULL;
    rc = h == NULL ? SIMDEV_ERROR_INVALID_DEVICE : sd_heap_alloc(h, size, &p);
    sd_unlock();
    if (rc == 0)
        *dev_ptr = p;
    return rc;
}

int simdev_free(void *dev_ptr)
{
    int rc = sd_call(SIMDEV_CALL_FREE);
    if (rc != 0)
        return rc;
    if (dev_ptr == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    struct sd_heap *h = current_heap();
    rc = h == NULL ? SIMDEV_ERROR_INVALID_DEVICE : sd_heap_free(h, dev_ptr);
    sd_unlock();
    return rc;
}

/* Under sd_g.lock: the checks shared by synchronous copies and sets. */
static int sync_copy_check(void *dst, const void *src, size_t size, int is_copy)
{
    struct sd_heap *h = current_heap();
    if (h == NULL)
        return SIMDEV_ERROR_INVALID_DEVICE;
    if (dst == NULL || (is_copy && src == NULL))
        return SIMDEV_ERROR_INVALID_PARAM;
    if (sd_capture_refuses_sync_copy())
        return SIMDEV_ERROR_CAPTURE_MODE_NOT_SUPPORT;
    int inside = sd_heap_contains(h, dst, size) || (is_copy && sd_heap_contains(h, src, size));
    return inside ? 0 : SIMDEV_ERROR_INVALID_PARAM;
}

/* The copy runs under sd_g.lock so that a concurrent simdev_free of the
 * same allocation cannot unmap or poison it halfway through. */
int simdev_memcpy(void *dst, const void *src, size_t size)
{
    int rc = sd_call(SIMDEV_CALL_MEMCPY_SYNC);
    if (rc != 0)
        return rc;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    rc = sync_copy_check(dst, src, size, 1);
    if (rc == 0 && size > 0)
        sd_copy(dst, src, size);
    sd_unlock();
    return rc;
}

int simdev_memset(void *dev_ptr, int value, size_t size)
{
    int rc = sd_call(SIMDEV_CALL_MEMSET);
    if (rc != 0)
        return rc;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    rc = sync_copy_check(dev_ptr, NULL, size, 0);
    if (rc == 0 && size > 0)
        memset(dev_ptr, value, size);
    sd_unlock();
    return rc;
}

int simdev_get_mem_info(int device_id, simdev_mem_info *out)
{
    if (out == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    int rc = sd_lock_started();
    if (rc != 0)
        return rc;
    if (device_id < 0 || (uint32_t)device_id >= sd_g.cfg.device_count) {
        sd_unlock();
        return SIMDEV_ERROR_INVALID_DEVICE;
    }
    const struct sd_heap *h = &sd_g.dev[device_id].heap;
    out->hbm_bytes = h->bytes;
    out->committed_bytes = h->committed;
    out->high_water_bytes = h->high_water;
    out->live_allocations = h->live_count;
    sd_unlock();
    return SIMDEV_SUCCESS;
}
