/* zfp's lossy modes keep their promises: fixed rate compresses every state
 * to the size known before (rate bits a value: 16 bits of float64 is a
 * quarter), fixed accuracy stays within its error, fixed precision's error
 * falls as the precision rises; 1-d to 4-d shapes. */
#include "codec/data.h"

static double max_error(const ebb_codec_options *o, size_t count, data_kind kind, size_t *len)
{
    size_t es = ebb_element_size(o->element), n = count * es;
    unsigned char *x = malloc(n), *y = malloc(n);
    cr_assert(x && y);
    fill_data(x, n, o->element, kind, 99);
    ebb_codec *c;
    cr_assert_eq(ebb_codec_create(o, n, &c), EBB_OK, "%s", ebb_last_error());
    size_t cap = ebb_codec_bound(c);
    unsigned char *z = malloc(cap);
    cr_assert(z);
    cr_assert_eq(ebb_codec_compress(c, x, z, cap, len), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_codec_decompress(c, z, *len, y), EBB_OK, "%s", ebb_last_error());
    double worst = 0;
    for (size_t i = 0; i < count; i++) {
        double a = es == 4 ? ((float *)x)[i] : ((double *)x)[i];
        double b = es == 4 ? ((float *)y)[i] : ((double *)y)[i];
        worst = fabs(a - b) > worst ? fabs(a - b) : worst;
    }
    if (o->mode == EBB_COMPRESSION_FIXED_RATE)
        cr_assert_eq(*len, ebb_codec_fixed_size(c), "fixed rate: %zu bytes, said %zu", *len,
                     ebb_codec_fixed_size(c));
    else
        cr_assert_eq(ebb_codec_fixed_size(c), 0);
    ebb_codec_destroy(c);
    free(x);
    free(y);
    free(z);
    return worst;
}

Test(lossy, fixed_rate_size_is_known_before)
{
    ebb_codec_options o;
    ebb_codec_options_init(&o);
    o.mode = EBB_COMPRESSION_FIXED_RATE;
    o.element = EBB_ELEMENT_FLOAT64;
    o.rate = 16;
    size_t len;
    const size_t count = 1 << 16;
    for (int k = 0; k < DATA_KINDS; k++) {
        max_error(&o, count, (data_kind)k, &len);
        cr_assert_eq(len, count * 8 / 4, "16 bits of 64: a quarter, got %zu of %zu", len,
                     count * 8);
    }
    o.element = EBB_ELEMENT_FLOAT32;
    o.rate = 8;
    max_error(&o, count, DATA_SMOOTH, &len);
    cr_assert_eq(len, count * 4 / 4);
}

Test(lossy, fixed_accuracy_within_its_bound)
{
    const double tol[] = {1e-2, 1e-5, 1e-9};
    for (int e = EBB_ELEMENT_FLOAT32; e <= EBB_ELEMENT_FLOAT64; e++)
        for (int k = 0; k < DATA_KINDS; k++)
            for (int t = e == EBB_ELEMENT_FLOAT32 ? 0 : 0; t < (e == EBB_ELEMENT_FLOAT32 ? 2 : 3);
                 t++) {
                ebb_codec_options o;
                ebb_codec_options_init(&o);
                o.mode = EBB_COMPRESSION_FIXED_ACCURACY;
                o.element = (ebb_element)e;
                o.accuracy = tol[t];
                size_t len;
                double err = max_error(&o, 10000, (data_kind)k, &len);
                cr_assert_leq(err, tol[t], "%s %s: error %g above %g",
                              ebb_element_name(o.element), data_name((data_kind)k), err, tol[t]);
            }
}

Test(lossy, precision_buys_accuracy)
{
    ebb_codec_options o;
    ebb_codec_options_init(&o);
    o.mode = EBB_COMPRESSION_FIXED_PRECISION;
    o.element = EBB_ELEMENT_FLOAT64;
    size_t len16, len40;
    o.precision = 16;
    double e16 = max_error(&o, 4096, DATA_SMOOTH, &len16);
    o.precision = 40;
    double e40 = max_error(&o, 4096, DATA_SMOOTH, &len40);
    cr_assert_lt(e40, e16 / 1000, "precision 40: error %g, 16: %g", e40, e16);
    cr_assert_gt(len40, len16);
}

Test(lossy, shapes_up_to_four_dimensions)
{
    const uint64_t shapes[4][4] = {{4096}, {64, 64}, {16, 16, 16}, {8, 8, 8, 8}};
    for (int d = 1; d <= 4; d++) {
        ebb_codec_options o;
        ebb_codec_options_init(&o);
        o.mode = EBB_COMPRESSION_FIXED_ACCURACY;
        o.element = EBB_ELEMENT_FLOAT64;
        o.accuracy = 1e-6;
        o.dims = d;
        memcpy(o.shape, shapes[d - 1], sizeof o.shape);
        size_t len;
        cr_assert_leq(max_error(&o, 4096, DATA_SMOOTH, &len), 1e-6, "%d dims", d);
    }
}
