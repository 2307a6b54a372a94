/* ebb_config_format writes TOML that loads back to the same values. */
#include "config/helpers.h"

static void same(const ebb_config *a, const ebb_config *b)
{
    cr_expect_eq(a->strategy, b->strategy);
    cr_expect_eq(a->gpu.enabled, b->gpu.enabled);
    cr_expect_eq(a->gpu.budget, b->gpu.budget);
    cr_expect_eq(a->gpu.device, b->gpu.device);
    cr_expect_eq(a->gpu.chunk_size, b->gpu.chunk_size);
    cr_expect_eq(a->host.enabled, b->host.enabled);
    cr_expect_eq(a->host.budget, b->host.budget);
    cr_expect_eq(a->host.numa, b->host.numa);
    cr_expect_eq(a->host.pin, b->host.pin);
    cr_expect_eq(a->host.prefault, b->host.prefault);
    cr_expect_eq(a->host.staging, b->host.staging);
    cr_expect_eq(a->disk.enabled, b->disk.enabled);
    cr_assert_eq(a->disk.path_count, b->disk.path_count);
    for (size_t i = 0; i < a->disk.path_count; i++)
        cr_expect_str_eq(a->disk.paths[i], b->disk.paths[i]);
    cr_expect_eq(a->disk.budget, b->disk.budget);
    cr_expect_eq(a->disk.block_size, b->disk.block_size);
    cr_expect_eq(a->disk.queue_depth, b->disk.queue_depth);
    cr_expect_eq(a->disk.threads, b->disk.threads);
    cr_expect_eq(a->disk.backend, b->disk.backend);
    cr_expect_eq(a->disk.checksum, b->disk.checksum);
    cr_expect_eq(a->disk.direct, b->disk.direct);
    const ebb_codec_options *x = &a->disk.compression, *y = &b->disk.compression;
    cr_expect_eq(x->mode, y->mode);
    cr_expect_eq(x->codec, y->codec);
    cr_expect_eq(x->level, y->level);
    cr_expect_eq(x->shuffle, y->shuffle);
    cr_expect_eq(x->element, y->element);
    cr_expect(x->rate == y->rate, "rate %.17g read back as %.17g", x->rate, y->rate);
    cr_expect_eq(x->precision, y->precision);
    cr_expect(x->accuracy == y->accuracy, "accuracy %.17g read back as %.17g", x->accuracy,
              y->accuracy);
    cr_expect_eq(a->disk.codec_threads, b->disk.codec_threads);
    cr_expect(a->disk.codec_ratio == b->disk.codec_ratio, "codec_ratio %.17g read back as %.17g",
              a->disk.codec_ratio, b->disk.codec_ratio);
    cr_expect_eq(a->disk.compress_rate, b->disk.compress_rate);
    cr_expect_eq(a->disk.decompress_rate, b->disk.decompress_rate);
    cr_expect_eq(a->host.compress_rate, b->host.compress_rate);
    cr_expect_eq(a->host.decompress_rate, b->host.decompress_rate);
}

static void round_trip(const ebb_config *a)
{
    size_t len = 0;
    cr_assert_eq(ebb_config_format(a, NULL, 0, &len), EBB_OK);
    char *text = malloc(len + 1);
    size_t len2 = 0;
    cr_assert_eq(ebb_config_format(a, text, len + 1, &len2), EBB_OK);
    cr_expect_eq(len, len2);
    cr_expect_eq(strlen(text), len);
    ebb_config b;
    cr_assert_eq(ebb_config_init_default(&b), EBB_OK);
    /* Start b from different values so that every key must come from the text. */
    b.strategy = EBB_CONFIG_STRATEGY_ONLINE;
    b.gpu.enabled = !a->gpu.enabled;
    b.host.enabled = !a->host.enabled;
    b.disk.enabled = !a->disk.enabled;
    b.disk.queue_depth = 999;
    b.gpu.chunk_size = 12345;
    b.host.pin = !a->host.pin;
    b.host.prefault = !a->host.prefault;
    b.host.staging = a->host.staging == EBB_BUDGET_AUTO ? 4096 : EBB_BUDGET_AUTO;
    b.disk.threads = a->disk.threads == 7 ? 8 : 7;
    b.disk.compression.mode = a->disk.compression.mode == EBB_COMPRESSION_OFF
                                  ? EBB_COMPRESSION_LOSSLESS
                                  : EBB_COMPRESSION_OFF;
    b.disk.compression.rate = a->disk.compression.rate + 1;
    b.disk.compression.accuracy = a->disk.compression.accuracy * 3;
    b.disk.codec_threads = a->disk.codec_threads == 7 ? 8 : 7;
    b.disk.codec_ratio = a->disk.codec_ratio + 2;
    b.disk.compress_rate = a->disk.compress_rate + 5;
    b.disk.decompress_rate = a->disk.decompress_rate + 5;
    b.host.compress_rate = a->host.compress_rate + 5;
    b.host.decompress_rate = a->host.decompress_rate + 5;
    ebb_status s = ebb_config_load_string(text, "shown.toml", &b);
    cr_assert_eq(s, EBB_OK, "%s\n%s", ebb_last_error(), text);
    same(a, &b);
    free(text);
    ebb_config_dispose(&b);
}

