/* The compression keys of [tier.disk]: read into cfg.disk.compression, every
 * bad value refused with the file, line and key, a rate or precision beyond
 * the element's bits refused at load, and the names the same as the codec
 * API's (ebb/codec.h). */
#include "config/helpers.h"

#include "config/config_internal.h"
#include "config/config_keys.h"

Test(compression_keys, read_into_the_codec_options)
{
    ebb_config cfg;
    load_ok("[tier.disk]\ncompression = \"lossless\"\ncodec = \"zstd\"\nlevel = 3\n"
            "shuffle = \"bit\"\nelement = \"float32\"\ncodec_threads = 4\n",
            &cfg);
    const ebb_codec_options *o = &cfg.disk.compression;
    cr_expect_eq(o->mode, EBB_COMPRESSION_LOSSLESS);
    cr_expect_eq(o->codec, EBB_CODEC_ZSTD);
    cr_expect_eq(o->level, 3);
    cr_expect_eq(o->shuffle, EBB_SHUFFLE_BIT);
    cr_expect_eq(o->element, EBB_ELEMENT_FLOAT32);
    cr_expect_eq(cfg.disk.codec_threads, 4);
    cr_expect_eq(o->threads, 1, "c-blosc's threads per call: the codec's default");
    cr_expect_eq(cfg.line[EBB_KEY_DISK_LEVEL], 4);
    ebb_config_dispose(&cfg);
    load_ok("[tier.disk]\ncompression = \"fixed-rate\"\nelement = \"float64\"\nrate = 12.5\n"
            "accuracy = 1e-9\nprecision = 64\n",
            &cfg);
    cr_expect(cfg.disk.compression.rate == 12.5);
    cr_expect(cfg.disk.compression.accuracy == 1e-9);
    cr_expect_eq(cfg.disk.compression.precision, 64);
    ebb_config_dispose(&cfg);
    /* the defaults */
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect_eq(cfg.disk.compression.mode, EBB_COMPRESSION_OFF);
    cr_expect_eq(cfg.disk.compression.codec, EBB_CODEC_LZ4);
    cr_expect_eq(cfg.disk.compression.level, 5);
    cr_expect(cfg.disk.compression.rate == 16 && cfg.disk.compression.accuracy == 1e-6);
    cr_expect_eq(cfg.disk.codec_threads, 2);
    ebb_config_dispose(&cfg);
}

Test(compression_keys, bad_values_name_line_and_key)
{
    expect_load_error("[tier.disk]\ncompression = \"lossy\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.compression': expected one of \"off\", "
                      "\"lossless\", \"fixed-rate\", \"fixed-precision\" or \"fixed-accuracy\"",
                      NULL);
    expect_load_error("[tier.disk]\ncodec = \"lz5\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.codec'", "did you mean \"lz4\"", NULL);
    expect_load_error("[tier.disk]\nlevel = 0\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.level': expected an integer from 1 to 9 "
                      "(1 fastest, 9 smallest), got the integer 0",
                      NULL);
    expect_load_error("[tier.disk]\nshuffle = true\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.shuffle': expected one of \"none\", \"byte\" or \"bit\"",
                      NULL);
    expect_load_error("[tier.disk]\nelement = \"double\"\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.element'", NULL);
    expect_load_error("[tier.disk]\nrate = 65\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.rate': expected bits per value from 1 to 64, "
                      "got the integer 65",
                      NULL);
    expect_load_error("[tier.disk]\nrate = \"16\"\n", EBB_ERR_CONFIG, "key 'tier.disk.rate'",
                      "got the string \"16\"", NULL);
    expect_load_error("[tier.disk]\naccuracy = 0\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.accuracy': expected an absolute error above 0", NULL);
    expect_load_error("[tier.disk]\naccuracy = -1e-3\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.accuracy'", NULL);
    expect_load_error("[tier.disk]\naccuracy = inf\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.accuracy'", NULL);
    expect_load_error("[tier.disk]\naccuracy = nan\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.accuracy'", NULL);
    expect_load_error("[tier.disk]\nprecision = 65\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.precision'", NULL);
    expect_load_error("[tier.disk]\ncodec_threads = 0\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.codec_threads': expected an integer from 1 to 256", NULL);
    expect_load_error("[tier.disk]\ncodec_ratio = -1\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.codec_ratio'", NULL);
    expect_load_error("[tier.disk]\ncodec_ratio = nan\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.codec_ratio'", NULL);
    expect_load_error("[tier.disk]\ncompress_rate = \"fast\"\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.compress_rate'", NULL);
    expect_load_error("[tier.disk]\ndecompress_rate = -5\n", EBB_ERR_CONFIG,
                      "key 'tier.disk.decompress_rate'", NULL);
}

