/* Device codes become runtime statuses; the device code is kept. */
#include "support.h"

#include <simpler/simdev.h>

#include "platform/platform_status.h"

static void platform_status_maps_success_memory_and_device_codes(void **state)
{
    const int device_codes[] = {
        SIMDEV_ERROR_INVALID_PARAM,         SIMDEV_ERROR_INVALID_DEVICE,    SIMDEV_ERROR_INVALID_HANDLE,
        SIMDEV_ERROR_CAPTURE_DEPENDENCY,    SIMDEV_ERROR_STREAM_UNJOINED,   SIMDEV_ERROR_STREAM_CAPTURED,
        SIMDEV_ERROR_EVENT_CAPTURED,        SIMDEV_ERROR_CAPTURE_MODE_NOT_SUPPORT,
        SIMDEV_ERROR_STREAM_CAPTURE_CONFLICT, SIMDEV_ERROR_STREAM_CAPTURE_UNMATCHED,
        SIMDEV_ERROR_STREAM_CAPTURE_WRONG_THREAD, SIMDEV_ERROR_NOT_READY, SIMDEV_ERROR_KERNEL_FAULT,
        SIMDEV_ERROR_STREAM_CAPTURE_INVALIDATED, SIMDEV_ERROR_REPEAT_INITIALIZE, -1, 1,
    };
    (void)state;
    assert_int_equal(platform_status(SIMDEV_SUCCESS), 0);
    assert_int_equal(platform_status(SIMDEV_ERROR_MEMORY_ALLOCATION), PTO_RUNTIME_ERR_OUT_OF_MEMORY);
    for (size_t i = 0; i < sizeof(device_codes) / sizeof(device_codes[0]); i++)
        assert_int_equal(platform_status(device_codes[i]), PTO_RUNTIME_ERR_DEVICE);
}

static void platform_status_keep_records_the_latest_failure_only(void **state)
{
    int slot = 0;
    (void)state;
    assert_int_equal(platform_status_keep(&slot, SIMDEV_SUCCESS), 0);
    assert_int_equal(slot, 0);
    assert_int_equal(platform_status_keep(&slot, SIMDEV_ERROR_STREAM_CAPTURED), PTO_RUNTIME_ERR_DEVICE);
    assert_int_equal(slot, SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(platform_status_keep(&slot, SIMDEV_SUCCESS), 0);
    assert_int_equal(slot, SIMDEV_ERROR_STREAM_CAPTURED);
    assert_int_equal(platform_status_keep(&slot, SIMDEV_ERROR_MEMORY_ALLOCATION), PTO_RUNTIME_ERR_OUT_OF_MEMORY);
    assert_int_equal(slot, SIMDEV_ERROR_MEMORY_ALLOCATION);
    assert_int_equal(platform_status_keep(NULL, SIMDEV_ERROR_KERNEL_FAULT), PTO_RUNTIME_ERR_DEVICE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(platform_status_maps_success_memory_and_device_codes),
        cmocka_unit_test(platform_status_keep_records_the_latest_failure_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
