/*
 * Process state: configuration, lazy start, the per-thread current device,
 * and simdev_finalize.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "common/host_alloc.h"
#include "simdev/sd_internal.h"

struct sd_global sd_g = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .cv = PTHREAD_COND_INITIALIZER,
    .ev_mu = PTHREAD_MUTEX_INITIALIZER,
    .ev_cv = PTHREAD_COND_INITIALIZER,
};

/* The current device is per thread; the generation resets it to 0 after
 * simdev_finalize. */
static _Thread_local int thread_device;
static _Thread_local uint64_t thread_device_generation;
static _Thread_local int thread_capture_mode = SIMDEV_CAPTURE_MODE_GLOBAL;

int sd_current_device(void)
{
    if (thread_device_generation != atomic_load(&sd_g.generation))
        return 0;
    return thread_device;
}

int sd_thread_capture_mode(void)
{
    return thread_capture_mode;
}

int simdev_config_default(simdev_config *config)
{
    if (config == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    memset(config, 0, sizeof(*config));
    config->struct_size = sizeof(*config);
    config->device_count = 2;
    config->hbm_bytes = 256ull << 20;
    config->aic_cores = 2;
    config->aiv_cores = 4;
    config->aicpu_threads = 3;
    config->debug_fill = 1;
    config->engine_affinity = 1;
    return SIMDEV_SUCCESS;
}

static int config_valid(const simdev_config *c)
{
    uint64_t aicore = (uint64_t)c->aic_cores + c->aiv_cores;
    if (c->struct_size != sizeof(*c) || c->device_count < 1 || c->device_count > SIMDEV_MAX_DEVICES)
        return 0;
    if (c->hbm_bytes < (1u << 20) || c->hbm_bytes % SIMDEV_ALLOC_ALIGN != 0 || c->hbm_bytes > (1ull << 40))
        return 0;
    if (aicore < 1 || aicore > SIMDEV_MAX_ENGINE_THREADS)
        return 0;
    if (c->aicpu_threads < 1 || c->aicpu_threads > SIMDEV_MAX_ENGINE_THREADS)
        return 0;
    if (c->engine_affinity > 1 || c->reserved0 != 0)
        return 0;
    for (size_t i = 0; i < sizeof(c->reserved) / sizeof(c->reserved[0]); i++)
        if (c->reserved[i] != 0)
            return 0;
    return 1;
}

int simdev_configure(const simdev_config *config)
{
    if (config == NULL || !config_valid(config))
        return SIMDEV_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&sd_g.lock);
    int rc = SIMDEV_ERROR_REPEAT_INITIALIZE;
    if (!sd_g.started) {
        sd_g.cfg = *config;
        sd_g.configured = 1;
        rc = SIMDEV_SUCCESS;
    }
    pthread_mutex_unlock(&sd_g.lock);
    return rc;
}

/* An environment override replaces a field only when it parses fully. */
static void env_u64(const char *name, uint64_t *field)
{
    const char *text = getenv(name);
    if (text == NULL || *text == '\0')
        return;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 0);
    if (*end == '\0')
        *field = v;
}

static void env_u32(const char *name, uint32_t *field)
{
    uint64_t v = *field;
    env_u64(name, &v);
    if (v <= UINT32_MAX)
        *field = (uint32_t)v;
}

static void config_from_env(simdev_config *c)
{
    simdev_config trial;
    simdev_config_default(c);
    trial = *c;
    env_u32("SIMDEV_DEVICE_COUNT", &trial.device_count);
    env_u64("SIMDEV_HBM_BYTES", &trial.hbm_bytes);
    env_u32("SIMDEV_AIC_CORES", &trial.aic_cores);
    env_u32("SIMDEV_AIV_CORES", &trial.aiv_cores);
    env_u32("SIMDEV_AICPU_THREADS", &trial.aicpu_threads);
    env_u32("SIMDEV_ENGINE_AFFINITY", &trial.engine_affinity);
    if (config_valid(&trial))
        *c = trial;
}

