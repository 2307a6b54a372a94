/* Compression's options: a gpu pool refuses it, and a host pool any mode
 * but fixed-rate (tests/storage/host_codec_fixed_rate.c), naming the option; mode off is no compression anywhere; a disk
 * pool refuses codec_threads out of range and codec options the codec
 * refuses, naming them; ebb_pool_info says what a pool runs. */
#include "storage/codec_helpers.h"

Test(disk_codec_options, host_and_gpu_refuse_compression)
{
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_LOSSLESS, EBB_ELEMENT_BYTES);
    ebb_tier tiers[2] = {EBB_TIER_HOST, EBB_TIER_GPU};
    for (int i = 0; i < 2; i++) {
        ebb_pool_options o;
        ebb_pool_options_init(&o, tiers[i]);
        o.slot_size = 4096;
        o.slots = 2;
        o.compression = &c;
        ebb_pool *p = NULL;
        cr_assert_eq(ebb_pool_create(&o, &p), EBB_ERR_INVALID_ARG);
        cr_assert_null(p);
        const char *msg = ebb_last_error();
        cr_assert(strstr(msg, tiers[i] == EBB_TIER_GPU ? "compression is for the host and disk "
                                                         "tiers"
                                                       : "which the host tier refuses") &&
                      strstr(msg, "ebb_pool_options.compression") && strstr(msg, "lossless"),
                  "%s", msg);
    }
    /* mode off: a host pool as ever, its info says off */
    c.mode = EBB_COMPRESSION_OFF;
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = 4096;
    o.slots = 2;
    o.compression = &c;
    ebb_pool *p = NULL;
    cr_assert_eq(ebb_pool_create(&o, &p), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(p, &info);
    cr_assert_str_eq(info.compression, "off");
    cr_assert_eq(info.codec_threads, 0);
    ebb_pool_destroy(p);
}

Test(disk_codec_options, disk_checks)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_LOSSLESS, EBB_ELEMENT_BYTES);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, 64 * KiB, 2, EBB_DISK_BACKEND_THREADS);
    o.compression = &c;
    ebb_pool *d = NULL;
    int32_t bad_threads[2] = {-1, 257};
    for (int i = 0; i < 2; i++) {
        o.codec_threads = bad_threads[i];
        cr_assert_eq(ebb_pool_create(&o, &d), EBB_ERR_INVALID_ARG);
        cr_assert(strstr(ebb_last_error(), "codec_threads") != NULL, "%s", ebb_last_error());
    }
    o.codec_threads = 0;
    c.mode = EBB_COMPRESSION_FIXED_RATE; /* without a float element */
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "disk pool compression") &&
                  strstr(ebb_last_error(), "ebb_codec_options.element"),
              "%s", ebb_last_error());
    c.element = EBB_ELEMENT_FLOAT64;
    c.rate = 65;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "ebb_codec_options.rate") != NULL, "%s", ebb_last_error());

    /* mode off: no codec, no threads, no buffers */
    c.mode = EBB_COMPRESSION_OFF;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_str_eq(info.compression, "off");
    cr_assert_eq(info.codec_threads, 0);
    cr_assert_eq(info.codec_buffer_bytes, 0);
    ebb_pool_destroy(d);

    /* on: 4 threads, 2 buffers each and a scratch each, of the bound
     * rounded up to the alignment */
    c.mode = EBB_COMPRESSION_FIXED_ACCURACY;
    c.accuracy = 1e-3;
    o.codec_threads = 4;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info_get(d, &info);
    cr_assert_str_eq(info.compression, "fixed-accuracy");
    cr_assert_eq(info.codec_threads, 4);
    ebb_codec *codec = NULL;
    cr_assert_eq(ebb_codec_create(&c, 64 * KiB, &codec), EBB_OK);
    size_t cap = (ebb_codec_bound(codec) + info.alignment - 1) / info.alignment * info.alignment;
    cr_assert_eq(info.codec_buffer_bytes, (uint64_t)cap * 12, "%llu, expected 12 x %zu",
                 (unsigned long long)info.codec_buffer_bytes, cap);
    ebb_codec_destroy(codec);
    ebb_pool_destroy(d);
    rm_tmpdir(dir);
}
