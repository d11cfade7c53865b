/* callable_load / callable_unload on real fixture binaries: entries
 * resolved and callable, dlopens counted per kind, separate state per
 * load, and every failure (bad ELF, missing or unresolved symbol, host
 * allocation) refused with its status, nothing counted, nothing leaked. */
#define _GNU_SOURCE /* dl_iterate_phdr */

#include "support.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "callable/callable_image.h"
#include "callable/loader.h"
#include "common/host_alloc.h"
#include "fixture_image.h"
#include "simpler/runtime_c_api.h"

static ChipStorageTaskArgs args;

static int call_orch(const loaded_callable *lc, int32_t tensor_count)
{
    args.tensor_count = tensor_count;
    return lc->orch_entry(NULL, &args);
}

static int32_t call_kernel(const loaded_callable *lc, int32_t func_id)
{
    const callable_kernel *k = callable_kernel_find(lc, func_id);
    assert_non_null(k);
    void (*fn)(void *);
    memcpy(&fn, &k->entry, sizeof fn);
    int32_t out = 0;
    fn(&out);
    return out;
}

static void loader_resolves_entries_and_counts_dlopens(void **state)
{
    (void)state;
    size_t size;
    uint8_t *image = fixture_image(FIXTURE("callable_fixture_orch"), "fixture_orch",
                                   FIXTURE("callable_fixture_kernel1"), 5, FIXTURE("callable_fixture_kernel2"), 9, &size);
    callable_dlopen_counts counts = {0, 0};
    loaded_callable *lc = NULL;
    assert_int_equal(callable_load(image, size, &counts, &lc), 0);
    free(image); /* the loaded callable does not need the image any more */
    assert_int_equal(atomic_load(&counts.host), 1);
    assert_int_equal(atomic_load(&counts.aicpu), 2);
    assert_int_equal(call_orch(lc, 3), 103);
    assert_int_equal(call_kernel(lc, 5), 1);
    assert_int_equal(call_kernel(lc, 9), 2);
    assert_null(callable_kernel_find(lc, 6));
    assert_null(callable_kernel_find(lc, -1));
    assert_null(callable_kernel_find(lc, 1024));
    assert_string_equal(lc->entry_name, "fixture_orch");
    assert_int_equal(lc->signature_count, 4);
    assert_int_equal(lc->tensor_count, 3);
    assert_int_equal(lc->scalar_count, 1);
    assert_int_equal(lc->kernel_count, 2);
    assert_int_equal(callable_kernel_find(lc, 5)->core_type, SIMPLER_CORE_TYPE_AIV);
    assert_int_equal(callable_kernel_find(lc, 5)->signature_count, 2);
    assert_int_equal(callable_kernel_find(lc, 9)->core_type, SIMPLER_CORE_TYPE_AIC);
    callable_unload(lc);
}

static void loader_two_loads_have_separate_state(void **state)
{
    (void)state;
    size_t size;
    uint8_t *image = fixture_image(FIXTURE("callable_fixture_orch"), "fixture_orch", NULL, 0, NULL, 0, &size);
    callable_dlopen_counts counts = {0, 0};
    loaded_callable *a = NULL, *b = NULL;
    assert_int_equal(callable_load(image, size, &counts, &a), 0);
    assert_int_equal(callable_load(image, size, &counts, &b), 0);
    assert_ptr_not_equal(a->orch_handle, b->orch_handle);
    /* The fixture adds 1000 per earlier call of the same loaded copy. */
    assert_int_equal(call_orch(a, 1), 101);
    assert_int_equal(call_orch(a, 1), 1101);
    assert_int_equal(call_orch(b, 1), 101);
    assert_int_equal(atomic_load(&counts.host), 2);
    assert_int_equal(atomic_load(&counts.aicpu), 0);
    callable_unload(a);
    assert_int_equal(call_orch(b, 1), 1101);
    /* A new load after an unload gets a fresh copy, never the old one. */
    assert_int_equal(callable_load(image, size, &counts, &a), 0);
    assert_int_equal(call_orch(a, 2), 102);
    callable_unload(a);
    callable_unload(b);
    free(image);
}

