/* simpler_strerror and the one status table it is generated from. */
#include <string.h>

#include "support.h"

#include "simpler/runtime_c_api.h"

#define TABLE_CODE(name, value, message) value,
#define TABLE_NAME(name, value, message) #name,
static const int codes[] = {SIMPLER_STATUS_TABLE(TABLE_CODE)};
static const char *const names[] = {SIMPLER_STATUS_TABLE(TABLE_NAME)};
#define CODE_COUNT (sizeof codes / sizeof codes[0])

static void status_table_covers_every_spec_code(void **state)
{
    (void)state;
    assert_int_equal(CODE_COUNT, 24);
    for (int c = -1008; c <= -1000; c++) {
        int found = 0;
        for (size_t i = 0; i < CODE_COUNT; i++)
            found += codes[i] == c;
        assert_int_equal(found, 1);
    }
}

static void status_every_code_has_distinct_name(void **state)
{
    (void)state;
    for (size_t i = 0; i < CODE_COUNT; i++) {
        for (size_t j = i + 1; j < CODE_COUNT; j++) {
            assert_int_not_equal(codes[i], codes[j]);
            assert_string_not_equal(names[i], names[j]);
            assert_string_not_equal(simpler_strerror(codes[i]), simpler_strerror(codes[j]));
        }
    }
}

static void status_strerror_is_name_colon_message(void **state)
{
    (void)state;
    for (size_t i = 0; i < CODE_COUNT; i++) {
        const char *s = simpler_strerror(codes[i]);
        size_t n = strlen(names[i]);
        assert_non_null(s);
        assert_int_equal(strncmp(s, names[i], n), 0);
        assert_int_equal(strncmp(s + n, ": ", 2), 0);
        assert_true(strlen(s + n + 2) > 0);
    }
    assert_string_equal(simpler_strerror(-1005),
                        "PTO_RUNTIME_ERR_INVALID_ARGUMENT: malformed argument (NULL, range, layout, image)");
    assert_string_equal(simpler_strerror(0), "PTO_RUNTIME_SUCCESS: success");
}

/* The codes the device latches are ABI: their values are pinned here. */
static void status_device_codes_have_pinned_values(void **state)
{
    (void)state;
    assert_int_equal(PTO_DEVICE_ERR_IMAGE_INVALID, -1);
    assert_int_equal(PTO_DEVICE_ERR_PACKET_INVALID, -2);
    assert_int_equal(PTO_DEVICE_ERR_GENERATION, -3);
    assert_int_equal(PTO_DEVICE_ERR_MISSING_KERNEL, -4);
    assert_int_equal(PTO_DEVICE_ERR_CAPACITY, -5);
    assert_int_equal(PTO_DEVICE_ERR_CORE_TYPE, -6);
    assert_int_equal(PTO_DEVICE_ERR_NO_CORE, -7);
    assert_int_equal(PTO_DEVICE_ERR_PACKET_HEADER, -16);
    assert_int_equal(PTO_DEVICE_ERR_PACKET_CHECKSUM, -17);
    assert_int_equal(PTO_DEVICE_ERR_PACKET_SLOT, -18);
    assert_int_equal(PTO_DEVICE_ERR_PACKET_REGION, -19);
    assert_int_equal(PTO_DEVICE_ERR_ARG_SLOT_EMPTY, -20);
    assert_int_equal(PTO_DEVICE_ERR_ARG_SLOT_STALE, -21);
    assert_int_equal(PTO_DEVICE_ERR_EXECUTION_OVERLAP, -23);
    for (size_t i = 0; i < CODE_COUNT; i++) {
        if (codes[i] < 0 && codes[i] > -1000) {
            assert_true(codes[i] >= SIMPLER_DEVICE_ERROR_MIN && codes[i] <= SIMPLER_DEVICE_ERROR_MAX);
            assert_int_equal(strncmp(names[i], "PTO_DEVICE_ERR_", 15), 0);
        }
    }
}

static void status_device_code_is_named_by_strerror(void **state)
{
    (void)state;
    assert_string_equal(simpler_strerror(-4),
                        "PTO_DEVICE_ERR_MISSING_KERNEL: a task's func_id names no kernel of the callable");
    assert_int_equal(strncmp(simpler_strerror(-7), "PTO_DEVICE_ERR_NO_CORE: ", 24), 0);
}

static void status_unnamed_device_range_is_device_or_orchestration(void **state)
{
    (void)state;
    const int device_codes[] = {-8, -15, -22, -24, -500, -999};
    for (size_t i = 0; i < sizeof device_codes / sizeof device_codes[0]; i++)
        assert_string_equal(simpler_strerror(device_codes[i]),
                            "PTO_DEVICE_ERROR: error latched on the device or returned by the orchestration");
}

static void status_unknown_code_is_fixed_string_never_null(void **state)
{
    (void)state;
    const int unknown[] = {1, 107000, -1009, -1010, -99999, INT32_MIN, INT32_MAX};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        assert_non_null(simpler_strerror(unknown[i]));
        assert_string_equal(simpler_strerror(unknown[i]), "PTO_RUNTIME_ERR_UNKNOWN: unknown status code");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(status_table_covers_every_spec_code),
        cmocka_unit_test(status_every_code_has_distinct_name),
        cmocka_unit_test(status_strerror_is_name_colon_message),
        cmocka_unit_test(status_device_codes_have_pinned_values),
        cmocka_unit_test(status_device_code_is_named_by_strerror),
        cmocka_unit_test(status_unnamed_device_range_is_device_or_orchestration),
        cmocka_unit_test(status_unknown_code_is_fixed_string_never_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
