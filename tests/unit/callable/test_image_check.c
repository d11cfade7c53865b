/* callable_image_check: valid images accepted (and described by the view);
 * every malformed form of a callable image refused with -1005. Malformed images
 * are made by patching one field of a valid built image. */
#include <string.h>

#include "support.h"

#include "callable/callable_image.h"
#include "common/host_alloc.h"
#include "simpler/runtime_c_api.h"

#define INVALID PTO_RUNTIME_ERR_INVALID_ARGUMENT
#define CAP 8192

static _Alignas(64) uint8_t image[CAP + 64];
static size_t image_size;

static const uint8_t orch_bytes[100] = {1, 2, 3};
static const uint8_t k0_bytes[70] = {4};
static const uint8_t k1_bytes[64] = {5};
static const uint8_t sig[4] = {SIMPLER_ARG_IN, SIMPLER_ARG_IN, SIMPLER_ARG_OUT, SIMPLER_ARG_SCALAR};
static const uint8_t ksig[3] = {SIMPLER_ARG_IN, SIMPLER_ARG_OUT, SIMPLER_ARG_SCALAR};

/* A valid image: 4-entry signature, two children (func_id 3 AIV, 7 AIC). */
static int build_valid(void **state)
{
    (void)state;
    SimplerCallableChildDesc kids[2] = {
        {3, SIMPLER_CORE_TYPE_AIV, 3, 0, ksig, k0_bytes, sizeof k0_bytes},
        {7, SIMPLER_CORE_TYPE_AIC, 0, 0, NULL, k1_bytes, sizeof k1_bytes},
    };
    SimplerCallableDesc d = {sizeof d, 4, sig, orch_bytes, sizeof orch_bytes, "orch_main", 0, 2, kids, 0, NULL};
    memset(image, 0, sizeof image);
    return simpler_callable_build(&d, image, CAP, &image_size);
}

static SimplerCallableHeader *hdr(void)
{
    return (SimplerCallableHeader *)(void *)image;
}

static SimplerCallableChild *child(uint32_t i)
{
    return (SimplerCallableChild *)(void *)(image + callable_child_table_offset(hdr()->signature_count)) + i;
}

static void image_valid_is_accepted_with_view(void **state)
{
    (void)state;
    callable_view v;
    uint64_t allocs = host_alloc_count();
    assert_int_equal(callable_image_check(image, image_size, &v), 0);
    assert_int_equal(host_alloc_count(), allocs); /* checking allocates nothing */
    assert_ptr_equal(v.base, image);
    assert_int_equal(v.image_size, image_size);
    assert_string_equal(v.entry_name, "orch_main");
    assert_int_equal(v.signature_count, 4);
    assert_int_equal(v.tensor_count, 3);
    assert_int_equal(v.scalar_count, 1);
    assert_int_equal(v.child_count, 2);
    assert_int_equal(v.orchestration_size, sizeof orch_bytes);
    assert_int_equal(v.orchestration[0], 1);
    assert_int_equal(v.children[0].func_id, 3);
    assert_int_equal(v.children[1].func_id, 7);
    assert_int_equal(callable_view_child_binary(&v, 0)[0], 4);
    assert_int_equal(callable_view_child_binary(&v, 1)[0], 5);
    /* Canonical packing: 128 header + 4 sig -> table at 192, 2 children ->
     * orchestration at 320, 100 bytes -> child 0 at 448, 70 -> child 1 at
     * 576, 64 bytes -> image ends at 640. */
    assert_int_equal(hdr()->orchestration_offset, 320);
    assert_int_equal(child(0)->binary_offset, 448);
    assert_int_equal(child(1)->binary_offset, 576);
    assert_int_equal(image_size, 640);
    assert_int_equal(simpler_callable_check(image, image_size), 0);
}

static void image_check_fills_nothing_on_failure(void **state)
{
    (void)state;
    callable_view v, before;
    memset(&v, 0x3c, sizeof v);
    before = v;
    hdr()->magic ^= 1;
    assert_int_equal(callable_image_check(image, image_size, &v), INVALID);
    assert_memory_equal(&v, &before, sizeof v);
}