static void loader_loaded_callable_holds_no_descriptor(void **state)
{
    (void)state;
    size_t size;
    uint8_t *image = fixture_image(FIXTURE("callable_fixture_orch"), "fixture_orch",
                                   FIXTURE("callable_fixture_kernel1"), 1, FIXTURE("callable_fixture_kernel2"), 2, &size);
    int fds = fixture_open_fds(), objects = fixture_loaded_objects();
    uint64_t frees = host_free_count();
    loaded_callable *lc = NULL;
    assert_int_equal(callable_load(image, size, NULL, &lc), 0);
    assert_int_equal(fixture_open_fds(), fds); /* each memory file closed once loaded */
    assert_int_equal(fixture_loaded_objects(), objects + 3);
    callable_unload(lc);
    assert_int_equal(fixture_open_fds(), fds);
    assert_int_equal(fixture_loaded_objects(), objects);
    assert_int_equal(host_free_count() - frees, 2); /* the callable and its kernel array */
    callable_unload(NULL);
    free(image);
}

/* Expects `rc` from loading `image`, with nothing counted or leaked. */
static void expect_refused(const uint8_t *image, size_t size, int rc)
{
    callable_dlopen_counts counts = {0, 0};
    loaded_callable *lc = (loaded_callable *)(uintptr_t)0x1;
    int fds = fixture_open_fds(), objects = fixture_loaded_objects();
    uint64_t allocs = host_alloc_count(), frees = host_free_count();
    assert_int_equal(callable_load(image, size, &counts, &lc), rc);
    assert_int_equal(fixture_loaded_objects(), objects);
    assert_ptr_equal(lc, (loaded_callable *)(uintptr_t)0x1);
    assert_int_equal(atomic_load(&counts.host), 0);
    assert_int_equal(atomic_load(&counts.aicpu), 0);
    assert_int_equal(fixture_open_fds(), fds);
    assert_int_equal(host_alloc_count() - allocs, host_free_count() - frees);
}

