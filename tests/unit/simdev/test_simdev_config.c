/*
 * simdev configuration: documented defaults, validation, the
 * configure-before-first-use rule, environment overrides, and finalize
 * making simdev configurable again.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "simpler/simdev.h"

static const char *const env_names[] = {"SIMDEV_DEVICE_COUNT", "SIMDEV_HBM_BYTES", "SIMDEV_AIC_CORES",
                                        "SIMDEV_AIV_CORES", "SIMDEV_AICPU_THREADS", "SIMDEV_ENGINE_AFFINITY"};

static int clean_start(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof env_names / sizeof env_names[0]; i++)
        unsetenv(env_names[i]);
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

static int clean_end(void **state)
{
    return clean_start(state);
}

static simdev_config small_config(void)
{
    simdev_config c;
    assert_int_equal(simdev_config_default(&c), SIMDEV_SUCCESS);
    c.device_count = 1;
    c.hbm_bytes = 4u << 20;
    c.aic_cores = 1;
    c.aiv_cores = 1;
    c.aicpu_threads = 1;
    return c;
}

static void config_default_has_documented_values(void **state)
{
    (void)state;
    simdev_config c;
    memset(&c, 0xEE, sizeof c);
    assert_int_equal(simdev_config_default(&c), SIMDEV_SUCCESS);
    assert_int_equal(c.struct_size, sizeof c);
    assert_int_equal(c.device_count, 2);
    assert_int_equal(c.hbm_bytes, (uint64_t)256 << 20);
    assert_int_equal(c.aic_cores, 2);
    assert_int_equal(c.aiv_cores, 4);
    assert_int_equal(c.aicpu_threads, 3);
    assert_int_not_equal(c.debug_fill, 0);
    assert_int_equal(c.engine_affinity, 1);
    assert_int_equal(c.reserved0, 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(c.reserved[i], 0);
}

static void config_invalid_fields_refused_and_change_nothing(void **state)
{
    (void)state;
    simdev_config bad[11];
    for (int i = 0; i < 11; i++)
        bad[i] = small_config();
    bad[0].struct_size = sizeof bad[0] - 8;
    bad[1].device_count = 0;
    bad[2].device_count = SIMDEV_MAX_DEVICES + 1;
    bad[3].hbm_bytes = (1u << 20) - SIMDEV_ALLOC_ALIGN;
    bad[4].hbm_bytes = (4u << 20) + 1;
    bad[5].aicpu_threads = 0;
    bad[6].aicpu_threads = SIMDEV_MAX_ENGINE_THREADS + 1;
    bad[7].aic_cores = SIMDEV_MAX_ENGINE_THREADS;
    bad[8].reserved[2] = 1;
    bad[9].reserved0 = 1;
    bad[10].engine_affinity = 2;
    for (int i = 0; i < 11; i++) {
        int rc = simdev_configure(&bad[i]);
        if (rc != SIMDEV_ERROR_INVALID_PARAM)
            fail_msg("bad config %d returned %d", i, rc);
    }
    assert_int_equal(simdev_configure(NULL), SIMDEV_ERROR_INVALID_PARAM);
    /* Still unconfigured: a valid configuration is accepted. */
    simdev_config good = small_config();
    assert_int_equal(simdev_configure(&good), SIMDEV_SUCCESS);
    simdev_config now;
    assert_int_equal(simdev_get_config(&now), SIMDEV_SUCCESS);
    assert_memory_equal(&now, &good, sizeof now);
}

static void config_after_first_use_refused_with_repeat_initialize(void **state)
{
    (void)state;
    simdev_config first = small_config();
    assert_int_equal(simdev_configure(&first), SIMDEV_SUCCESS);
    void *ptr = NULL;
    assert_int_equal(simdev_malloc(&ptr, 64), SIMDEV_SUCCESS);
    simdev_config second = small_config();
    second.device_count = 2;
    assert_int_equal(simdev_configure(&second), SIMDEV_ERROR_REPEAT_INITIALIZE);
    simdev_config now;
    assert_int_equal(simdev_get_config(&now), SIMDEV_SUCCESS);
    assert_int_equal(now.device_count, 1);
    assert_int_equal(simdev_set_device(1), SIMDEV_ERROR_INVALID_DEVICE);
    assert_int_equal(simdev_free(ptr), SIMDEV_SUCCESS);
}

static void config_first_use_starts_with_defaults(void **state)
{
    (void)state;
    simdev_config now, defaults;
    assert_int_equal(simdev_get_config(&now), SIMDEV_SUCCESS);
    assert_int_equal(simdev_config_default(&defaults), SIMDEV_SUCCESS);
    assert_memory_equal(&now, &defaults, sizeof now);
    simdev_config again = small_config();
    assert_int_equal(simdev_configure(&again), SIMDEV_ERROR_REPEAT_INITIALIZE);
}

static void config_environment_overrides_defaults(void **state)
{
    (void)state;
    setenv("SIMDEV_DEVICE_COUNT", "3", 1);
    setenv("SIMDEV_HBM_BYTES", "2097152", 1);
    setenv("SIMDEV_AICPU_THREADS", "1", 1);
    setenv("SIMDEV_ENGINE_AFFINITY", "0", 1);
    simdev_mem_info info;
    assert_int_equal(simdev_get_mem_info(2, &info), SIMDEV_SUCCESS);
    assert_int_equal(info.hbm_bytes, 2u << 20);
    simdev_config now;
    assert_int_equal(simdev_get_config(&now), SIMDEV_SUCCESS);
    assert_int_equal(now.device_count, 3);
    assert_int_equal(now.aicpu_threads, 1);
    assert_int_equal(now.aic_cores, 2);
    assert_int_equal(now.engine_affinity, 0);
    assert_int_equal(simdev_set_device(3), SIMDEV_ERROR_INVALID_DEVICE);
}

static void config_finalize_allows_configure_again(void **state)
{
    (void)state;
    simdev_config first = small_config();
    assert_int_equal(simdev_configure(&first), SIMDEV_SUCCESS);
    simdev_stream_t stream = NULL;
    assert_int_equal(simdev_stream_create(&stream), SIMDEV_SUCCESS);
    assert_int_equal(simdev_finalize(), SIMDEV_SUCCESS);
    simdev_config second = small_config();
    second.device_count = 2;
    assert_int_equal(simdev_configure(&second), SIMDEV_SUCCESS);
    assert_int_equal(simdev_set_device(1), SIMDEV_SUCCESS);
    assert_int_equal(simdev_set_device(0), SIMDEV_SUCCESS);
    assert_int_equal(simdev_finalize(), SIMDEV_SUCCESS);
    assert_int_equal(simdev_finalize(), SIMDEV_SUCCESS);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, clean_start, clean_end)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(config_default_has_documented_values),
        TEST(config_invalid_fields_refused_and_change_nothing),
        TEST(config_after_first_use_refused_with_repeat_initialize),
        TEST(config_first_use_starts_with_defaults),
        TEST(config_environment_overrides_defaults),
        TEST(config_finalize_allows_configure_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