static void image_zero_scalar_count_is_derived_from_signature(void **state)
{
    (void)state;
    callable_view v;
    hdr()->scalar_count = 0;
    assert_int_equal(callable_image_check(image, image_size, &v), 0);
    assert_int_equal(v.scalar_count, 1);
}

static void image_null_short_or_misaligned_refused(void **state)
{
    (void)state;
    assert_int_equal(callable_image_check(NULL, image_size, NULL), INVALID);
    assert_int_equal(callable_image_check(image, 0, NULL), INVALID);
    assert_int_equal(callable_image_check(image, sizeof(SimplerCallableHeader) - 1, NULL), INVALID);
    assert_int_equal(callable_image_check(image, image_size - 1, NULL), INVALID);
    assert_int_equal(callable_image_check(image, image_size + 1, NULL), INVALID);
    /* The same bytes at an address that is 8- but not 64-aligned. */
    memmove(image + 8, image, image_size);
    assert_int_equal(callable_image_check(image + 8, image_size, NULL), INVALID);
}

/* Each case patches one thing; the image must then be refused. */
static void patch(int k)
{
    SimplerCallableHeader *h = hdr();
    switch (k) {
    case 0: h->magic = 0x12345678; break;                         /* bad magic */
    case 1: h->format_version = 2; break;                          /* bad version */
    case 2: h->header_size = 64; break;                            /* bad header size */
    case 3: h->image_size += 64; break;                            /* image_size disagrees with size */
    case 4: h->orchestration_offset = 1u << 20; break;             /* offset out of bounds */
    case 5: h->orchestration_size = image_size; break;             /* size out of bounds */
    case 6: h->orchestration_offset = 192; break;                  /* overlaps the child table */
    case 7: child(1)->binary_offset = 448; break;                  /* overlaps child 0 */
    case 8: child(0)->binary_offset = UINT64_MAX - 8; break;       /* offset + size overflows */
    case 9: child(0)->binary_offset = 447; break;                  /* packing one byte early */
    case 10: child(0)->binary_offset = 449; break;                 /* packing one byte late */
    case 11: child(1)->binary_size = 63; break;                    /* image one byte too long */
    case 12: child(1)->binary_size = 65; break;                    /* past the end */
    case 13: memset(h->entry_name, 'a', sizeof h->entry_name); break; /* unterminated */
    case 14: h->entry_name[20] = 'x'; break;                       /* embedded NUL: "orch_main\0...x" */
    case 15: h->entry_name[0] = '\0'; break;                       /* empty name */
    case 16: h->entry_name[2] = '-'; break;                        /* not an identifier */
    case 17: image[128 + 1] = SIMPLER_ARG_SCALAR; break;           /* scalar before tensor */
    case 18: image[128 + 2] = 4; break;                            /* unknown direction */
    case 19: h->signature_count = SIMPLER_CALLABLE_MAX_SIGNATURE + 1; break;
    case 20: h->child_count = SIMPLER_CALLABLE_MAX_CHILDREN + 1; break;
    case 21: h->child_count = 1; break;                            /* count disagrees with packing */
    case 22: child(0)->signature_count = SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE + 1; break;
    case 23: child(0)->func_id = SIMPLER_CALLABLE_FUNC_ID_LIMIT; break; /* out of range */
    case 24: child(0)->func_id = -1; break;
    case 25: child(1)->func_id = 3; break;                         /* duplicate */
    case 26: child(0)->core_type = 2; break;
    case 27: h->reserved[1] = 1; break;                            /* nonzero reserved */
    case 28: child(1)->reserved0 = 1; break;
    case 29: child(0)->signature[31] = 1; break;                   /* unused child signature entry */
    case 30: image[128 + 4] = 1; break;                            /* padding after the signature */
    case 31: image[320 + 100] = 1; break;                          /* padding after a binary */
    case 32: h->scalar_count = 2; break;                           /* disagreeing scalar_count */
    case 33: child(0)->signature[0] = SIMPLER_ARG_SCALAR; break;   /* child: scalar before tensor */
    case 34: child(1)->binary_size = 0; child(1)->binary_offset = 576; break; /* empty binary */
    case 35: h->orchestration_size = 0; break;
    }
}
#define PATCH_COUNT 36

