/* The states the codec tests compress: random bytes (incompressible),
 * smooth fields (a sum of slow sines, as a PDE solver's) and sparse ones
 * (mostly zeros, as a spiking network's), from a seeded generator. */
#ifndef EBB_TESTS_CODEC_DATA_H
#define EBB_TESTS_CODEC_DATA_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"

typedef enum { DATA_RANDOM, DATA_SMOOTH, DATA_SPARSE, DATA_KINDS } data_kind;

static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1p-53; }

/* Fills n bytes of `buf` (a whole number of elements unless bytes). Random
 * floats are uniform in [-1, 1) (random bits would hold NaNs and infinities,
 * which no lossy mode promises anything about). */
static inline void fill_data(void *buf, size_t n, ebb_element e, data_kind kind, uint64_t seed)
{
    uint64_t s = seed;
    size_t es = ebb_element_size(e), count = n / es;
    if (e == EBB_ELEMENT_BYTES) {
        unsigned char *b = buf;
        for (size_t i = 0; i < n; i++)
            b[i] = kind == DATA_SPARSE && rng_unit(&s) < 0.95 ? 0 : (unsigned char)rng_next(&s);
        if (kind == DATA_SMOOTH)
            for (size_t i = 0; i < n; i++)
                b[i] = (unsigned char)(i / 64);
        return;
    }
    double a = 1 + rng_unit(&s), f = 1e-4 * (1 + rng_unit(&s));
    for (size_t i = 0; i < count; i++) {
        double v = kind == DATA_SMOOTH   ? a * sin(f * (double)i) + 0.5 * cos(3.1 * f * (double)i)
                   : kind == DATA_RANDOM ? 2 * rng_unit(&s) - 1
                   : rng_unit(&s) < 0.95 ? 0.0
                                         : rng_unit(&s) - 0.5;
        if (e == EBB_ELEMENT_FLOAT32)
            ((float *)buf)[i] = (float)v;
        else
            ((double *)buf)[i] = v;
    }
}

static inline const char *data_name(data_kind k)
{
    return k == DATA_RANDOM ? "random" : k == DATA_SMOOTH ? "smooth" : "sparse";
}

#endif
