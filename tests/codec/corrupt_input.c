/* A damaged compressed state never crashes the decoder (run under ASan and
 * UBSan in the sanitizer build): thousands of random byte flips,
 * truncations and extensions of lossless and lossy states. Truncated and
 * extended lossless states, damaged headers and wrong fixed-rate lengths are
 * always refused with EBB_ERR_CHECKSUM; a flip inside lossless data may
 * decode to other bytes (c-blosc keeps no checksum: the disk tier's does). */
#include "codec/data.h"

static void damage(const ebb_codec_options *o, size_t n, int rounds, uint64_t seed)
{
    unsigned char *x = malloc(n), *y = malloc(n);
    cr_assert(x && y);
    fill_data(x, n, o->element, DATA_SMOOTH, seed);
    ebb_codec *c;
    cr_assert_eq(ebb_codec_create(o, n, &c), EBB_OK, "%s", ebb_last_error());
    size_t cap = ebb_codec_bound(c), len;
    unsigned char *z = malloc(cap), *bad = malloc(cap + 64);
    cr_assert(z && bad);
    cr_assert_eq(ebb_codec_compress(c, x, z, cap, &len), EBB_OK);
    uint64_t s = seed;
    int refused = 0;
    for (int i = 0; i < rounds; i++) {
        memcpy(bad, z, len);
        size_t blen = len;
        int kind = (int)(rng_next(&s) % 4);
        if (kind == 0) { /* flips */
            for (int f = 0; f < 1 + (int)(rng_next(&s) % 4); f++)
                bad[rng_next(&s) % len] ^= (unsigned char)(1 + rng_next(&s) % 255);
        } else if (kind == 1) { /* a flip in the first 16 bytes: blosc's header */
            bad[rng_next(&s) % (len < 16 ? len : 16)] ^= (unsigned char)(1 + rng_next(&s) % 255);
        } else if (kind == 2) { /* truncated */
            blen = rng_next(&s) % len;
        } else { /* longer */
            blen = len + 1 + rng_next(&s) % 64;
            for (size_t k = len; k < blen; k++)
                bad[k] = (unsigned char)rng_next(&s);
        }
        ebb_status st = blen <= cap ? ebb_codec_decompress(c, bad, blen, y) : EBB_ERR_CHECKSUM;
        cr_assert(st == EBB_OK || st == EBB_ERR_CHECKSUM, "%s", ebb_status_name(st));
        if (st != EBB_OK) {
            refused++;
            cr_assert(strlen(ebb_last_error()) > 0);
        }
        int must = o->mode == EBB_COMPRESSION_LOSSLESS ? kind >= 2
                                                        : o->mode == EBB_COMPRESSION_FIXED_RATE &&
                                                              kind >= 2;
        if (must && blen != len)
            cr_assert_eq(st, EBB_ERR_CHECKSUM, "%s, %zu bytes of %zu: decoded",
                         ebb_compression_name(o->mode), blen, len);
    }
    cr_assert_gt(refused, 0);
    ebb_codec_destroy(c);
    free(x);
    free(y);
    free(z);
    free(bad);
}

Test(corrupt_input, lossless_never_crashes)
{
    ebb_codec_options o;
    ebb_codec_options_init(&o);
    o.mode = EBB_COMPRESSION_LOSSLESS;
    o.element = EBB_ELEMENT_FLOAT64;
    for (int codec = 0; codec < EBB_CODEC_COUNT; codec++) {
        o.codec = (ebb_codec_name)codec;
        damage(&o, 8 * 4096, 1000, 10 + (uint64_t)codec);
    }
}

Test(corrupt_input, lossy_never_crashes)
{
    ebb_codec_options o;
    ebb_codec_options_init(&o);
    o.element = EBB_ELEMENT_FLOAT64;
    o.rate = 12;
    o.precision = 24;
    o.accuracy = 1e-7;
    for (int m = EBB_COMPRESSION_FIXED_RATE; m <= EBB_COMPRESSION_FIXED_ACCURACY; m++) {
        o.mode = (ebb_compression)m;
        damage(&o, 8 * 4096, 1000, 20 + (uint64_t)m);
    }
}
