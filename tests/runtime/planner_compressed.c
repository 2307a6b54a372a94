/* The planner's compressed disk channel (problem.codec, docs/compression.md):
 * while writes queue, the channel carries min(compress rate x threads, disk
 * x ratio) state bytes a second; where compressing would be slower than raw
 * (ebb_codec_pays) the plan is the raw one, bit for bit; and the
 * asynchronous strategy's spacing follows a state's time through the codec
 * and the disk. Random cases. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ebb/config.h"
#include "ebb/planner.h"
#include "support/schedule_support.h"

static ebb_plan_problem base(int64_t n, double f, double disk_bps)
{
    ebb_plan_problem p;
    ebb_plan_problem_init(&p);
    p.steps = n;
    p.state_size = 1 << 20;
    p.forward_s = f;
    p.reverse_s = f;
    p.slots[EBB_TIER_DISK] = (int32_t)n;
    p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth = disk_bps;
    p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth = disk_bps;
    return p;
}

static ebb_plan_prediction predict(const ebb_plan_problem *p, ebb_config_strategy cs)
{
    ebb_plan_prediction pr;
    cr_assert_eq(ebb_plan_predict(p, cs, &pr), EBB_OK, "%s", ebb_last_error());
    cr_assert(pr.fits, "%s", pr.why_not);
    return pr;
}

Test(planner_compressed, queued_writes_run_at_the_lesser_of_codec_and_disk)
{
    uint64_t rng = 2026;
    int codec_bound = 0, disk_bound = 0;
    for (int i = 0; i < 60; i++) {
        double bw = 1e8 * (double)rng_range(&rng, 5, 30);
        ebb_plan_problem p = base(200, 1e-6, bw);
        p.staging = 16; /* room for every codec thread and the disk at once */
        p.codec.ratio = 1.5 + 0.1 * (double)rng_range(&rng, 0, 45);
        p.codec.threads = (int32_t)rng_range(&rng, 1, 4);
        p.codec.compress_bps = bw * (0.5 + 0.1 * (double)rng_range(&rng, 0, 60));
        p.codec.decompress_bps = 2 * p.codec.compress_bps;
        if (!ebb_plan_disk_compressed(&p))
            continue;
        double rate = ebb_codec_channel_bps(&p.codec, bw, 1);
        codec_bound += rate < bw * p.codec.ratio;
        disk_bound += rate >= bw * p.codec.ratio;
        ebb_plan_prediction r = predict(&p, EBB_CONFIG_STRATEGY_STORE_ALL);
        cr_assert_eq(r.fast_tier, EBB_TIER_DISK);
        double queued = 199.0 * (double)p.state_size / rate;
        cr_assert(r.forward_s >= 0.9 * queued && r.forward_s <= 1.05 * queued + 0.01,
                  "case %d: ratio %g, %d threads of %g GB/s, disk %g GB/s: forward %g s, "
                  "199 states at min(codec x threads, disk x ratio) %g s",
                  i, p.codec.ratio, (int)p.codec.threads, p.codec.compress_bps / 1e9, bw / 1e9,
                  r.forward_s, queued);
    }
    cr_assert(codec_bound >= 5 && disk_bound >= 5, "cases: %d codec-bound, %d disk-bound",
              codec_bound, disk_bound);
}

Test(planner_compressed, a_codec_that_does_not_pay_is_planned_raw)
{
    uint64_t rng = 77;
    int raw = 0;
    for (int i = 0; i < 40; i++) {
        double bw = 1e8 * (double)rng_range(&rng, 5, 30);
        ebb_plan_problem p = base(rng_range(&rng, 20, 200), 1e-3 * (double)rng_range(&rng, 1, 9),
                                  bw);
        p.slots[EBB_TIER_HOST] = (int32_t)rng_range(&rng, 2, 6);
        if (i % 2)
            p.disk_pace = bw / 2;
        p.codec.ratio = 1.0 + 0.1 * (double)rng_range(&rng, 1, 30);
        p.codec.compress_bps = bw * 0.1 * (double)rng_range(&rng, 1, 30);
        p.codec.decompress_bps = p.codec.compress_bps;
        ebb_plan_problem off = p;
        off.codec.ratio = 0;
        int pays = ebb_plan_disk_compressed(&p);
        double w = p.disk_pace > 0 && p.disk_pace < bw ? p.disk_pace : bw;
        cr_assert_eq(pays, p.codec.ratio > 1 &&
                               1 / p.codec.compress_bps + 1 / (p.codec.ratio * w) < 1 / w,
                     "case %d: the rule", i);
        if (pays)
            continue;
        raw++;
        ebb_plan_prediction all[EBB_PLAN_MAX], all_off[EBB_PLAN_MAX];
        size_t count, count_off;
        cr_assert_eq(ebb_plan_all(&p, all, &count, NULL), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_plan_all(&off, all_off, &count_off, NULL), EBB_OK);
        for (size_t k = 0; k < count; k++)
            cr_assert(all[k].fits == all_off[k].fits &&
                          (!all[k].fits || all[k].predicted_s == all_off[k].predicted_s),
                      "case %d, %s: %g s, raw %g s", i,
                      ebb_config_strategy_name(all[k].strategy), all[k].predicted_s,
                      all_off[k].predicted_s);
    }
    cr_assert_geq(raw, 10, "only %d cases did not pay", raw);
}