Test(compression_keys, the_planners_figures)
{
    ebb_config cfg;
    load_ok("[tier.disk]\ncodec_ratio = 1.4\ncompress_rate = \"1.9 GB/s\"\n"
            "decompress_rate = \"3.7 GB/s\"\n",
            &cfg);
    cr_expect(cfg.disk.codec_ratio == 1.4);
    cr_expect_eq(cfg.disk.compress_rate, 1900000000u);
    cr_expect_eq(cfg.disk.decompress_rate, 3700000000u);
    ebb_config_dispose(&cfg);
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect(cfg.disk.codec_ratio == 0 && cfg.disk.compress_rate == 0 &&
              cfg.disk.decompress_rate == 0, "not known by default");
    ebb_config_dispose(&cfg);
}

Test(compression_keys, rate_and_precision_fit_the_element)
{
    expect_load_error("[tier.disk]\ncompression = \"fixed-rate\"\nelement = \"float32\"\n"
                      "rate = 40\n",
                      EBB_ERR_CONFIG,
                      "t.toml:4: key 'tier.disk.rate': expected at most 32 bits per value for "
                      "float32 values (tier.disk.element), got 40",
                      NULL);
    expect_load_error("[tier.disk]\nprecision = 33\ncompression = \"fixed-precision\"\n"
                      "element = \"float32\"\n",
                      EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.disk.precision': expected at most 32 bit planes for "
                      "float32 values (tier.disk.element), got 33",
                      NULL);
    ebb_config cfg;
    /* without an element the run may still give one: not refused here */
    load_ok("[tier.disk]\ncompression = \"fixed-rate\"\nrate = 40\n", &cfg);
    /* nor when the mode does not use the value */
    ebb_config_dispose(&cfg);
    load_ok("[tier.disk]\ncompression = \"lossless\"\nelement = \"float32\"\nrate = 40\n", &cfg);
    ebb_config_dispose(&cfg);
    /* a program's value out of range is refused by the check */
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.disk.compression.mode = (ebb_compression)9;
    cr_expect_eq(ebb_config_check_values(&cfg), EBB_ERR_CONFIG);
    cr_expect(strstr(ebb_last_error(), "9 is not an ebb_compression"), "%s", ebb_last_error());
    cfg.disk.compression.mode = EBB_COMPRESSION_FIXED_ACCURACY;
    cfg.disk.compression.accuracy = -1;
    cr_expect_eq(ebb_config_check_values(&cfg), EBB_ERR_CONFIG);
    cr_expect(strstr(ebb_last_error(), "tier.disk.accuracy"), "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}

/* The keys' values are named as the codec API names them. */
static void expect_key_names(const char *key, int count, const char *(*name)(int))
{
    const ebb_key_def *d = NULL;
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++)
        if (strcmp(ebb_config_keys[k].name, key) == 0)
            d = &ebb_config_keys[k];
    cr_assert_not_null(d, "no key %s", key);
    cr_assert_eq(d->name_count, count, "%s", key);
    for (int i = 0; i < count; i++)
        cr_expect_str_eq(d->names[i], name(i), "%s value %d", key, i);
}

static const char *mode_name(int i) { return ebb_compression_name((ebb_compression)i); }
static const char *codec_name(int i) { return ebb_codec_name_str((ebb_codec_name)i); }
static const char *shuffle_name(int i) { return ebb_shuffle_name((ebb_shuffle)i); }
static const char *element_name(int i) { return ebb_element_name((ebb_element)i); }

Test(compression_keys, names_are_the_codec_api_s)
{
    expect_key_names("tier.disk.compression", EBB_COMPRESSION_COUNT, mode_name);
    expect_key_names("tier.disk.codec", EBB_CODEC_COUNT, codec_name);
    expect_key_names("tier.disk.shuffle", EBB_SHUFFLE_COUNT, shuffle_name);
    expect_key_names("tier.disk.element", EBB_ELEMENT_COUNT, element_name);
}
