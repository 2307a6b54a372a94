/* Options that cannot work are refused at create, each naming the field and
 * what it must be. */
#include <stdio.h>

#include "codec/data.h"

static void refused(const ebb_codec_options *o, size_t n, ebb_status want, const char *text)
{
    ebb_codec *c = (ebb_codec *)0x1;
    ebb_status st = ebb_codec_create(o, n, &c);
    cr_assert_eq(st, want, "%s: got %s (%s)", text, ebb_status_name(st), ebb_last_error());
    cr_assert_null(c, "*out is NULL on failure");
    cr_assert(strstr(ebb_last_error(), text), "message '%s' lacks '%s'", ebb_last_error(), text);
}

static ebb_codec_options base(ebb_compression mode)
{
    ebb_codec_options o;
    ebb_codec_options_init(&o);
    o.mode = mode;
    o.element = EBB_ELEMENT_FLOAT64;
    o.rate = 16;
    o.precision = 20;
    o.accuracy = 1e-6;
    return o;
}

Test(bad_options, each_refused_with_its_field)
{
    ebb_codec_options o = base(EBB_COMPRESSION_OFF);
    refused(&o, 64, EBB_ERR_INVALID_ARG, "mode is off");
    o = base(EBB_COMPRESSION_LOSSLESS);
    o.level = 0;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "level is 0: expected 1");
    o.level = 10;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "level is 10");
    o = base(EBB_COMPRESSION_LOSSLESS);
    o.threads = 0;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "threads is 0");
    o.threads = EBB_CODEC_THREADS_MAX + 1;
    char most[64];
    snprintf(most, sizeof most, "threads is %d: expected 1 .. %d", EBB_CODEC_THREADS_MAX + 1,
             EBB_CODEC_THREADS_MAX);
    refused(&o, 64, EBB_ERR_INVALID_ARG, most);
    o = base(EBB_COMPRESSION_LOSSLESS);
    o.codec = EBB_CODEC_COUNT;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "codec is 5");
    o = base(EBB_COMPRESSION_LOSSLESS);
    o.shuffle = EBB_SHUFFLE_COUNT;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "shuffle is 3");
    o = base(EBB_COMPRESSION_FIXED_RATE);
    o.element = EBB_ELEMENT_BYTES;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "needs the state's element type");
    o = base(EBB_COMPRESSION_FIXED_RATE);
    o.rate = 65;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "rate is 65: expected 1 .. 64 bits per float64");
    o.element = EBB_ELEMENT_FLOAT32;
    o.rate = 33;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "rate is 33: expected 1 .. 32");
    o.rate = 0.5;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "rate is 0.5");
    o = base(EBB_COMPRESSION_FIXED_PRECISION);
    o.precision = 0;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "precision is 0");
    o = base(EBB_COMPRESSION_FIXED_ACCURACY);
    o.accuracy = 0;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "accuracy is 0");
    o.accuracy = INFINITY;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "accuracy is inf");
    o = base(EBB_COMPRESSION_FIXED_ACCURACY);
    refused(&o, 63, EBB_ERR_INVALID_ARG, "63 bytes is not a whole number of float64 values");
    refused(&o, 0, EBB_ERR_INVALID_ARG, "0 bytes");
    o.dims = 2;
    o.shape[0] = 3;
    o.shape[1] = 3;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "shape holds 9 values, the state 8 float64 values");
    o.shape[1] = 0;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "shape[1] is 0");
    o.dims = 5;
    refused(&o, 64, EBB_ERR_INVALID_ARG, "dims is 5");
}

Test(bad_options, names_round_trip_and_unknown_ones_listed)
{
    for (int m = 0; m < EBB_COMPRESSION_COUNT; m++) {
        ebb_compression back;
        cr_assert_eq(ebb_compression_from_name(ebb_compression_name((ebb_compression)m), &back),
                     EBB_OK);
        cr_assert_eq((int)back, m);
    }
    for (int c = 0; c < EBB_CODEC_COUNT; c++) {
        ebb_codec_name back;
        cr_assert_eq(ebb_codec_from_name(ebb_codec_name_str((ebb_codec_name)c), &back), EBB_OK);
        cr_assert_eq((int)back, c);
    }
    ebb_codec_name c;
    cr_assert_eq(ebb_codec_from_name("lz5", &c), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "unknown codec \"lz5\": expected \"lz4\", \"lz4hc\", "
                                       "\"zstd\", \"zlib\" or \"blosclz\""),
              "%s", ebb_last_error());
    ebb_element e;
    cr_assert_eq(ebb_element_from_name("double", &e), EBB_ERR_INVALID_ARG);
    cr_assert_str_eq(ebb_element_name((ebb_element)9), "?");
}

Test(bad_options, calls_with_wrong_arguments)
{
    ebb_codec_options o = base(EBB_COMPRESSION_LOSSLESS);
    ebb_codec *c;
    cr_assert_eq(ebb_codec_create(NULL, 64, &c), EBB_ERR_INVALID_ARG);
    cr_assert_eq(ebb_codec_create(&o, 64, NULL), EBB_ERR_INVALID_ARG);
    cr_assert_eq(ebb_codec_create(&o, 64, &c), EBB_OK);
    double x[8] = {0}, y[8];
    unsigned char z[256];
    size_t len;
    cr_assert_eq(ebb_codec_compress(c, x, z, ebb_codec_bound(c) - 1, &len), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "below the bound"), "%s", ebb_last_error());
    cr_assert_eq(ebb_codec_compress(c, NULL, z, sizeof z, &len), EBB_ERR_INVALID_ARG);
    cr_assert_eq(ebb_codec_decompress(c, z, 0, y), EBB_ERR_CHECKSUM);
    cr_assert_eq(ebb_codec_decompress(c, z, ebb_codec_bound(c) + 1, y), EBB_ERR_CHECKSUM);
    cr_assert_eq(ebb_codec_state_size(c), 64);
    ebb_codec_destroy(c);
    ebb_codec_destroy(NULL);
}