static void loader_refuses_binary_that_is_not_elf(void **state)
{
    (void)state;
    static const uint8_t junk[200] = "this is not an ELF shared object";
    static const uint8_t sig[1] = {SIMPLER_ARG_IN};
    SimplerCallableDesc d = {sizeof d, 1, sig, junk, sizeof junk, "fixture_orch", 0, 0, NULL, 0, NULL};
    size_t size;
    uint8_t *image = fixture_pack(&d, &size);
    expect_refused(image, size, PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    free(image);
}

static void loader_refuses_missing_orchestration_entry(void **state)
{
    (void)state;
    size_t size;
    uint8_t *image = fixture_image(FIXTURE("callable_fixture_orch"), "no_such_entry", NULL, 0, NULL, 0, &size);
    expect_refused(image, size, PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    free(image);
}

static void loader_refuses_kernel_without_kernel_entry(void **state)
{
    (void)state;
    size_t size;
    uint8_t *image = fixture_image(FIXTURE("callable_fixture_orch"), "fixture_orch",
                                   FIXTURE("callable_fixture_kernel1"), 1, FIXTURE("callable_fixture_no_entry"), 2, &size);
    expect_refused(image, size, PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    free(image);
}

static void loader_refuses_kernel_with_unresolved_symbol(void **state)
{
    (void)state;
    size_t size;
    uint8_t *image = fixture_image(FIXTURE("callable_fixture_orch"), "fixture_orch",
                                   FIXTURE("callable_fixture_unresolved"), 1, NULL, 0, &size);
    expect_refused(image, size, PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    free(image);
}

static void loader_refuses_malformed_image_and_null_out(void **state)
{
    (void)state;
    size_t size;
    uint8_t *image = fixture_image(FIXTURE("callable_fixture_orch"), "fixture_orch", NULL, 0, NULL, 0, &size);
    assert_int_equal(callable_load(image, size, NULL, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    expect_refused(image, size - 1, PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    expect_refused(NULL, size, PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    image[0] ^= 0xff;
    expect_refused(image, size, PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    free(image);
}

static void loader_allocation_failure_sweep_leaks_nothing(void **state)
{
    (void)state;
    size_t size;
    uint8_t *image = fixture_image(FIXTURE("callable_fixture_orch"), "fixture_orch",
                                   FIXTURE("callable_fixture_kernel1"), 1, NULL, 0, &size);
    int failures = 0;
    for (uint64_t k = 1;; k++) {
        host_alloc_fail_nth(k);
        callable_dlopen_counts counts = {0, 0};
        loaded_callable *lc = NULL;
        int fds = fixture_open_fds();
        uint64_t allocs = host_alloc_count(), frees = host_free_count();
        int rc = callable_load(image, size, &counts, &lc);
        host_alloc_fail_nth(0);
        if (rc == 0) {
            callable_unload(lc);
            break;
        }
        failures++;
        assert_int_equal(rc, PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        assert_null(lc);
        assert_int_equal(atomic_load(&counts.host) + atomic_load(&counts.aicpu), 0);
        assert_int_equal(fixture_open_fds(), fds);
        /* Every allocation that succeeded was freed; one attempt failed. */
        assert_int_equal(host_alloc_count() - allocs - 1, host_free_count() - frees);
        assert_true(k < 10);
    }
    assert_int_equal(failures, 2); /* the callable, then its kernel array */
    free(image);
}

static void loader_loads_image_packed_by_cmake_function(void **state)
{
    (void)state;
    fixture_file f = fixture_read(CALLABLE_FIXTURE_OUT "/fixture.callable");
    uint8_t *image = aligned_alloc(64, (f.size + 63) / 64 * 64);
    assert_non_null(image);
    memcpy(image, f.bytes, f.size);
    callable_dlopen_counts counts = {0, 0};
    loaded_callable *lc = NULL;
    assert_int_equal(callable_load(image, f.size, &counts, &lc), 0);
    assert_int_equal(atomic_load(&counts.host), 1);
    assert_int_equal(atomic_load(&counts.aicpu), 2);
    assert_int_equal(lc->scalar_count, 1);
    assert_int_equal(call_orch(lc, 2), 102);
    assert_int_equal(call_kernel(lc, 5), 1);
    assert_int_equal(callable_kernel_find(lc, 5)->signature_count, 2);
    assert_int_equal(callable_kernel_find(lc, 9)->core_type, SIMPLER_CORE_TYPE_AIC);
    callable_unload(lc);
    free(image);
    free(f.bytes);
}


/* `image` with binary `which` (0: the orchestration, i + 1: child i)
 * replaced by `n` bytes at `bin`, packed into `out` (64-aligned, `cap`
 * bytes, reused across calls: the truncation sweep packs ~85,000 images,
 * and a fresh buffer each time cost the sanitizer builds minutes of page
 * faults). Returns the packed size. */
static size_t image_with_binary(const uint8_t *image, size_t size, uint32_t which, const uint8_t *bin, size_t n,
                                uint8_t *out, size_t cap)
{
    callable_view v;
    assert_int_equal(callable_image_check(image, size, &v), 0);
    SimplerCallableChildDesc kids[8];
    assert_true(v.child_count <= 8);
    for (uint32_t i = 0; i < v.child_count; i++) {
        const SimplerCallableChild *c = &v.children[i];
        SimplerCallableChildDesc k = {c->func_id, c->core_type, c->signature_count, 0, c->signature,
                                      callable_view_child_binary(&v, i), (size_t)c->binary_size};
        if (which == i + 1) {
            k.binary = bin;
            k.binary_size = n;
        }
        kids[i] = k;
    }
    SimplerCallableDesc d = {sizeof d, v.signature_count, v.signature, which == 0 ? bin : v.orchestration,
                             which == 0 ? n : v.orchestration_size, v.entry_name, 0, v.child_count, kids, 0, NULL};
    size_t packed = 0;
    assert_int_equal(simpler_callable_build(&d, out, cap, &packed), 0);
    return packed;
}

/* A 64-aligned buffer for image_with_binary: `size` (an image's) plus
 * room for the builder's padding. */
static uint8_t *repack_buffer(size_t size, size_t *cap)
{
    *cap = (size + 4096 + 63) / 64 * 64;
    uint8_t *buf = aligned_alloc(64, *cap);
    assert_non_null(buf);
    return buf;
}

/* The bytes of binary `which` of a checked image. */
static const uint8_t *binary_of(const uint8_t *image, size_t size, uint32_t which, size_t *n)
{
    callable_view v;
    assert_int_equal(callable_image_check(image, size, &v), 0);
    *n = which == 0 ? v.orchestration_size : (size_t)v.children[which - 1].binary_size;
    return which == 0 ? v.orchestration : callable_view_child_binary(&v, which - 1);
}

static void loader_many_loads_never_share_a_name(void **state)
{
    (void)state;
    /* Loads and unloads interleaved so that descriptor numbers are reused
     * while objects loaded from them are still live: every live load is
     * its own copy. */
    size_t size;
    uint8_t *image = fixture_image(FIXTURE("callable_fixture_orch"), "fixture_orch", NULL, 0, NULL, 0, &size);
    loaded_callable *live[8] = {NULL};
    for (int round = 0; round < 4; round++) {
        for (int i = round % 2; i < 8; i += 2) {
            assert_int_equal(callable_load(image, size, NULL, &live[i]), 0);
            assert_int_equal(call_orch(live[i], 1), 101);
        }
        for (int i = 0; i < 8; i++) {
            for (int j = i + 1; j < 8; j++)
                assert_true(live[i] == NULL || live[j] == NULL || live[i]->orch_handle != live[j]->orch_handle);
        }
        for (int i = (round + 1) % 2; i < 8; i += 2) {
            callable_unload(live[i]);
            live[i] = NULL;
        }
    }
    for (int i = 0; i < 8; i++)
        callable_unload(live[i]);
    free(image);
}

static void loader_refuses_every_truncation_of_every_example_binary(void **state)
{
    (void)state;
    fixture_file f = fixture_read(SIMPLER_BINARY_DIR "/examples/vector.callable");
    uint8_t *image = aligned_alloc(64, (f.size + 63) / 64 * 64);
    assert_non_null(image);
    memcpy(image, f.bytes, f.size);
    callable_view v;
    assert_int_equal(callable_image_check(image, f.size, &v), 0);
    int fds = fixture_open_fds(), objects = fixture_loaded_objects();
    uint64_t allocs = host_alloc_count(), frees = host_free_count();
    size_t cap;
    uint8_t *cut = repack_buffer(f.size, &cap);
    for (uint32_t which = 0; which <= v.child_count; which++) {
        size_t n;
        const uint8_t *bin = binary_of(image, f.size, which, &n);
        for (size_t len = 1; len < n; len++) {
            size_t cut_size = image_with_binary(image, f.size, which, bin, len, cut, cap);
            loaded_callable *lc = NULL;
            assert_int_equal(callable_load(cut, cut_size, NULL, &lc), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
            assert_null(lc);
        }
    }
    free(cut);
    /* Nothing any refusal opened, loaded or allocated is left. */
    assert_int_equal(fixture_open_fds(), fds);
    assert_int_equal(fixture_loaded_objects(), objects);
    assert_int_equal(host_alloc_count() - allocs, host_free_count() - frees);
    free(image);
    free(f.bytes);
}

static void loader_refuses_corrupt_header_tables_with_reason(void **state)
{
    (void)state;
    size_t size;
    uint8_t *image = fixture_image(FIXTURE("callable_fixture_orch"), "fixture_orch",
                                   FIXTURE("callable_fixture_kernel1"), 1, NULL, 0, &size);
    for (uint32_t which = 0; which < 2; which++) {
        size_t n;
        const uint8_t *bin = binary_of(image, size, which, &n);
        uint8_t *copy = malloc(n);
        assert_non_null(copy);
        /* e_phoff, e_shoff (64-bit layout: offsets 32 and 40) past the end. */
        for (size_t field = 32; field <= 40; field += 8) {
            memcpy(copy, bin, n);
            uint64_t past = n;
            memcpy(copy + field, &past, sizeof past);
            size_t cap;
            uint8_t *bad = repack_buffer(size, &cap);
            size_t bad_size = image_with_binary(image, size, which, copy, n, bad, cap);
            expect_refused(bad, bad_size, PTO_RUNTIME_ERR_INVALID_ARGUMENT);
            const char *why = simpler_last_error_message();
            assert_non_null(strstr(why, which == 0 ? "the orchestration" : "child 0 (func_id 1)"));
            assert_non_null(strstr(why, field == 32 ? "program header table" : "section header"));
            free(bad);
        }
        free(copy);
    }
    free(image);
}

static void loader_reports_descriptor_exhaustion_as_out_of_memory(void **state)
{
    (void)state;
    size_t size;
    uint8_t *image = fixture_image(FIXTURE("callable_fixture_orch"), "fixture_orch",
                                   FIXTURE("callable_fixture_kernel1"), 1, NULL, 0, &size);
    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    /* Descriptors in use are 0..fds-1 (the /proc listing also counts its
     * own, "." and ".."), so a limit of exactly that leaves none free. */
    /* Under a limit just above the highest descriptor in use, every free
     * number below it taken too: then `spare` closed ones are all there
     * is. */
    int limit = 0;
    for (int fd = 0; fd < 4096; fd++) {
        if (fcntl(fd, F_GETFD) >= 0)
            limit = fd + 1;
    }
    struct rlimit tight = {(rlim_t)limit + 4, old.rlim_max};
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &tight), 0);
    int held[4096], held_count = 0, fd;
    while (held_count < 4096 && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
        held[held_count++] = fd;
    int loaded_with = -1;
    for (int spare = 0; spare <= 4 && held_count > 0; spare++) {
        if (spare > 0)
            close(held[--held_count]);
        loaded_callable *lc = NULL;
        int rc = callable_load(image, size, NULL, &lc);
        if (rc == 0) {
            callable_unload(lc);
            loaded_with = spare;
            break;
        }
        assert_int_equal(rc, PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        assert_null(lc);
    }
    while (held_count > 0)
        close(held[--held_count]);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    /* A memory file and the descriptor dlopen opens for itself. */
    assert_int_equal(loaded_with, 2);
    free(image);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loader_resolves_entries_and_counts_dlopens),
        cmocka_unit_test(loader_two_loads_have_separate_state),
        cmocka_unit_test(loader_loaded_callable_holds_no_descriptor),
        cmocka_unit_test(loader_many_loads_never_share_a_name),
        cmocka_unit_test(loader_refuses_every_truncation_of_every_example_binary),
        cmocka_unit_test(loader_refuses_corrupt_header_tables_with_reason),
        cmocka_unit_test(loader_reports_descriptor_exhaustion_as_out_of_memory),
        cmocka_unit_test(loader_refuses_binary_that_is_not_elf),
        cmocka_unit_test(loader_refuses_missing_orchestration_entry),
        cmocka_unit_test(loader_refuses_kernel_without_kernel_entry),
        cmocka_unit_test(loader_refuses_kernel_with_unresolved_symbol),
        cmocka_unit_test(loader_refuses_malformed_image_and_null_out),
        cmocka_unit_test(loader_allocation_failure_sweep_leaks_nothing),
        cmocka_unit_test(loader_loads_image_packed_by_cmake_function),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
