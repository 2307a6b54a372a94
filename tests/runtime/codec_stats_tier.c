/* Compression statistics per tier: a fixed-rate host tier reports its
 * bytes before and after (after / before = the fixed size / the state's
 * size: 16 bits of 64), its codec time and runs, and nothing on the disk
 * tier; a lossless disk tier reports as before, in the disk's entries; the
 * fields without a tier are the sums over the tiers. */
#include "smooth.h"

static ebb_run_stats run(ebb_config *cfg, ebb_config_strategy strategy, int64_t n, size_t zero_from)
{
    sm s = {.values = 8192, .zero_from = zero_from};
    ebb_run_options o = sm_options(&s, cfg, strategy, n);
    rt_create_args args;
    cr_assert_eq(rt_args_from_config(&o, cfg, &args), EBB_OK, "%s", ebb_last_error());
    return sm_run(&s, &args);
}

/* The sums are the tiers' figures added up. */
static void assert_sums(const ebb_run_stats *st)
{
    uint64_t before = 0, after = 0;
    double codec_s = 0;
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        before += st->bytes_before_compression_tier[t];
        after += st->bytes_after_compression_tier[t];
        codec_s += st->codec_s_tier[t];
    }
    cr_assert_eq(st->bytes_before_compression, before);
    cr_assert_eq(st->bytes_after_compression, after);
    cr_assert_float_eq(st->codec_s, codec_s, 1e-12);
    cr_assert_eq(st->bytes_before_compression_tier[EBB_TIER_GPU], 0);
}

Test(codec_stats_tier, host_fixed_rate)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    size_t state = 8192 * sizeof(double);
    cfg.host.budget = 3 * state;
    cfg.host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
    cfg.host.compression.rate = 16;
    ebb_run_stats st = run(&cfg, EBB_CONFIG_STRATEGY_REVOLVE, 60, 0);
    const uint64_t *before = st.bytes_before_compression_tier;
    const uint64_t *after = st.bytes_after_compression_tier;
    cr_assert_gt(st.compressions[EBB_TIER_HOST], 0);
    cr_assert_eq(before[EBB_TIER_HOST], (uint64_t)st.compressions[EBB_TIER_HOST] * state,
                 "every compression is a state's bytes before");
    cr_assert_eq(after[EBB_TIER_HOST] * 4, before[EBB_TIER_HOST],
                 "%llu bytes after, %llu before: not the fixed size of 16 bits a value",
                 (unsigned long long)after[EBB_TIER_HOST],
                 (unsigned long long)before[EBB_TIER_HOST]);
    cr_assert_eq(st.decompressions[EBB_TIER_HOST], st.restores[EBB_TIER_HOST]);
    cr_assert_gt(st.codec_s_tier[EBB_TIER_HOST], 0);
    /* nothing on the disk tier */
    cr_assert_eq(before[EBB_TIER_DISK], 0);
    cr_assert_eq(st.compressions[EBB_TIER_DISK] + st.decompressions[EBB_TIER_DISK], 0);
    cr_assert_eq(st.codec_s_tier[EBB_TIER_DISK], 0);
    cr_assert_eq(st.stored_raw, 0);
    cr_assert_eq(st.codec_ratio, 0, "the measured ratio is the disk tier's");
    assert_sums(&st);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(codec_stats_tier, disk_lossless)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    size_t state = 8192 * sizeof(double);
    cfg.host.budget = 3 * state;
    cfg.disk.compression.mode = EBB_COMPRESSION_LOSSLESS;
    /* Compressing pays, so every state after the first try is stored
     * compressed, while the codec runs faster than 2.3 MB/s: states that
     * shrink tenfold through a 2 MB/s disk leave a machine under load a wide
     * margin. The first try is on a copy: its state, and any written while
     * it ran, go raw. */
    cfg.disk.max_bandwidth = 2000000;
    ebb_run_stats st = run(&cfg, EBB_CONFIG_STRATEGY_MULTISTAGE, 60, 1024);
    const uint64_t *before = st.bytes_before_compression_tier;
    const uint64_t *after = st.bytes_after_compression_tier;
    cr_assert_gt(st.stores[EBB_TIER_DISK], 0);
    cr_assert_eq(before[EBB_TIER_DISK], st.bytes_written[EBB_TIER_DISK],
                 "every state written to disk went through the codec");
    cr_assert_lt(after[EBB_TIER_DISK], before[EBB_TIER_DISK], "smooth states shrink");
    cr_assert(st.stored_raw >= 1 && st.stored_raw < st.stores[EBB_TIER_DISK] / 4,
              "%llu of %llu states raw where compressing pays", (unsigned long long)st.stored_raw,
              (unsigned long long)st.stores[EBB_TIER_DISK]);
    cr_assert_eq(st.compressions[EBB_TIER_DISK], st.stores[EBB_TIER_DISK] - st.stored_raw + 1,
                 "every state stored compressed was tried, after one try on a copy");
    cr_assert_gt(st.decompressions[EBB_TIER_DISK], 0);
    cr_assert_gt(st.codec_s_tier[EBB_TIER_DISK], 0);
    cr_assert_gt(st.codec_ratio, 5, "%g: states mostly zero shrink more than fivefold", st.codec_ratio);
    cr_assert_eq(before[EBB_TIER_HOST] + after[EBB_TIER_HOST], 0);
    cr_assert_eq(st.compressions[EBB_TIER_HOST] + st.decompressions[EBB_TIER_HOST], 0);
    assert_sums(&st);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
