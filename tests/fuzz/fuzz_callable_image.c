/* libFuzzer target for callable_image_check. Two modes, picked by the
 * first input byte: raw bytes as an image, or a valid image built from the
 * input and then patched at input-chosen offsets (so the fuzzer reaches
 * the deep checks past the magic). Never crash, never read outside the
 * image, and an accepted image describes only bytes inside itself.
 * Built with -DSIMPLER_FUZZ=ON (clang). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "callable/callable_image.h"
#include "simpler/callable.h"

/* The image code comes from simpler_fuzz_lib (tests/CMakeLists.txt), a
 * copy of the library compiled with coverage instrumentation, so the
 * fuzzer's feedback reaches into it. */

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) __asan_poison_memory_region((p), (n))
#define UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#endif
#endif
#ifndef POISON
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Checks `image` (size bytes in a 64-aligned buffer whose tail past `size`
 * is poisoned) and the invariants of an accepted view. */
static void check_one(const uint8_t *image, size_t size)
{
    callable_view v;
    if (callable_image_check(image, size, &v) != 0)
        return;
    const uint8_t *end = image + size;
    if (v.orchestration + v.orchestration_size > end || v.signature + v.signature_count > end)
        abort();
    for (uint32_t i = 0; i < v.child_count; i++) {
        if (callable_view_child_binary(&v, i) + v.children[i].binary_size > end)
            abort();
    }
}

static void check_bytes(const uint8_t *bytes, size_t size)
{
    size_t rounded = (size + 63) / 64 * 64 + 64;
    uint8_t *image = aligned_alloc(64, rounded);
    if (image == NULL)
        return;
    memcpy(image, bytes, size);
    POISON(image + size, rounded - size);
    check_one(image, size);
    UNPOISON(image + size, rounded - size);
    free(image);
}

/* Builds a valid image from the input, then applies (offset, xor) patches
 * taken from the rest of the input. */
static void check_patched(const uint8_t *data, size_t size)
{
    if (size < 4)
        return;
    uint8_t sig[16];
    uint32_t sig_count = data[1] % 16, scalars_from = data[1] / 16;
    for (uint32_t i = 0; i < sig_count; i++)
        sig[i] = i >= scalars_from ? SIMPLER_ARG_SCALAR : (uint8_t)(1 + i % 3);
    static const uint8_t bin[300];
    SimplerCallableChildDesc kids[4];
    uint32_t kid_count = data[2] % 5;
    for (uint32_t i = 0; i < kid_count; i++) {
        SimplerCallableChildDesc c = {(int32_t)(i * 300 + data[3]), i & 1, 0, 0, NULL, bin, 1 + (data[3] + i) % 200};
        kids[i] = c;
    }
    SimplerCallableDesc d = {sizeof d, sig_count, sig, bin, 1 + data[3], "fuzz_entry", 0, kid_count, kids, 0, NULL};
    static _Alignas(64) uint8_t image[4096];
    size_t image_size;
    if (simpler_callable_build(&d, image, sizeof image, &image_size) != 0)
        return;
    for (size_t p = 4; p + 3 <= size; p += 3) {
        size_t at = ((size_t)data[p] << 8 | data[p + 1]) % image_size;
        image[at] ^= data[p + 2];
    }
    check_bytes(image, image_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A real image (the seed corpus) is checked as it is. */
    if (size >= 4 && memcmp(data, "SPCI", 4) != 0 && (data[0] & 1))
        check_patched(data, size);
    else
        check_bytes(data, size);
    return 0;
}
