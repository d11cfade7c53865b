/* device_validate_desc: every malformed descriptor field is refused as a
 * bad packet, an image larger than its region as a capacity error, and a
 * well-formed descriptor passes. Pure host checks, no device. */
#include "device_test_util.h"

#include "device/device_validate.h"

static device_run_desc good(void)
{
    static uint64_t arena[8192];
    device_run_desc d;
    memset(&d, 0, sizeof(d));
    d.version = DEVICE_RUN_DESC_VERSION;
    d.desc_bytes = sizeof(d);
    d.aic_count = 1;
    d.aiv_count = 1;
    d.task_count = 10;
    d.image_bytes = 512;
    d.inline_bytes = 512;
    d.runtime_base = d.definition_base = d.scheduler_base = (uintptr_t)arena;
    d.runtime_bytes = graph_runtime_arena_bytes(10);
    d.definition_bytes = 512;
    d.kernels = &dt_table;
    return d;
}

static void validate_desc_accepts_a_well_formed_descriptor(void **state)
{
    (void)state;
    device_run_desc d = good();
    assert_int_equal(device_validate_desc(&d), DEVICE_STATUS_OK);
    d.inline_bytes = 0; /* program mode */
    assert_int_equal(device_validate_desc(&d), DEVICE_STATUS_OK);
    d.trace_base = 64;
    d.trace_bytes = device_trace_bytes(0);
    assert_int_equal(device_validate_desc(&d), DEVICE_STATUS_OK);
    d.aic_started = 0; /* only the AIV core starts */
    d.aiv_started = 1;
    assert_int_equal(device_validate_desc(&d), DEVICE_STATUS_OK);
    d.kernels = NULL; /* deferred, every core started */
    d.deferred = 1;
    d.aiv_started = 0;
    assert_int_equal(device_validate_desc(&d), DEVICE_STATUS_OK);
}

static void validate_desc_refuses_each_malformed_field_as_bad_packet(void **state)
{
    (void)state;
    device_run_desc d;
    int refused = 0;
#define BAD(stmt)                                                                                        \
    do {                                                                                                 \
        d = good();                                                                                      \
        stmt;                                                                                            \
        assert_int_equal(device_validate_desc(&d), DEVICE_ERR_PACKET_INVALID);                           \
        refused++;                                                                                       \
    } while (0)
    BAD(d.version++);
    BAD(d.desc_bytes--);
    BAD(d.aic_count = 0; d.aiv_count = 0);
    BAD(d.aiv_count = DEVICE_CORE_MAX);
    BAD(d.aic_count = UINT32_MAX);
    BAD(d.task_count = 0);
    BAD(d.task_count = GRAPH_TASK_WINDOW_MAX + 1);
    BAD(d.kernels = NULL);
    BAD(d.runtime_base = 0);
    BAD(d.definition_base = 0);
    BAD(d.scheduler_base = 0);
    BAD(d.inline_bytes = 8);
    BAD(d.trace_base = 64; d.trace_bytes = device_trace_bytes(0) - 1);
    BAD(d.runtime_bytes--);
    BAD(d.aic_started = 2);                       /* more started cores than the type has */
    BAD(d.aiv_started = 2);
    BAD(d.kernels = NULL; d.deferred = 1; d.aiv_started = 1); /* a deferred launch starts every core */
#undef BAD
    assert_int_equal(refused, 17);
}

static void validate_desc_refuses_image_above_definition_capacity(void **state)
{
    (void)state;
    device_run_desc d = good();
    d.definition_bytes = 504;
    assert_int_equal(device_validate_desc(&d), DEVICE_ERR_CAPACITY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(validate_desc_accepts_a_well_formed_descriptor),
        cmocka_unit_test(validate_desc_refuses_each_malformed_field_as_bad_packet),
        cmocka_unit_test(validate_desc_refuses_image_above_definition_capacity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
