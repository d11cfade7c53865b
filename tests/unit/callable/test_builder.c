/* simpler_callable_build: round trip through the checker, the size query,
 * and a bad-input table (each refused with -1005, nothing written). */
#include <string.h>

#include "support.h"

#include "callable/callable_image.h"
#include "common/host_alloc.h"
#include "simpler/runtime_c_api.h"

#define INVALID PTO_RUNTIME_ERR_INVALID_ARGUMENT

static _Alignas(64) uint8_t out[4096 + 64];
static const uint8_t orch[33] = {0x7f, 'E', 'L', 'F'};
static const uint8_t kbin[2][65] = {{9, 9}, {8, 8}};
static const uint8_t sig[3] = {SIMPLER_ARG_INOUT, SIMPLER_ARG_SCALAR, SIMPLER_ARG_SCALAR};
static const uint8_t ksig[2] = {SIMPLER_ARG_OUT, SIMPLER_ARG_IN};
static SimplerCallableChildDesc kids[2];
static SimplerCallableDesc desc;

static int make_desc(void **state)
{
    (void)state;
    SimplerCallableChildDesc k0 = {1023, SIMPLER_CORE_TYPE_AIC, 2, 0, ksig, kbin[0], sizeof kbin[0]};
    SimplerCallableChildDesc k1 = {0, SIMPLER_CORE_TYPE_AIV, 0, 0, NULL, kbin[1], sizeof kbin[1]};
    kids[0] = k0;
    kids[1] = k1;
    SimplerCallableDesc d = {sizeof d, 3, sig, orch, sizeof orch, "entry_v2", 0, 2, kids, 0, NULL};
    desc = d;
    return 0;
}

static void builder_round_trip_preserves_every_field(void **state)
{
    (void)state;
    size_t need = 0, got = 0;
    uint64_t allocs = host_alloc_count();
    assert_int_equal(simpler_callable_build(&desc, NULL, 0, &need), 0);
    assert_int_equal(simpler_callable_build(&desc, out, need, &got), 0);
    assert_int_equal(host_alloc_count(), allocs); /* building allocates nothing */
    assert_int_equal(got, need);
    callable_view v;
    assert_int_equal(callable_image_check(out, got, &v), 0);
    assert_string_equal(v.entry_name, "entry_v2");
    assert_int_equal(v.signature_count, 3);
    assert_memory_equal(v.signature, sig, 3);
    assert_int_equal(v.tensor_count, 1);
    assert_int_equal(v.scalar_count, 2);
    assert_int_equal(v.header->scalar_count, 2); /* recorded, not left 0 */
    assert_int_equal(v.orchestration_size, sizeof orch);
    assert_memory_equal(v.orchestration, orch, sizeof orch);
    assert_int_equal(v.child_count, 2);
    for (uint32_t i = 0; i < 2; i++) {
        assert_int_equal(v.children[i].func_id, kids[i].func_id);
        assert_int_equal(v.children[i].core_type, kids[i].core_type);
        assert_int_equal(v.children[i].signature_count, kids[i].signature_count);
        assert_int_equal(v.children[i].binary_size, kids[i].binary_size);
        assert_int_equal(v.children[i].binary_offset % 64, 0);
        assert_memory_equal(callable_view_child_binary(&v, i), kbin[i], sizeof kbin[i]);
    }
    assert_memory_equal(v.children[0].signature, ksig, 2);
}

static void builder_size_query_writes_only_the_size(void **state)
{
    (void)state;
    memset(out, 0xab, sizeof out);
    size_t need = 0;
    assert_int_equal(simpler_callable_build(&desc, NULL, 0, &need), 0);
    /* 128 + 3 -> table at 192, 2 children -> orchestration at 320 (33
     * bytes) -> child 0 at 384 (65) -> child 1 at 512 (65) -> 577. */
    assert_int_equal(need, 577);
    for (size_t i = 0; i < sizeof out; i++)
        assert_int_equal(out[i], 0xab);
}

static void builder_accepts_matching_scalar_count_and_no_children(void **state)
{
    (void)state;
    desc.scalar_count = 2;
    desc.child_count = 0;
    desc.children = NULL;
    size_t got;
    assert_int_equal(simpler_callable_build(&desc, out, sizeof out - 64, &got), 0);
    assert_int_equal(got, 192 + sizeof orch);
    assert_int_equal(callable_image_check(out, got, NULL), 0);
}

static void builder_refuses_bad_input_without_writing(void **state)
{
    static char long_name[80];
    memset(long_name, 'a', 64);
    static const uint8_t bad_order[2] = {SIMPLER_ARG_SCALAR, SIMPLER_ARG_IN};
    static const uint8_t bad_dir[1] = {9};
    for (int k = 0; k < 24; k++) {
        make_desc(state);
        void *target = out;
        size_t capacity = 4096;
        size_t size = 12345;
        size_t *size_out = &size;
        const SimplerCallableDesc *d = &desc;
        switch (k) {
        case 0: d = NULL; break;
        case 1: size_out = NULL; break;
        case 2: desc.struct_size--; break;
        case 3: desc.reserved = 1; break;
        case 4: desc.signature = NULL; break;
        case 5: desc.signature = bad_order; desc.signature_count = 2; break;
        case 6: desc.signature = bad_dir; desc.signature_count = 1; break;
        case 7: desc.signature_count = SIMPLER_CALLABLE_MAX_SIGNATURE + 1; break;
        case 8: desc.orchestration = NULL; break;
        case 9: desc.orchestration_size = 0; break;
        case 10: desc.entry_name = NULL; break;
        case 11: desc.entry_name = long_name; break;
        case 12: desc.entry_name = "9lives"; break;
        case 13: desc.scalar_count = 1; break;
        case 14: desc.children = NULL; break;
        case 15: desc.child_count = SIMPLER_CALLABLE_MAX_CHILDREN + 1; break;
        case 16: kids[1].func_id = 1023; break;
        case 17: kids[1].func_id = 1024; break;
        case 18: kids[0].core_type = 5; break;
        case 19: kids[0].signature_count = 33; break;
        case 20: kids[0].binary = NULL; break;
        case 21: target = out + 32; break;
        case 22: capacity = 576; break;
        case 23: kids[0].reserved0 = 1; break;
        }
        memset(out, 0xcd, sizeof out);
        if (simpler_callable_build(d, target, capacity, size_out) != INVALID)
            fail_msg("bad builder input %d was not refused with -1005", k);
        assert_int_equal(size, 12345);
        for (size_t i = 0; i < sizeof out; i++) {
            if (out[i] != 0xcd)
                fail_msg("bad builder input %d wrote byte %zu", k, i);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(builder_round_trip_preserves_every_field, make_desc),
        cmocka_unit_test_setup(builder_size_query_writes_only_the_size, make_desc),
        cmocka_unit_test_setup(builder_accepts_matching_scalar_count_and_no_children, make_desc),
        cmocka_unit_test(builder_refuses_bad_input_without_writing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
