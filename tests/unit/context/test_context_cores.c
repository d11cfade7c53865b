/* CallConfig.aicore_count means the same cores in both modes: one split
 * (context_cores_split) over AIC and AIV in the device's proportion,
 * keeping one AIC core; program runs and kernel init both use it. */
#include "support.h"

#include <stdlib.h>

#include "context/context.h"
#include "context/context_internal.h"
#include "kernel/kernel_state.h"
#include "program/program_run.h"
#include "simdev_setup.h"

struct split_case {
    uint32_t device_aic, device_aiv, count, aic, aiv;
};

static void cores_split_follows_the_device_s_proportion(void **state)
{
    static const struct split_case cases[] = {
        {2, 4, 0, 2, 4}, {2, 4, 1, 1, 0}, {2, 4, 2, 1, 1}, {2, 4, 3, 1, 2}, {2, 4, 5, 1, 4},
        {2, 4, 6, 2, 4}, {2, 4, 99, 2, 4}, {4, 4, 4, 2, 2}, {4, 4, 2, 1, 1}, {4, 4, 7, 3, 4},
        {1, 8, 3, 1, 2}, {6, 1, 6, 5, 1}, {0, 4, 2, 0, 2},
    };
    (void)state;
    simpler_context *ctx = calloc(1, sizeof(*ctx));
    assert_non_null(ctx);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct split_case *c = &cases[i];
        uint32_t aic = 99, aiv = 99;
        ctx->device_info.aic_cores = c->device_aic;
        ctx->device_info.aiv_cores = c->device_aiv;
        context_cores_split(ctx, c->count, &aic, &aiv);
        if (aic != c->aic || aiv != c->aiv)
            fail_msg("device %u AIC + %u AIV, aicore_count %u: %u + %u, want %u + %u", c->device_aic, c->device_aiv,
                     c->count, aic, aiv, c->aic, c->aiv);
    }
    free(ctx);
}

/* A device of 4 AIC + 4 AIV cores and aicore_count 4: 2 + 2 in both
 * modes (kernel init used to keep one AIC core and give AIV the rest,
 * 1 + 3, where program mode split 2 + 2). */
static void both_modes_split_a_count_the_same_way(void **state)
{
    (void)state;
    assert_int_equal(simdev_setup_configure(1, 64u << 20, 4, 4, 3), 0);
    CallConfig config;
    simpler_call_config_default(&config);
    config.aicore_count = 4;

    DeviceContextHandle program = create_device_context();
    assert_non_null(program);
    assert_int_equal(simpler_init(program, 0, NULL), 0);
    uint32_t aic = 0, aiv = 0;
    program_cores_split((simpler_context *)program, &config, &aic, &aiv);
    assert_int_equal(aic, 2);
    assert_int_equal(aiv, 2);
    assert_int_equal(finalize_device(program), 0);
    destroy_device_context(program);

    DeviceContextHandle kernel = create_device_context();
    assert_non_null(kernel);
    assert_int_equal(simpler_kernel_mode_init(kernel, 0, &config, 1), 0);
    const kernel_state *ks = kernel_state_of((simpler_context *)kernel);
    assert_int_equal(ks->aic_count, 2);
    assert_int_equal(ks->aiv_count, 2);
    assert_int_equal(finalize_device(kernel), 0);
    destroy_device_context(kernel);
    assert_int_equal(simdev_finalize(), SIMDEV_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cores_split_follows_the_device_s_proportion),
        cmocka_unit_test(both_modes_split_a_count_the_same_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