Test(planner_compressed, async_stores_as_often_as_the_compressed_channel_allows)
{
    /* a raw write takes 3 steps; compressed (ratio 8, a codec of 16 GB/s) it
     * takes S / 16 GB/s + S / (8 x 1 GB/s), under one step */
    const double f = 0.35e-3, bw = 1e9;
    ebb_plan_problem p = base(1000, f, bw);
    p.slots[EBB_TIER_HOST] = 4;
    p.slots[EBB_TIER_DISK] = 999;
    ebb_plan_prediction raw = predict(&p, EBB_CONFIG_STRATEGY_ASYNC);
    p.codec = (ebb_codec_rates){.ratio = 8, .compress_bps = 16e9, .decompress_bps = 16e9};
    cr_assert(ebb_plan_disk_compressed(&p));
    ebb_plan_prediction r = predict(&p, EBB_CONFIG_STRATEGY_ASYNC);
    double w = ebb_codec_state_seconds(&p.codec, (double)p.state_size, bw, 1);
    int64_t k = (int64_t)ceil(w / f - 1e-9);
    cr_assert_leq(r.stores[EBB_TIER_DISK], 999 / k + 1, "%lld stores, k %lld",
                  (long long)r.stores[EBB_TIER_DISK], (long long)k);
    cr_assert_geq(r.stores[EBB_TIER_DISK], 999 / (k + 1) - 1, "%lld stores, k %lld",
                  (long long)r.stores[EBB_TIER_DISK], (long long)k);
    cr_assert_gt(r.stores[EBB_TIER_DISK], raw.stores[EBB_TIER_DISK] * 7 / 5,
                 "%lld stores, raw %lld", (long long)r.stores[EBB_TIER_DISK],
                 (long long)raw.stores[EBB_TIER_DISK]);
    cr_assert_lt(r.predicted_s, raw.predicted_s);
}

/* The planner's figures from the configuration: tier.disk.codec_ratio,
 * compress_rate, decompress_rate (taken as compress_rate when not given)
 * with compression on; none with it off; a fixed rate's ratio. */
Test(planner_compressed, the_figures_come_from_the_configuration)
{
    const char *cases[] = {
        "[tier.disk]\ncompression = \"lossless\"\ncodec_ratio = 3\ncompress_rate = \"4 GB/s\"\n"
        "codec_threads = 3\n",
        "[tier.disk]\ncodec_ratio = 3\ncompress_rate = \"4 GB/s\"\n",
        "[tier.disk]\ncompression = \"fixed-rate\"\nelement = \"float64\"\nrate = 16\n",
    };
    for (int i = 0; i < 3; i++) {
        ebb_config cfg;
        cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
        cr_assert_eq(ebb_config_load_string(cases[i], "t.toml", &cfg), EBB_OK, "%s",
                     ebb_last_error());
        ebb_plan_problem p;
        ebb_plan_problem_init(&p);
        p.steps = 10;
        p.state_size = 1 << 20;
        cr_assert_eq(ebb_plan_problem_from_config(&p, &cfg), EBB_OK, "%s", ebb_last_error());
        if (i == 0) {
            cr_expect(p.codec.ratio == 3 && p.codec.compress_bps == 4e9 &&
                          p.codec.decompress_bps == 4e9 && p.codec.threads == 3 && !p.codec_fixed,
                      "ratio %g, %g, %g B/s, %d threads", p.codec.ratio, p.codec.compress_bps,
                      p.codec.decompress_bps, (int)p.codec.threads);
        } else if (i == 1) {
            cr_expect(p.codec.ratio == 0, "compression off: raw, ratio %g", p.codec.ratio);
        } else {
            cr_expect(p.codec_fixed && p.codec.ratio == 4, "fixed rate: ratio %g", p.codec.ratio);
            cr_expect_eq(ebb_plan_disk_compressed(&p), 1);
        }
        ebb_config_dispose(&cfg);
    }
}

/* Either codec's threads: 0 .. EBB_CODEC_THREADS_MAX, as the tiers' keys take
 * them; one more is refused, the message giving the most. */
Test(planner_compressed, codec_threads_up_to_the_tiers_most)
{
    char want[64];
    snprintf(want, sizeof want, "threads 0 .. %d;", EBB_CODEC_THREADS_MAX);
    for (int h = 0; h < 2; h++) {
        ebb_plan_problem p = base(20, 1e-3, 1e9);
        ebb_codec_rates *k = h ? &p.host_codec : &p.codec;
        k->threads = EBB_CODEC_THREADS_MAX;
        ebb_plan_prediction pr;
        cr_expect_eq(ebb_plan_predict(&p, EBB_STRATEGY_REVOLVE, &pr), EBB_OK, "%s",
                     ebb_last_error());
        k->threads = EBB_CODEC_THREADS_MAX + 1;
        cr_expect_eq(ebb_plan_predict(&p, EBB_STRATEGY_REVOLVE, &pr), EBB_ERR_INVALID_ARG);
        cr_expect(strstr(ebb_last_error(), want), "'%s' lacks '%s'", ebb_last_error(), want);
    }
}
