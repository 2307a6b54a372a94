/* Fixed-rate cases whose zfp stream does not end on a whole word (odd
 * rates, odd block counts, partial blocks, 1- to 4-d, float32 and float64),
 * and what zfp itself writes for one of them, asked of zfp directly (not
 * through ebb): the tests that check the size ebb reserves against it. */
#ifndef EBB_TESTS_SUPPORT_ZFP_ODD_CASES_H
#define EBB_TESTS_SUPPORT_ZFP_ODD_CASES_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <zfp.h>

#include "ebb/ebb.h"

typedef struct zfp_odd_shape {
    int32_t dims; /* 0: one dimension, the whole state */
    uint64_t shape[4];
} zfp_odd_shape;

/* Extents that leave partial blocks and odd block counts. */
static const zfp_odd_shape zfp_odd_shapes[] = {
    {0, {1}},         {0, {3}},          {0, {5}},       {0, {13}},
    {0, {71}},        {0, {1001}},       {2, {3, 5}},    {2, {7, 9}},
    {2, {13, 1}},     {3, {5, 3, 7}},    {3, {9, 9, 9}}, {4, {3, 5, 2, 7}},
    {4, {5, 5, 5, 5}},
};
#define ZFP_ODD_SHAPES ((int)(sizeof zfp_odd_shapes / sizeof zfp_odd_shapes[0]))

/* Bits per value; those above an element's bits are left out for it. */
static const double zfp_odd_rates[] = {1, 2.5, 3, 5, 7, 7.3, 9, 11, 13, 17, 23, 31, 33, 47, 63};
#define ZFP_ODD_RATES ((int)(sizeof zfp_odd_rates / sizeof zfp_odd_rates[0]))

static inline size_t zfp_odd_values(const zfp_odd_shape *s)
{
    size_t n = 1;
    for (int d = 0; d < (s->dims > 0 ? s->dims : 1); d++)
        n *= s->shape[d];
    return n;
}

/* Codec options for shape s of element e at `rate`. */
static inline ebb_codec_options zfp_odd_options(const zfp_odd_shape *s, ebb_element e, double rate)
{
    ebb_codec_options o;
    ebb_codec_options_init(&o);
    o.mode = EBB_COMPRESSION_FIXED_RATE;
    o.element = e;
    o.rate = rate;
    o.dims = s->dims;
    for (int d = 0; d < 4; d++)
        o.shape[d] = s->shape[d];
    return o;
}

/* What zfp writes compressing `data` (the state of options o) at o's rate,
 * asked of zfp alone; *odd: whether its blocks' bits end inside a stream
 * word (the stream is padded to one). */
static inline size_t zfp_odd_written(const ebb_codec_options *o, const zfp_odd_shape *s,
                                     void *data, int *odd)
{
    zfp_type t = o->element == EBB_ELEMENT_FLOAT32 ? zfp_type_float : zfp_type_double;
    zfp_field *f;
    switch (s->dims) {
    case 2: f = zfp_field_2d(data, t, s->shape[0], s->shape[1]); break;
    case 3: f = zfp_field_3d(data, t, s->shape[0], s->shape[1], s->shape[2]); break;
    case 4: f = zfp_field_4d(data, t, s->shape[0], s->shape[1], s->shape[2], s->shape[3]); break;
    default: f = zfp_field_1d(data, t, zfp_odd_values(s)); break;
    }
    zfp_stream *zs = zfp_stream_open(NULL);
    cr_assert(f && zs);
    zfp_stream_set_rate(zs, o->rate, t, s->dims > 0 ? (unsigned)s->dims : 1, zfp_false);
    size_t cap = zfp_stream_maximum_size(zs, f);
    void *buf = calloc(1, cap);
    bitstream *b = stream_open(buf, cap);
    cr_assert(buf && b);
    zfp_stream_set_bit_stream(zs, b);
    zfp_stream_rewind(zs);
    size_t n = zfp_compress(zs, f);
    cr_assert_gt(n, 0, "zfp compressed nothing");
    *odd = (zfp_field_blocks(f) * (uint64_t)zs->maxbits) % stream_word_bits != 0;
    stream_close(b);
    zfp_stream_close(zs);
    zfp_field_free(f);
    free(buf);
    return n;
}

#endif
