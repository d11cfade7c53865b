/* simpler_run_times' refusals: a NULL argument or a wrong struct_size
 * (-1005) and a context with no completed run (-1003), none writing *out.
 * The figures of a completed run are checked against program mode in
 * tests/integration/program. */
#include <string.h>

#include "support.h"

#include "simpler/runtime_c_api.h"

static int untouched(const SimplerRunTimes *t, uint32_t struct_size)
{
    SimplerRunTimes seven;
    memset(&seven, 7, sizeof(seven));
    seven.struct_size = struct_size;
    return memcmp(t, &seven, sizeof(seven)) == 0;
}

static void run_times_refusals_write_nothing(void **state)
{
    SimplerRunTimes t;
    DeviceContextHandle ctx = create_device_context();
    (void)state;
    assert_non_null(ctx);

    memset(&t, 7, sizeof(t));
    t.struct_size = sizeof(t);
    assert_int_equal(simpler_run_times(NULL, &t), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_run_times(ctx, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_true(untouched(&t, sizeof(t)));

    /* A caller built against another layout is refused, not half-served. */
    const uint32_t wrong[] = {0, sizeof(t) - 8, sizeof(t) + 8, UINT32_MAX};
    for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
        memset(&t, 7, sizeof(t));
        t.struct_size = wrong[i];
        assert_int_equal(simpler_run_times(ctx, &t), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
        assert_true(untouched(&t, wrong[i]));
    }

    /* No run has completed on a context never initialized. */
    memset(&t, 7, sizeof(t));
    t.struct_size = sizeof(t);
    assert_int_equal(simpler_run_times(ctx, &t), PTO_RUNTIME_ERR_INVALID_STATE);
    assert_true(untouched(&t, sizeof(t)));
    destroy_device_context(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_times_refusals_write_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
