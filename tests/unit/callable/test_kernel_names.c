/* Kernel names in a callable image (format version 2): the builder packs
 * them, the checker validates them, the loader keeps them, and an image
 * without names is still version 1, byte for byte. */
#include <string.h>

#include "support.h"

#include "callable/callable_image.h"
#include "simpler/runtime_c_api.h"

#define INVALID PTO_RUNTIME_ERR_INVALID_ARGUMENT
#define CAP 4096

static _Alignas(64) uint8_t image[CAP];
static _Alignas(64) uint8_t plain[CAP];
static const uint8_t orch[40] = {0x7f, 'E', 'L', 'F'};
static const uint8_t kbin[2][70] = {{1, 2}, {3, 4}};
static const uint8_t sig[2] = {SIMPLER_ARG_IN, SIMPLER_ARG_OUT};
static const char *names[2] = {"kernel_add", "mul-v2.1"};
static SimplerCallableChildDesc kids[2] = {
    {4, SIMPLER_CORE_TYPE_AIV, 0, 0, NULL, kbin[0], sizeof kbin[0]},
    {9, SIMPLER_CORE_TYPE_AIC, 0, 0, NULL, kbin[1], sizeof kbin[1]},
};

static SimplerCallableDesc desc_with(const char *const *kernel_names)
{
    SimplerCallableDesc d = {sizeof d, 2, sig, orch, sizeof orch, "orch", 0, 2, kids, 0, kernel_names};
    return d;
}

static size_t build(const SimplerCallableDesc *d, uint8_t *out)
{
    size_t size = 0;
    memset(out, 0, CAP);
    assert_int_equal(simpler_callable_build(d, out, CAP, &size), 0);
    return size;
}

static void names_given_make_a_version_2_image_that_keeps_them(void **state)
{
    (void)state;
    SimplerCallableDesc d = desc_with(names);
    size_t size = build(&d, image);
    callable_view v;
    assert_int_equal(callable_image_check(image, size, &v), 0);
    assert_int_equal(v.header->format_version, SIMPLER_CALLABLE_FORMAT_VERSION_NAMES);
    assert_string_equal(callable_view_kernel_name(&v, 0), "kernel_add");
    assert_string_equal(callable_view_kernel_name(&v, 1), "mul-v2.1");
    /* The name table follows the child table; the orchestration moves
     * to the next 64-byte boundary after it. */
    uint64_t table = callable_child_table_offset(2);
    assert_ptr_equal(v.kernel_names, (const char *)image + table + 2 * sizeof(SimplerCallableChild));
    assert_int_equal(v.header->orchestration_offset, callable_orchestration_offset(2, 2, 1));
    assert_memory_equal(callable_view_child_binary(&v, 1), kbin[1], sizeof kbin[1]);
}

static void no_names_is_a_version_1_image_as_before(void **state)
{
    (void)state;
    SimplerCallableDesc d = desc_with(NULL);
    size_t size = build(&d, plain);
    callable_view v;
    assert_int_equal(callable_image_check(plain, size, &v), 0);
    assert_int_equal(v.header->format_version, SIMPLER_CALLABLE_FORMAT_VERSION);
    assert_null(v.kernel_names);
    assert_null(callable_view_kernel_name(&v, 0));
    assert_int_equal(v.header->orchestration_offset, callable_orchestration_offset(2, 2, 0));
    /* A descriptor of the size before kernel_names existed packs the
     * same bytes, whatever follows it in memory. */
    SimplerCallableDesc old = desc_with(names);
    old.struct_size = SIMPLER_CALLABLE_DESC_V1_SIZE;
    size_t old_size = build(&old, image);
    assert_int_equal(old_size, size);
    assert_memory_equal(image, plain, size);
}

static void builder_refuses_a_bad_kernel_name(void **state)
{
    (void)state;
    const char *const bad[][2] = {
        {"", "ok"},
        {"ok", "has space"},
        {"a/b", "ok"},
        {"ok", "0123456789012345678901234567890123"}, /* 34 chars */
        {"ok", "0123456789012345678901234567890x"},   /* 32 chars: no room for the NUL */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        SimplerCallableDesc d = desc_with(bad[i]);
        size_t size = 0;
        assert_int_equal(simpler_callable_build(&d, NULL, 0, &size), INVALID);
        assert_int_equal(size, 0);
    }
    const char *with_null[2] = {"ok", NULL};
    SimplerCallableDesc d = desc_with(with_null);
    size_t size = 0;
    assert_int_equal(simpler_callable_build(&d, NULL, 0, &size), INVALID);
    const char *longest[2] = {"ok", "0123456789012345678901234567890"}; /* 31 chars */
    d = desc_with(longest);
    assert_int_equal(simpler_callable_build(&d, NULL, 0, &size), 0);
}

static void checker_refuses_a_corrupt_name_field(void **state)
{
    (void)state;
    SimplerCallableDesc d = desc_with(names);
    size_t size = build(&d, image);
    callable_view v;
    assert_int_equal(callable_image_check(image, size, &v), 0);
    char *field = (char *)image + (v.kernel_names - (const char *)image) + SIMPLER_CALLABLE_KERNEL_NAME_BYTES;
    const char cases[][2] = {{0, ' '}, {31, 'x'}, {0, '\0'}, {20, 'x'}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char saved = field[(int)cases[i][0]];
        field[(int)cases[i][0]] = cases[i][1];
        assert_int_equal(callable_image_check(image, size, NULL), INVALID);
        field[(int)cases[i][0]] = saved;
    }
    assert_int_equal(callable_image_check(image, size, NULL), 0);
}

static void checker_refuses_an_unknown_format_version(void **state)
{
    (void)state;
    SimplerCallableDesc d = desc_with(names);
    size_t size = build(&d, image);
    SimplerCallableHeader *h = (SimplerCallableHeader *)(void *)image;
    h->format_version = 3;
    assert_int_equal(callable_image_check(image, size, NULL), INVALID);
    /* The same bytes read as version 1 have the names where the
     * orchestration's padding should be zero. */
    h->format_version = SIMPLER_CALLABLE_FORMAT_VERSION;
    assert_int_equal(callable_image_check(image, size, NULL), INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_given_make_a_version_2_image_that_keeps_them),
        cmocka_unit_test(no_names_is_a_version_1_image_as_before),
        cmocka_unit_test(builder_refuses_a_bad_kernel_name),
        cmocka_unit_test(checker_refuses_a_corrupt_name_field),
        cmocka_unit_test(checker_refuses_an_unknown_format_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