Test(round_trip, default)
{
    ebb_config a;
    cr_assert_eq(ebb_config_init_default(&a), EBB_OK);
    round_trip(&a);
    ebb_config_dispose(&a);
}

Test(round_trip, every_field_changed)
{
    ebb_config a;
    cr_assert_eq(ebb_config_init_default(&a), EBB_OK);
    a.strategy = EBB_CONFIG_STRATEGY_MULTISTAGE;
    a.gpu.enabled = 0;
    a.gpu.budget = 1500000000;
    a.gpu.device = 3;
    a.gpu.chunk_size = 1000000; /* not a power of two: written "1 MB" */
    a.host.budget = (UINT64_C(1) << 30) + 12345;
    a.host.numa = 0;
    a.host.pin = 0;
    a.host.prefault = 0;
    a.host.staging = (UINT64_C(96) << 20) + 1;
    a.disk.budget = UINT64_C(2) << 20;
    a.disk.block_size = UINT64_C(12) << 10;
    a.disk.queue_depth = 1;
    a.disk.threads = 1024;
    a.disk.backend = EBB_DISK_BACKEND_URING;
    a.disk.checksum = 1;
    a.disk.direct = 0;
    a.disk.compression.mode = EBB_COMPRESSION_FIXED_ACCURACY;
    a.disk.compression.codec = EBB_CODEC_ZSTD;
    a.disk.compression.level = 9;
    a.disk.compression.shuffle = EBB_SHUFFLE_BIT;
    a.disk.compression.element = EBB_ELEMENT_FLOAT32;
    a.disk.compression.rate = 12.25;
    a.disk.compression.precision = 17;
    a.disk.compression.accuracy = 0.1; /* not a binary fraction: written "0.1" */
    a.disk.codec_threads = 256;
    a.disk.codec_ratio = 1.37;
    a.disk.compress_rate = 1900000000;
    a.disk.decompress_rate = 3700000001;
    a.host.compress_rate = 210000000;
    a.host.decompress_rate = 230000001;
    const char *paths[] = {"/tmp", "/var/tmp"};
    cr_assert_eq(ebb_config_set_disk_paths(&a, paths, 2), EBB_OK);
    round_trip(&a);
    ebb_config_dispose(&a);
}

Test(round_trip, odd_characters_in_paths, .init = setup_dir, .fini = cleanup_dir)
{
    ebb_config a;
    cr_assert_eq(ebb_config_init_default(&a), EBB_OK);
    const char *odd = make_in_dir("quote\" back\\slash tab\t \xc3\xa9", NULL);
    cr_assert_eq(ebb_config_set_disk_paths(&a, &odd, 1), EBB_OK);
    round_trip(&a);
    ebb_config_dispose(&a);
}

Test(round_trip, write_to_a_stream)
{
    ebb_config a;
    cr_assert_eq(ebb_config_init_default(&a), EBB_OK);
    char *mem = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&mem, &size);
    cr_assert_eq(ebb_config_write(&a, f), EBB_OK);
    fclose(f);
    cr_expect(strstr(mem, "[tier.disk]\nenabled = true\n") != NULL, "%s", mem);
    cr_expect(strstr(mem, "block_size = \"8 MiB\"\n") != NULL, "%s", mem);
    cr_expect(strstr(mem, "budget = \"auto\"\n") != NULL, "%s", mem);
    cr_expect(strstr(mem, "device = 0\nchunk_size = \"64 MiB\"\n") != NULL, "%s", mem);
    cr_expect(strstr(mem, "numa = \"auto\"\npin = true\nprefault = true\n"
                          "staging = \"auto\"\n") != NULL, "%s", mem);
    cr_expect(strstr(mem, "queue_depth = 16\nthreads = 0\n") != NULL, "%s", mem);
    free(mem);
    ebb_config_dispose(&a);
}

/* The new keys at the other end of their ranges and odd sizes. */
Test(round_trip, pool_keys)
{
    ebb_config a;
    cr_assert_eq(ebb_config_init_default(&a), EBB_OK);
    const uint64_t chunks[] = {1, 4095, UINT64_C(1) << 30, (UINT64_C(3) << 20) + 1};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        a.gpu.chunk_size = chunks[i];
        a.host.pin = (int)(i % 2);
        a.host.prefault = (int)(i / 2 % 2);
        a.disk.threads = (int32_t)(i * 341);
        round_trip(&a);
    }
    ebb_config_dispose(&a);
}
