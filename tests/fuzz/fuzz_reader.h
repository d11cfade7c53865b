/* The fuzz targets' byte reader: takes the input a byte at a time, and
 * reads zeros once it is used up, so every input decodes to something. */
#ifndef SIMPLER_FUZZ_READER_H
#define SIMPLER_FUZZ_READER_H

#include <stddef.h>
#include <stdint.h>

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static inline uint8_t take(reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

/* Little-endian, like the images the targets decode. */
static inline uint32_t take16(reader *r)
{
    uint32_t lo = take(r);
    return lo | (uint32_t)take(r) << 8;
}

static inline uint32_t take32(reader *r)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)take(r) << (8 * i);
    return v;
}

#endif
