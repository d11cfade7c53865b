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
    assert_int_equal(CODE_COUNT, 10);
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

static void status_device_range_names_device_error(void **state)
{
    (void)state;
    const int device_codes[] = {-1, -2, -500, -999};
    for (size_t i = 0; i < sizeof device_codes / sizeof device_codes[0]; i++)
        assert_string_equal(simpler_strerror(device_codes[i]), "PTO_DEVICE_ERROR: error latched on the device");
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
        cmocka_unit_test(status_device_range_names_device_error),
        cmocka_unit_test(status_unknown_code_is_fixed_string_never_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