static void image_each_malformed_form_refused(void **state)
{
    for (int k = 0; k < PATCH_COUNT; k++) {
        assert_int_equal(build_valid(state), 0);
        assert_int_equal(callable_image_check(image, image_size, NULL), 0);
        patch(k);
        static uint8_t before[CAP + 64];
        memcpy(before, image, sizeof before);
        if (callable_image_check(image, image_size, NULL) != INVALID)
            fail_msg("malformed image %d was not refused with -1005", k);
        if (memcmp(before, image, sizeof before) != 0)
            fail_msg("checking malformed image %d changed its bytes", k);
    }
}

static void callable_check_public_entry_refuses_bad_input(void **state)
{
    (void)state;
    assert_int_equal(simpler_callable_check(image, image_size), 0);
    assert_int_equal(simpler_callable_check(NULL, image_size), INVALID);
    assert_int_equal(simpler_callable_check(image, 0), INVALID);
    assert_int_equal(simpler_callable_check(image, image_size - 1), INVALID);
    assert_int_equal(simpler_callable_check(image + 64, image_size), INVALID);
    child(1)->func_id = 3;
    assert_int_equal(simpler_callable_check(image, image_size), INVALID);
}

static void image_limits_exactly_at_bound_accepted(void **state)
{
    (void)state;
    static uint8_t bigsig[SIMPLER_CALLABLE_MAX_SIGNATURE];
    memset(bigsig, SIMPLER_ARG_INOUT, SIMPLER_MAX_TENSOR_ARGS);
    memset(bigsig + SIMPLER_MAX_TENSOR_ARGS, SIMPLER_ARG_SCALAR, SIMPLER_MAX_SCALAR_ARGS);
    static SimplerCallableChildDesc kids[SIMPLER_CALLABLE_MAX_CHILDREN];
    uint8_t ksig32[SIMPLER_CALLABLE_CHILD_MAX_SIGNATURE];
    memset(ksig32, SIMPLER_ARG_IN, sizeof ksig32);
    for (int i = 0; i < SIMPLER_CALLABLE_MAX_CHILDREN; i++) {
        SimplerCallableChildDesc c = {SIMPLER_CALLABLE_FUNC_ID_LIMIT - 1 - i, (uint32_t)(i & 1), 32, 0, ksig32,
                                      k1_bytes, 1};
        kids[i] = c;
    }
    char name[64];
    memset(name, 'n', 63);
    name[63] = '\0';
    SimplerCallableDesc d = {sizeof d, SIMPLER_CALLABLE_MAX_SIGNATURE, bigsig, orch_bytes, 1, name, 128,
                             SIMPLER_CALLABLE_MAX_CHILDREN, kids, 0, NULL};
    size_t need;
    assert_int_equal(simpler_callable_build(&d, NULL, 0, &need), 0);
    uint8_t *big = test_malloc(need + 64);
    uint8_t *aligned = big + (64 - (uintptr_t)big % 64) % 64;
    size_t got;
    assert_int_equal(simpler_callable_build(&d, aligned, need, &got), 0);
    assert_int_equal(got, need);
    callable_view v;
    assert_int_equal(callable_image_check(aligned, got, &v), 0);
    assert_int_equal(v.tensor_count, SIMPLER_MAX_TENSOR_ARGS);
    assert_int_equal(v.scalar_count, SIMPLER_MAX_SCALAR_ARGS);
    assert_int_equal(v.child_count, SIMPLER_CALLABLE_MAX_CHILDREN);
    test_free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(image_valid_is_accepted_with_view, build_valid),
        cmocka_unit_test_setup(image_check_fills_nothing_on_failure, build_valid),
        cmocka_unit_test_setup(image_zero_scalar_count_is_derived_from_signature, build_valid),
        cmocka_unit_test_setup(image_null_short_or_misaligned_refused, build_valid),
        cmocka_unit_test(image_each_malformed_form_refused),
        cmocka_unit_test_setup(callable_check_public_entry_refuses_bad_input, build_valid),
        cmocka_unit_test(image_limits_exactly_at_bound_accepted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
