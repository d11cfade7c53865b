/* libFuzzer target for simpler_callable_build with arbitrary descriptors:
 * counts, signature bytes, child ids, core types, signature lengths,
 * binary sizes, entry names and capacities all come from the input. The
 * builder must refuse or build without reading past any array it was
 * given (exact-size copies), an image it builds must pass
 * simpler_callable_check with the same size the size query gave, and a
 * refused build writes nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_reader.h"
#include "simpler/callable.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    uint32_t sig_count = take(&r) % 40;
    uint8_t *sig = malloc(sig_count ? sig_count : 1);
    for (uint32_t i = 0; i < sig_count; i++)
        sig[i] = take(&r) % 5;
    uint32_t kid_count = take(&r) % 6;
    SimplerCallableChildDesc *kids = calloc(kid_count ? kid_count : 1, sizeof *kids);
    uint8_t *kid_sigs[6] = {NULL};
    uint8_t *bins[7] = {NULL};
    for (uint32_t i = 0; i < kid_count; i++) {
        kids[i].func_id = (int32_t)(take16(&r) % 1100) - 20;
        kids[i].core_type = take(&r) % 3;
        kids[i].signature_count = take(&r) % 36;
        kids[i].reserved0 = take(&r) == 7;
        kid_sigs[i] = malloc(kids[i].signature_count ? kids[i].signature_count : 1);
        for (uint32_t k = 0; k < kids[i].signature_count; k++)
            kid_sigs[i][k] = take(&r) % 5;
        kids[i].signature = kids[i].signature_count || (take(&r) & 1) ? kid_sigs[i] : NULL;
        size_t bsize = take16(&r) % 700;
        bins[i] = malloc(bsize ? bsize : 1);
        memset(bins[i], 0x5a, bsize);
        kids[i].binary = take(&r) == 3 ? NULL : bins[i];
        kids[i].binary_size = bsize;
    }
    char entry[80];
    size_t entry_len = take(&r) % 70;
    for (size_t i = 0; i < entry_len; i++)
        entry[i] = (char)(take(&r) % 4 == 0 ? '0' + i % 10 : 'a' + i % 26);
    entry[entry_len] = '\0';
    size_t osize = take16(&r) % 900;
    bins[6] = malloc(osize ? osize : 1);
    memset(bins[6], 0xa5, osize);
    SimplerCallableDesc d = {sizeof d, sig_count, sig, bins[6], osize, entry, take(&r) % 4, kid_count, kids, 0, NULL};
    if (take(&r) == 1)
        d.struct_size--;
    size_t want = 0;
    if (simpler_callable_build(&d, NULL, 0, &want) == 0) {
        size_t cap = want - (take(&r) == 9 ? 1 : 0);
        uint8_t *out = aligned_alloc(64, (want + 63) / 64 * 64);
        memset(out, 0xee, (want + 63) / 64 * 64);
        size_t got = 0;
        int rc = simpler_callable_build(&d, out, cap, &got);
        if (rc == 0 && (got != want || simpler_callable_check(out, got) != 0))
            abort();
        if (rc != 0 && out[0] != 0xee)
            abort();
        free(out);
    }
    for (uint32_t i = 0; i < 7; i++)
        free(bins[i]);
    for (uint32_t i = 0; i < kid_count; i++)
        free(kid_sigs[i]);
    free(kids);
    free(sig);
    return 0;
}
