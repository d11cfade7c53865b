/* simdev_error_name: one stable name per status, never NULL. */
#include <string.h>

#include "support.h"
#include "simpler/simdev.h"

#define NAMED(code) {code, #code}

static const struct {
    int code;
    const char *name;
} names[] = {
    NAMED(SIMDEV_SUCCESS),
    NAMED(SIMDEV_ERROR_INVALID_PARAM),
    NAMED(SIMDEV_ERROR_INVALID_DEVICE),
    NAMED(SIMDEV_ERROR_INVALID_HANDLE),
    NAMED(SIMDEV_ERROR_CAPTURE_DEPENDENCY),
    NAMED(SIMDEV_ERROR_STREAM_UNJOINED),
    NAMED(SIMDEV_ERROR_STREAM_CAPTURED),
    NAMED(SIMDEV_ERROR_EVENT_CAPTURED),
    NAMED(SIMDEV_ERROR_CAPTURE_MODE_NOT_SUPPORT),
    NAMED(SIMDEV_ERROR_STREAM_CAPTURE_CONFLICT),
    NAMED(SIMDEV_ERROR_STREAM_CAPTURE_UNMATCHED),
    NAMED(SIMDEV_ERROR_STREAM_CAPTURE_WRONG_THREAD),
    NAMED(SIMDEV_ERROR_REPEAT_INITIALIZE),
    NAMED(SIMDEV_ERROR_NOT_READY),
    NAMED(SIMDEV_ERROR_MEMORY_ALLOCATION),
    NAMED(SIMDEV_ERROR_KERNEL_FAULT),
    NAMED(SIMDEV_ERROR_STREAM_CAPTURE_INVALIDATED),
};

static void error_name_matches_macro_name_for_every_status(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *name = simdev_error_name(names[i].code);
        assert_non_null(name);
        assert_string_equal(name, names[i].name);
    }
}

static void error_name_of_unknown_code_is_unknown(void **state)
{
    (void)state;
    const int unknown[] = {1, -1, 107003, 999999, 4242};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        assert_string_equal(simdev_error_name(unknown[i]), "SIMDEV_ERROR_UNKNOWN");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(error_name_matches_macro_name_for_every_status),
        cmocka_unit_test(error_name_of_unknown_code_is_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
