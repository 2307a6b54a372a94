/* Lossless compression gives back every byte: random cases over the codecs,
 * shuffles, element types, data kinds and sizes (some across the 16 MiB
 * chunk boundary), each compressed within the bound and decoded bitwise
 * equal; smooth and sparse data shrink, random data does not grow past the
 * bound. */
#include "codec/data.h"

static void round_trip(const ebb_codec_options *o, size_t n, data_kind kind, uint64_t seed,
                       size_t *len_out)
{
    unsigned char *x = malloc(n), *y = malloc(n);
    cr_assert(x && y);
    fill_data(x, n, o->element, kind, seed);
    ebb_codec *c;
    cr_assert_eq(ebb_codec_create(o, n, &c), EBB_OK, "%s", ebb_last_error());
    size_t cap = ebb_codec_bound(c), len = 0;
    cr_assert_geq(cap, n);
    unsigned char *z = malloc(cap);
    cr_assert(z);
    cr_assert_eq(ebb_codec_compress(c, x, z, cap, &len), EBB_OK, "%s", ebb_last_error());
    cr_assert(len > 0 && len <= cap);
    memset(y, 0xA5, n);
    cr_assert_eq(ebb_codec_decompress(c, z, len, y), EBB_OK, "%s", ebb_last_error());
    cr_assert(memcmp(x, y, n) == 0, "%s %s shuffle %s, %s, %zu bytes: decoded state differs",
              ebb_codec_name_str(o->codec), ebb_element_name(o->element),
              ebb_shuffle_name(o->shuffle), data_name(kind), n);
    *len_out = len;
    ebb_codec_destroy(c);
    free(x);
    free(y);
    free(z);
}

Test(lossless, random_cases_round_trip_bitwise)
{
    uint64_t s = 42;
    for (int i = 0; i < 300; i++) {
        ebb_codec_options o;
        ebb_codec_options_init(&o);
        o.mode = EBB_COMPRESSION_LOSSLESS;
        o.codec = (ebb_codec_name)(rng_next(&s) % EBB_CODEC_COUNT);
        o.shuffle = (ebb_shuffle)(rng_next(&s) % EBB_SHUFFLE_COUNT);
        o.element = (ebb_element)(rng_next(&s) % EBB_ELEMENT_COUNT);
        o.level = 1 + (int)(rng_next(&s) % 9);
        o.threads = 1 + (int)(rng_next(&s) % 3);
        size_t es = ebb_element_size(o.element);
        size_t n = es * (1 + rng_next(&s) % (i % 10 == 0 ? 200000 : 5000));
        size_t len;
        round_trip(&o, n, (data_kind)(rng_next(&s) % DATA_KINDS), rng_next(&s), &len);
    }
}

Test(lossless, across_the_chunk_boundary)
{
    ebb_codec_options o;
    ebb_codec_options_init(&o);
    o.mode = EBB_COMPRESSION_LOSSLESS;
    o.element = EBB_ELEMENT_FLOAT64;
    size_t len;
    /* two chunks and a bit: the second and third are decoded from where
     * the first one's header says it ends */
    round_trip(&o, (32u << 20) + 8 * 3, DATA_SMOOTH, 7, &len);
    round_trip(&o, (16u << 20) + 8, DATA_RANDOM, 8, &len);
}

Test(lossless, smooth_and_sparse_shrink_random_stays_bounded)
{
    ebb_codec_options o;
    ebb_codec_options_init(&o);
    o.mode = EBB_COMPRESSION_LOSSLESS;
    o.element = EBB_ELEMENT_FLOAT64;
    o.codec = EBB_CODEC_ZSTD;
    size_t n = 1 << 20, len;
    round_trip(&o, n, DATA_SMOOTH, 1, &len);
    cr_assert_lt(len, n * 9 / 10, "smooth float64: %zu of %zu bytes", len, n);
    round_trip(&o, n, DATA_SPARSE, 2, &len);
    cr_assert_lt(len, n / 4, "sparse float64: %zu of %zu bytes", len, n);
    o.element = EBB_ELEMENT_BYTES;
    round_trip(&o, n, DATA_RANDOM, 3, &len);
    cr_assert_geq(len, n * 99 / 100, "random bytes do not compress: %zu of %zu", len, n);
}
