/* The states the codec tests compress: random bytes (incompressible),
 * smooth fields (a sum of slow sines, as a PDE solver's) and sparse ones
 * (mostly zeros, as a spiking network's), from a seeded generator: the
 * ones `ebb bench --compression --data` and `ebb run --data` make
 * (tools/state_data.c, in the tests' support library), under the tests'
 * names. */
#ifndef EBB_TESTS_CODEC_DATA_H
#define EBB_TESTS_CODEC_DATA_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"
#include "tools/state_data.h"

typedef state_data data_kind;
#define DATA_RANDOM STATE_DATA_RANDOM
#define DATA_SMOOTH STATE_DATA_SMOOTH
#define DATA_SPARSE STATE_DATA_SPARSE
#define DATA_KINDS STATE_DATA_COUNT

static inline uint64_t rng_next(uint64_t *s) { return state_data_next(s); }

/* Fills n bytes of `buf` (a whole number of elements unless bytes). Random
 * floats are uniform in [-1, 1) (random bits would hold NaNs and infinities,
 * which no lossy mode promises anything about). */
static inline void fill_data(void *buf, size_t n, ebb_element e, data_kind kind, uint64_t seed)
{
    state_data_fill(buf, n, e, kind, seed);
}

static inline const char *data_name(data_kind k) { return state_data_name(k); }

#endif
