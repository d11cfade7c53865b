/* Configures simdev for a suite: the defaults (debug fill on) with the
 * device count, HBM size and engine threads the suite asks for. */
#ifndef SIMPLER_TEST_SIMDEV_SETUP_H
#define SIMPLER_TEST_SIMDEV_SETUP_H

#include <stdint.h>

#include "simpler/simdev.h"

/* 0 when simdev is configured with `devices` devices of `hbm_bytes` HBM
 * each, `aic` + `aiv` AI cores and `aicpu` AICPU threads; -1 otherwise. */
static inline int simdev_setup_configure(uint32_t devices, uint64_t hbm_bytes, uint32_t aic, uint32_t aiv,
                                         uint32_t aicpu)
{
    simdev_config config;
    if (simdev_config_default(&config) != SIMDEV_SUCCESS)
        return -1;
    config.device_count = devices;
    config.hbm_bytes = hbm_bytes;
    config.aic_cores = aic;
    config.aiv_cores = aiv;
    config.aicpu_threads = aicpu;
    return simdev_configure(&config) == SIMDEV_SUCCESS ? 0 : -1;
}

/* Captures one launch of `fn` (one block, no arguments) on `engine`,
 * enqueued on `stream`, into *out. SIMDEV_SUCCESS, or the status of
 * the call that failed. */
static inline int simdev_setup_capture_kernel(simdev_stream_t stream, simdev_engine engine, simdev_kernel_fn fn,
                                              simdev_graph_t *out)
{
    int rc = simdev_capture_begin(stream, SIMDEV_CAPTURE_MODE_GLOBAL);
    rc = rc ? rc : simdev_launch_kernel(stream, engine, fn, 1, NULL, 0);
    return rc ? rc : simdev_capture_end(stream, out);
}

#endif
