/* Fixed-rate (zfp) compression on the disk tier stores exactly the codec's
 * fixed size per state (the statistics say so) and loads back what the codec
 * decodes: bitwise the values an in-memory compress-decompress round trip of
 * the same codec gives, within zfp's error of the original; 2-d shape,
 * both engines. */
#include <math.h>

#include "storage/codec_helpers.h"

static void fixed_rate(ebb_disk_backend backend)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const uint64_t nx = 512, ny = 300;
    const size_t size = (size_t)(nx * ny) * sizeof(double);
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_FIXED_RATE, EBB_ELEMENT_FLOAT64);
    c.rate = 16;
    c.dims = 2;
    c.shape[0] = nx;
    c.shape[1] = ny;
    ebb_codec *ref = NULL;
    cr_assert_eq(ebb_codec_create(&c, size, &ref), EBB_OK, "%s", ebb_last_error());
    size_t fixed = ebb_codec_fixed_size(ref);
    cr_assert_gt(fixed, 0);
    cr_assert_lt(fixed, size / 3);

    ebb_pool *h = host_pool(size, 3);
    ebb_pool *d = codec_disk(dirs, size, 4, backend, 0, 128 * KiB, &c, 3, h);
    c.rate = 64; /* copied at create: changing it now changes nothing */
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_str_eq(info.compression, "fixed-rate");
    cr_assert_eq(info.codec_threads, 3);

    unsigned char *packed = malloc(ebb_codec_bound(ref));
    double *expect = malloc(size);
    cr_assert(packed && expect);
    for (int32_t s = 0; s < 4; s++) {
        fill_data(slot_ptr(h, 0), size, EBB_ELEMENT_FLOAT64, s % 2 ? DATA_SPARSE : DATA_SMOOTH,
                  (uint64_t)s + 5);
        size_t len = 0;
        cr_assert_eq(ebb_codec_compress(ref, slot_ptr(h, 0), packed, ebb_codec_bound(ref), &len),
                     EBB_OK);
        cr_assert_eq(ebb_codec_decompress(ref, packed, len, expect), EBB_OK);
        memset(slot_ptr(h, 1), 0, size);
        store_load(h, d, 0, s, 1);
        const double *orig = slot_ptr(h, 0), *got = slot_ptr(h, 1);
        cr_assert(memcmp(got, expect, size) == 0,
                  "slot %d: not what the codec decodes in memory", s);
        double err = 0;
        for (size_t i = 0; i < size / sizeof(double); i++)
            err = fmax(err, fabs(got[i] - orig[i]));
        cr_assert_lt(err, 1e-2, "slot %d: largest error %g", s, err);
    }
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.writes, 4);
    cr_assert_eq(st.stored_raw, 0);
    cr_assert_eq(st.bytes_before_compression, 4 * size);
    cr_assert_eq(st.bytes_after_compression, 4 * fixed, "%llu bytes stored, expected 4 x %zu",
                 (unsigned long long)st.bytes_after_compression, fixed);
    cr_assert_eq(st.bytes_written, 4 * size); /* states' bytes */
    /* only the compressed length's blocks go to disk and come back */
    size_t block = 128 * KiB;
    cr_assert_eq(st.requests, 2 * 4 * ((fixed + block - 1) / block), "%llu requests",
                 (unsigned long long)st.requests);
    free(packed);
    free(expect);
    ebb_codec_destroy(ref);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_codec_fixed_rate, io_uring) { fixed_rate(EBB_DISK_BACKEND_URING); }
Test(disk_codec_fixed_rate, threads) { fixed_rate(EBB_DISK_BACKEND_THREADS); }