static int start(void)
{
    if (!sd_g.configured)
        config_from_env(&sd_g.cfg);
    uint32_t n = sd_g.cfg.device_count;
    for (uint32_t d = 0; d < n; d++) {
        struct sd_device *dev = &sd_g.dev[d];
        if (sd_heap_init(&dev->heap, sd_g.cfg.hbm_bytes, sd_g.cfg.debug_fill != 0) != 0) {
            while (d-- > 0)
                sd_heap_deinit(&sd_g.dev[d].heap);
            return SIMDEV_ERROR_MEMORY_ALLOCATION;
        }
    }
    struct sd_cpus place[2];
    sd_engine_placement(&sd_g.cfg, place);
    for (uint32_t d = 0; d < n; d++) {
        char name[32];
        snprintf(name, sizeof(name), "simdev%u-aicpu", d);
        sd_pool_init(&sd_g.dev[d].pools[SIMDEV_ENGINE_AICPU], name, sd_g.cfg.aicpu_threads, &place[SIMDEV_ENGINE_AICPU]);
        snprintf(name, sizeof(name), "simdev%u-aicore", d);
        sd_pool_init(&sd_g.dev[d].pools[SIMDEV_ENGINE_AICORE], name, sd_g.cfg.aic_cores + sd_g.cfg.aiv_cores,
                     &place[SIMDEV_ENGINE_AICORE]);
    }
    sd_g.started = 1;
    return 0;
}

int sd_lock_started(void)
{
    pthread_mutex_lock(&sd_g.lock);
    if (sd_g.started)
        return 0;
    int rc = start();
    if (rc != 0)
        pthread_mutex_unlock(&sd_g.lock);
    return rc;
}

void sd_unlock(void)
{
    pthread_mutex_unlock(&sd_g.lock);
}

int simdev_get_config(simdev_config *out)
{
    if (out == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    int rc = sd_lock_started();
    if (rc != 0)
        return rc;
    *out = sd_g.cfg;
    sd_unlock();
    return SIMDEV_SUCCESS;
}

int simdev_set_device(int device_id)
{
    int rc = sd_lock_started();
    if (rc != 0)
        return rc;
    int count = (int)sd_g.cfg.device_count;
    sd_unlock();
    if (device_id < 0 || device_id >= count)
        return SIMDEV_ERROR_INVALID_DEVICE;
    thread_device = device_id;
    thread_device_generation = atomic_load(&sd_g.generation);
    return SIMDEV_SUCCESS;
}

int simdev_get_device(int *device_id)
{
    if (device_id == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    *device_id = sd_current_device();
    return SIMDEV_SUCCESS;
}

int simdev_capture_thread_exchange_mode(simdev_capture_mode *mode)
{
    if (mode == NULL || (int)*mode < SIMDEV_CAPTURE_MODE_GLOBAL || *mode > SIMDEV_CAPTURE_MODE_RELAXED)
        return SIMDEV_ERROR_INVALID_PARAM;
    int previous = thread_capture_mode;
    thread_capture_mode = (int)*mode;
    *mode = (simdev_capture_mode)previous;
    return SIMDEV_SUCCESS;
}

int simdev_finalize(void)
{
    pthread_mutex_lock(&sd_g.lock);
    if (!sd_g.started) {
        sd_g.configured = 0;
        pthread_mutex_unlock(&sd_g.lock);
        return SIMDEV_SUCCESS;
    }
    if (sd_g.sessions.count != 0) {
        pthread_mutex_unlock(&sd_g.lock);
        return SIMDEV_ERROR_STREAM_CAPTURED;
    }
    for (uint32_t d = 0; d < sd_g.cfg.device_count; d++) {
        sd_device_teardown((int)d);
        sd_pool_deinit(&sd_g.dev[d].pools[SIMDEV_ENGINE_AICPU]);
        sd_pool_deinit(&sd_g.dev[d].pools[SIMDEV_ENGINE_AICORE]);
        sd_heap_deinit(&sd_g.dev[d].heap);
    }
    sd_vec_deinit(&sd_g.streams);
    sd_vec_deinit(&sd_g.events);
    sd_vec_deinit(&sd_g.graphs);
    sd_vec_deinit(&sd_g.sessions);
    sd_counters_reset();
    atomic_fetch_add(&sd_g.generation, 1);
    sd_g.started = 0;
    sd_g.configured = 0;
    pthread_mutex_unlock(&sd_g.lock);
    return SIMDEV_SUCCESS;
}
