/* A fixed-rate codec's size is what zfp writes, also where the stream does
 * not end on a whole word (odd rates, odd block counts, partial blocks, 1-
 * to 4-d, float32 and float64): ebb_codec_fixed_size, the length
 * ebb_codec_compress returns and zfp's own count agree, the state decodes
 * from exactly that many bytes, and one byte fewer is refused. */
#include "codec/data.h"
#include "support/zfp_odd_cases.h"

Test(fixed_rate_odd_sizes, the_fixed_size_is_what_zfp_writes)
{
    int cases = 0, odd_cases = 0, odd_dims[5] = {0};
    for (int e = EBB_ELEMENT_FLOAT32; e <= EBB_ELEMENT_FLOAT64; e++) {
        size_t es = ebb_element_size((ebb_element)e);
        for (int si = 0; si < ZFP_ODD_SHAPES; si++) {
            const zfp_odd_shape *sh = &zfp_odd_shapes[si];
            size_t size = zfp_odd_values(sh) * es;
            unsigned char *x = malloc(size), *y = malloc(size);
            cr_assert(x && y);
            fill_data(x, size, (ebb_element)e, DATA_SMOOTH, (uint64_t)si);
            for (int r = 0; r < ZFP_ODD_RATES; r++) {
                if (zfp_odd_rates[r] > (double)(8 * es))
                    continue;
                ebb_codec_options o = zfp_odd_options(sh, (ebb_element)e, zfp_odd_rates[r]);
                int odd = 0;
                size_t zfp_n = zfp_odd_written(&o, sh, x, &odd);
                ebb_codec *c;
                cr_assert_eq(ebb_codec_create(&o, size, &c), EBB_OK, "%s", ebb_last_error());
                const char *what = ebb_element_name((ebb_element)e);
                cr_assert_eq(ebb_codec_fixed_size(c), zfp_n,
                             "%s, %zu values in %d dims at rate %g: ebb reserves %zu bytes, zfp "
                             "writes %zu",
                             what, zfp_odd_values(sh), (int)sh->dims, o.rate,
                             ebb_codec_fixed_size(c), zfp_n);
                size_t cap = ebb_codec_bound(c), len = 0;
                cr_assert_geq(cap, zfp_n);
                unsigned char *z = malloc(cap);
                cr_assert_not_null(z);
                cr_assert_eq(ebb_codec_compress(c, x, z, cap, &len), EBB_OK, "%s at rate %g: %s",
                             what, o.rate, ebb_last_error());
                cr_assert_eq(len, zfp_n, "%s at rate %g: compress gave %zu bytes, zfp %zu", what,
                             o.rate, len, zfp_n);
                cr_assert_eq(ebb_codec_decompress(c, z, len, y), EBB_OK, "%s at rate %g: %s",
                             what, o.rate, ebb_last_error());
                cr_assert_eq(ebb_codec_decompress(c, z, len - 1, y), EBB_ERR_CHECKSUM,
                             "one byte short of the fixed size is not a state");
                free(z);
                ebb_codec_destroy(c);
                cases++;
                odd_cases += odd;
                odd_dims[sh->dims] += odd;
            }
            free(x);
            free(y);
        }
    }
    /* the cases are the ones the rounding matters for, in every dimension */
    cr_assert_geq(odd_cases, 100, "%d of %d cases end inside a word", odd_cases, cases);
    for (int d = 0; d <= 4; d++)
        cr_assert(d == 1 || odd_dims[d] > 0, "no case of %d dims ends inside a word", d);
}
