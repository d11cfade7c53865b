/* libFuzzer target for the loader: a valid container around real fixture
 * binaries (read from the corpus seed directory's neighbours at start),
 * one binary of which the input mutates. Two modes, by the first byte:
 *  - check only: any bytes patched anywhere in the binary; the ELF check
 *    must not read outside it (ASan, exact-size poisoned copy) and what it
 *    accepts has every segment inside the binary;
 *  - load: the binary truncated at an input-chosen length and patched only
 *    in its ELF header and section header table (fields the dynamic loader
 *    either never reads or the check fully decides), then callable_load
 *    end to end: it must refuse or load, never crash, and leak nothing.
 * Segment contents are trusted code (loading runs constructors), so
 * arbitrary bytes are never handed to dlopen. */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callable/elf_check.h"
#include "callable/loader.h"
#include "simpler/callable.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef FUZZ_FIXTURE_SO
#error "FUZZ_FIXTURE_SO names a fixture kernel .so (tests/CMakeLists.txt)"
#endif

static uint8_t *kernel;
static size_t kernel_size;

static void load_fixture(void)
{
    FILE *f = fopen(FUZZ_FIXTURE_SO, "rb");
    if (f == NULL)
        abort();
    fseek(f, 0, SEEK_END);
    kernel_size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    kernel = malloc(kernel_size);
    if (kernel == NULL || fread(kernel, 1, kernel_size, f) != kernel_size)
        abort();
    fclose(f);
}

static void check_only(const uint8_t *data, size_t size)
{
    uint8_t *b = malloc(kernel_size);
    memcpy(b, kernel, kernel_size);
    for (size_t p = 1; p + 3 <= size; p += 3) {
        size_t at = ((size_t)data[p] << 8 | data[p + 1]) * 7 % kernel_size;
        b[at] ^= data[p + 2];
    }
    size_t n = size > 1 && (data[1] & 1) ? kernel_size - (size_t)data[1] * 31 % kernel_size : kernel_size;
    uint8_t *exact = malloc(n ? n : 1);
    memcpy(exact, b, n);
    if (elf_shared_object_check(exact, n, NULL) == 0) {
        Elf64_Ehdr eh;
        memcpy(&eh, exact, sizeof eh);
        for (uint32_t i = 0; i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            memcpy(&ph, exact + eh.e_phoff + (uint64_t)i * sizeof ph, sizeof ph);
            if (ph.p_offset > n || ph.p_filesz > n - ph.p_offset)
                abort();
        }
        (void)elf_dynamic_symbol_find(exact, n, "kernel_entry");
    }
    free(exact);
    free(b);
}

static void load(const uint8_t *data, size_t size)
{
    if (size < 3)
        return;
    size_t n = kernel_size - (((size_t)data[1] << 8 | data[2]) % 64 == 0 ? 0 : ((size_t)data[1] << 8 | data[2]) % kernel_size);
    uint8_t *b = malloc(kernel_size);
    memcpy(b, kernel, kernel_size);
    Elf64_Ehdr eh;
    memcpy(&eh, kernel, sizeof eh);
    for (size_t p = 3; p + 3 <= size; p += 3) {
        size_t at;
        if (data[p] & 1)
            at = data[p + 1] % sizeof eh;
        else
            at = eh.e_shoff + ((size_t)data[p] << 8 | data[p + 1]) % ((size_t)eh.e_shnum * sizeof(Elf64_Shdr));
        /* e_phoff and the program header fields: only via truncation. */
        if (at >= offsetof(Elf64_Ehdr, e_phoff) && at < offsetof(Elf64_Ehdr, e_phoff) + 8)
            continue;
        if (at >= offsetof(Elf64_Ehdr, e_phentsize) && at < offsetof(Elf64_Ehdr, e_phnum) + 2)
            continue;
        if (at < kernel_size)
            b[at] ^= data[p + 2];
    }
    static const uint8_t sig[1] = {SIMPLER_ARG_IN};
    SimplerCallableChildDesc kid = {1, SIMPLER_CORE_TYPE_AIV, 0, 0, NULL, b, n};
    SimplerCallableDesc d = {sizeof d, 1, sig, kernel, kernel_size, "kernel_entry", 0, 1, &kid, 0, NULL};
    size_t image_size;
    if (n == 0 || simpler_callable_build(&d, NULL, 0, &image_size) != 0) {
        free(b);
        return;
    }
    uint8_t *image = aligned_alloc(64, (image_size + 63) / 64 * 64);
    if (simpler_callable_build(&d, image, image_size, &image_size) == 0) {
        loaded_callable *lc = NULL;
        if (callable_load(image, image_size, NULL, &lc) == 0)
            callable_unload(lc);
    }
    free(image);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (kernel == NULL)
        load_fixture();
    if (size > 0 && (data[0] & 1))
        load(data, size);
    else
        check_only(data, size);
    return 0;
}
