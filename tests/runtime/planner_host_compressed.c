/* The planner with the host tier's slots compressed (problem.host_codec,
 * tier.host.compression = "fixed-rate"): the slots it plans with are the
 * runtime's (budget / the fixed size rounded up to EBB_HOST_PACKED_ALIGN),
 * and the run measures the rates it takes (ebb_run_stats.host_*);
 * a store into one takes a host codec thread, a restore waits for its
 * decompression, so the prediction grows with a slower decompression and
 * equals plain slots' with a codec of no time; and the engine run for real
 * with compressed host slots takes the actions the planner predicted (forward
 * steps, so recomputations, reverse steps, stores and restores per tier,
 * peak slots; not the reads ahead, which follow the clock: these steps take
 * microseconds, the planner's a millisecond). Random cases. */
#include <math.h>

#include "ebb/planner.h"
#include "workload.h"

/* States of `values` float64, a smooth field stepped by a smooth map. */
typedef struct field {
    size_t values;
    double f_s; /* seconds a forward step sleeps (0: none) */
} field;

static int field_forward(void *user, int64_t k, const void *in, void *out)
{
    const field *f = user;
    const double *x = in;
    double *y = out;
    for (size_t i = 0; i < f->values; i++)
        y[i] = 0.9 * x[i] + 0.1 * sin(0.001 * (double)i + 0.01 * (double)k);
    return EBB_STEP_OK;
}

static int field_reverse(void *user, int64_t k, void *state)
{
    (void)user, (void)k, (void)state;
    return EBB_STEP_OK;
}

/* A real run of n steps under cfg; its info and statistics. */
static void real_run(ebb_config *cfg, ebb_config_strategy s, size_t values, int64_t n,
                     ebb_run_info *info, ebb_run_stats *stats)
{
    field f = {values, 0};
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = values * sizeof(double);
    o.steps = n;
    o.config = cfg;
    o.strategy = s;
    o.forward = field_forward;
    o.reverse = field_reverse;
    o.user = &f;
    o.forward_seconds = 1e-3; /* h-revolve's costs, as the planner's */
    o.reverse_seconds = 2e-3;
    ebb_run *run = wl_create(&o);
    ebb_run_info_get(run, info);
    double *x0 = calloc(values, sizeof(double));
    cr_assert_not_null(x0);
    cr_assert_eq(ebb_run_forward(run, x0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    ebb_run_stats_get(run, stats);
    ebb_run_destroy(run);
    free(x0);
}

/* A configuration of wl_config's with the host tier at a fixed rate. */
static void packed_config(ebb_config *cfg, char *dir, size_t len, wl_rng *r, size_t state)
{
    wl_config(cfg, dir, len);
    cfg->host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
    cfg->host.compression.element = EBB_ELEMENT_FLOAT64;
    cfg->host.compression.rate = (double)wl_pick(r, 4, 40);
    cfg->host.codec_threads = (int32_t)wl_pick(r, 1, 3);
    cfg->host.budget = state * (uint64_t)wl_pick(r, 1, 5) + (uint64_t)wl_pick(r, 0, 4096);
}

static ebb_plan_problem problem_of(const ebb_config *cfg, size_t state, int64_t n)
{
    ebb_plan_problem p;
    ebb_plan_problem_init(&p);
    p.steps = n;
    p.state_size = state;
    p.forward_s = 1e-3;
    p.reverse_s = 2e-3;
    p.disk_fallback = 0;
    cr_assert_eq(ebb_plan_problem_from_config(&p, cfg), EBB_OK, "%s", ebb_last_error());
    return p;
}

Test(planner_host_compressed, slots_are_the_runtimes)
{
    wl_rng r = {0x5eed1};
    for (int c = 0; c < 12; c++) {
        char dir[256];
        ebb_config cfg;
        size_t values = 512 * (size_t)wl_pick(&r, 1, 24);
        size_t state = values * sizeof(double);
        packed_config(&cfg, dir, sizeof dir, &r, state);
        ebb_plan_problem p = problem_of(&cfg, state, 1000);
        ebb_codec *codec;
        cr_assert_eq(ebb_codec_create(&cfg.host.compression, state, &codec), EBB_OK);
        size_t fixed = ebb_codec_fixed_size(codec);
        ebb_codec_destroy(codec);
        size_t slot = (fixed + EBB_HOST_PACKED_ALIGN - 1) / EBB_HOST_PACKED_ALIGN *
                      EBB_HOST_PACKED_ALIGN;
        int32_t want = (int32_t)(cfg.host.budget / slot);
        cr_assert_eq(p.slots[EBB_TIER_HOST], want, "case %d: %d slots planned, budget %llu / "
                     "slot %zu = %d", c, p.slots[EBB_TIER_HOST],
                     (unsigned long long)cfg.host.budget, slot, want);
        cr_assert(p.host_codec.ratio == (double)state / (double)fixed && p.host_codec.threads ==
                  cfg.host.codec_threads, "case %d: ratio %g, threads %d", c, p.host_codec.ratio,
                  (int)p.host_codec.threads);
        /* the runtime's revolve takes every slot when n is beyond them */
        int64_t n = 2 * (int64_t)want + 3;
        p.steps = n;
        ebb_plan_prediction pr;
        cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_REVOLVE, &pr), EBB_OK, "%s",
                     ebb_last_error());
        cr_assert(pr.fits, "%s", pr.why_not);
        ebb_run_info info;
        ebb_run_stats st;
        real_run(&cfg, EBB_CONFIG_STRATEGY_REVOLVE, values, n, &info, &st);
        cr_assert_eq(info.slots[EBB_TIER_HOST], p.slots[EBB_TIER_HOST],
                     "case %d: the run has %d host slots, the planner %d", c,
                     info.slots[EBB_TIER_HOST], p.slots[EBB_TIER_HOST]);
        cr_assert_eq(pr.slots[EBB_TIER_HOST], info.slots[EBB_TIER_HOST]);
        /* the rates the run measured, for tier.host.compress_rate and
         * decompress_rate: each state's codec time is one of them */
        double s = (double)state;
        double each = (double)st.stores[EBB_TIER_HOST] * s / st.host_compress_bps +
                      (double)st.restores[EBB_TIER_HOST] * s / st.host_decompress_bps;
        cr_assert(st.codec_s_tier[EBB_TIER_HOST] > 0 && fabs(each - st.codec_s_tier[EBB_TIER_HOST]) <= 1e-6 * st.codec_s_tier[EBB_TIER_HOST],
                  "case %d: %lld stores at %g B/s and %lld restores at %g B/s take %g s, the "
                  "codec threads measured %g s", c, (long long)st.stores[EBB_TIER_HOST],
                  st.host_compress_bps, (long long)st.restores[EBB_TIER_HOST],
                  st.host_decompress_bps, each, st.codec_s_tier[EBB_TIER_HOST]);
        rmdir(dir);
        ebb_config_dispose(&cfg);
    }
}

/* A problem of n steps with c compressed host slots and a disk. */
static ebb_plan_problem random_problem(wl_rng *r)
{
    ebb_plan_problem p;
    ebb_plan_problem_init(&p);
    p.steps = wl_pick(r, 20, 200);
    p.state_size = (size_t)wl_pick(r, 1, 16) << 20;
    p.forward_s = 1e-4 * (double)wl_pick(r, 1, 100);
    p.reverse_s = p.forward_s * (double)wl_pick(r, 1, 3);
    p.slots[EBB_TIER_HOST] = (int32_t)wl_pick(r, 2, 24);
    p.slots[EBB_TIER_DISK] = (int32_t)wl_pick(r, 4, 400);
    p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth = 1e8 * (double)wl_pick(r, 5, 40);
    p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth = p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth;
    p.host_codec.ratio = 4;
    p.host_codec.threads = (int32_t)wl_pick(r, 1, 4);
    p.host_codec.compress_bps = 1e7 * (double)wl_pick(r, 5, 300);
    p.host_codec.decompress_bps = 1e7 * (double)wl_pick(r, 5, 300);
    return p;
}

static const ebb_config_strategy all_strategies[] = {
    EBB_CONFIG_STRATEGY_STORE_ALL,  EBB_CONFIG_STRATEGY_PERIODIC,
    EBB_CONFIG_STRATEGY_REVOLVE,    EBB_CONFIG_STRATEGY_ONLINE,
    EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_CONFIG_STRATEGY_DISK_REVOLVE,
    EBB_CONFIG_STRATEGY_H_REVOLVE,  EBB_CONFIG_STRATEGY_ASYNC};

Test(planner_host_compressed, a_restore_waits_for_its_decompression)
{
    wl_rng r = {0xdec0de};
    int slower = 0;
    for (int c = 0; c < 40; c++) {
        ebb_plan_problem p = random_problem(&r);
        ebb_plan_problem half = p, free_codec = p, plain = p;
        half.host_codec.decompress_bps /= 2;
        free_codec.host_codec.compress_bps = free_codec.host_codec.decompress_bps = 0;
        plain.host_codec = (ebb_codec_rates){0};
        for (size_t i = 0; i < sizeof all_strategies / sizeof *all_strategies; i++) {
            ebb_config_strategy s = all_strategies[i];
            ebb_plan_prediction a, b, z, u;
            cr_assert_eq(ebb_plan_predict(&p, s, &a), EBB_OK, "%s", ebb_last_error());
            cr_assert_eq(ebb_plan_predict(&half, s, &b), EBB_OK, "%s", ebb_last_error());
            cr_assert_eq(ebb_plan_predict(&free_codec, s, &z), EBB_OK, "%s", ebb_last_error());
            cr_assert_eq(ebb_plan_predict(&plain, s, &u), EBB_OK, "%s", ebb_last_error());
            if (!a.fits)
                continue;
            const char *name = ebb_config_strategy_name(s);
            /* every restore out of a compressed slot holds the compute for a
             * whole decompression at least */
            double each = (double)p.state_size / p.host_codec.decompress_bps;
            cr_assert_geq(a.stall_tier_s[EBB_TIER_HOST],
                          (1 - 1e-9) * (double)a.restores[EBB_TIER_HOST] * each,
                          "case %d, %s: %lld host restores of %g s each, stalled %g s", c, name,
                          (long long)a.restores[EBB_TIER_HOST], each,
                          a.stall_tier_s[EBB_TIER_HOST]);
            if (a.restores[EBB_TIER_HOST] > 0 && s != EBB_CONFIG_STRATEGY_ASYNC) {
                cr_assert_gt(b.predicted_s, a.predicted_s,
                             "case %d, %s: half the decompression rate, %g s against %g s", c,
                             name, b.predicted_s, a.predicted_s);
                slower++;
            }
            /* a codec of no time: the plain slots' plan, bit for bit, where
             * no state moves between host and disk (such a move goes
             * through a buffer, and from disk the compute waits for it) */
            if (u.fits && u.stores[EBB_TIER_DISK] == 0 && u.restores[EBB_TIER_DISK] == 0)
                cr_assert(z.fits && z.predicted_s == u.predicted_s &&
                              z.forward_steps == u.forward_steps,
                          "case %d, %s: a codec of no time %g s, plain slots %g s", c, name,
                          z.predicted_s, u.predicted_s);
        }
    }
    cr_assert_geq(slower, 40, "only %d predictions restored from host slots", slower);
}

/* Equal, or the first difference in `why`. */
static int same_counts(const ebb_plan_prediction *pr, const ebb_run_stats *rs, char *why,
                       size_t len)
{
    const char *what = NULL;
    int64_t got = 0, want = 0;
#define SAME(name, a, b)                                                                        \
    if (!what && (int64_t)(a) != (int64_t)(b)) {                                                \
        what = name;                                                                            \
        got = (int64_t)(a);                                                                     \
        want = (int64_t)(b);                                                                    \
    }
    SAME("forward steps", rs->forward_steps, pr->forward_steps);
    SAME("reverse steps", rs->reverse_steps, pr->reverse_steps);
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        SAME("stores", rs->stores[t], pr->stores[t]);
        SAME("restores", rs->restores[t], pr->restores[t]);
        SAME("peak slots", rs->peak_slots[t], pr->peak_slots[t]);
    }
#undef SAME
    if (what)
        snprintf(why, len, "%s %lld, predicted %lld", what, (long long)got, (long long)want);
    return what == NULL;
}

Test(planner_host_compressed, the_engine_takes_the_predicted_actions, .timeout = 300)
{
    static const ebb_config_strategy strategies[] = {
        EBB_CONFIG_STRATEGY_STORE_ALL,  EBB_CONFIG_STRATEGY_PERIODIC,
        EBB_CONFIG_STRATEGY_REVOLVE,    EBB_CONFIG_STRATEGY_ONLINE,
        EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_CONFIG_STRATEGY_DISK_REVOLVE,
        EBB_CONFIG_STRATEGY_H_REVOLVE};
    wl_rng r = {0xfeed5};
    int compared = 0;
    for (int c = 0; c < 8; c++) {
        char dir[256];
        ebb_config cfg;
        size_t values = 1024 * (size_t)wl_pick(&r, 1, 8);
        size_t state = values * sizeof(double);
        packed_config(&cfg, dir, sizeof dir, &r, state);
        int64_t n = wl_pick(&r, 10, 60);
        cfg.disk.budget = (uint64_t)wl_pick(&r, n / 3, n) * ((state + 4095) / 4096 * 4096);
        /* paced: h-revolve's costs come from the pace in both (unpaced, the
         * run measures the disk) */
        cfg.disk.max_bandwidth = 2000000000;
        ebb_plan_problem p = problem_of(&cfg, state, n);
        p.host_codec.compress_bps = 2e8;
        p.host_codec.decompress_bps = 2e8;
        for (size_t i = 0; i < sizeof strategies / sizeof *strategies; i++) {
            ebb_plan_prediction pr;
            cr_assert_eq(ebb_plan_predict(&p, strategies[i], &pr), EBB_OK, "%s",
                         ebb_last_error());
            if (!pr.fits)
                continue;
            ebb_run_info info;
            ebb_run_stats rs;
            real_run(&cfg, strategies[i], values, n, &info, &rs);
            char why[200] = "";
            cr_expect(same_counts(&pr, &rs, why, sizeof why),
                      "case %d, %s (n %lld, %zu KiB, host %d compressed slots, disk %d): %s", c,
                      ebb_config_strategy_name(strategies[i]), (long long)n, state >> 10,
                      p.slots[EBB_TIER_HOST], p.slots[EBB_TIER_DISK], why);
            compared += rs.restores[EBB_TIER_HOST] > 0;
        }
        cr_assert_eq(wl_dir_entries(dir), 0, "files left in %s", dir);
        rmdir(dir);
        ebb_config_dispose(&cfg);
    }
    cr_assert_geq(compared, 20, "only %d runs restored from compressed host slots", compared);
}

/* auto with the step times given: the budget's uncompressed slots where a
 * restore's decompression costs more than the recomputations the compressed
 * slots save, the compressed ones where decompressing is fast; with or
 * without a (small) disk tier. */
Test(planner_host_compressed, auto_runs_the_faster_host_slots)
{
    wl_rng r = {0xa070};
    for (int c = 0; c < 8; c++) {
        char dir[256];
        ebb_config cfg;
        size_t values = 2048 * (size_t)wl_pick(&r, 1, 4);
        size_t state = values * sizeof(double);
        wl_config(&cfg, dir, sizeof dir);
        cfg.disk.enabled = c % 2;
        cfg.disk.budget = 2 * state; /* too few to keep most states out of host slots */
        cfg.host.budget = state * (uint64_t)wl_pick(&r, 2, 5);
        cfg.host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
        cfg.host.compression.element = EBB_ELEMENT_FLOAT64;
        cfg.host.compression.rate = 16;
        int64_t n = wl_pick(&r, 40, 120);
        int32_t plain = (int32_t)(cfg.host.budget / state);
        for (int fast = 0; fast < 2; fast++) {
            /* a restore of 1 s against steps of a millisecond, or one of
             * nanoseconds */
            cfg.host.compress_rate = cfg.host.decompress_rate = fast ? UINT64_C(1) << 50 : state;
            field f = {values, 0};
            ebb_run_options o;
            ebb_run_options_init(&o);
            o.state_size = state;
            o.steps = n;
            o.config = &cfg;
            o.strategy = EBB_STRATEGY_AUTO;
            o.forward = field_forward;
            o.reverse = field_reverse;
            o.user = &f;
            o.forward_seconds = 1e-3;
            o.reverse_seconds = 2e-3;
            ebb_run *run = wl_create(&o);
            ebb_run_info info;
            ebb_run_info_get(run, &info);
            char reason[256]; /* info.reason is the run's */
            snprintf(reason, sizeof reason, "%s", info.reason);
            double *x0 = calloc(values, sizeof(double));
            cr_assert_eq(ebb_run_forward(run, x0, NULL), EBB_OK, "%s", ebb_last_error());
            cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
            free(x0);
            ebb_run_destroy(run);
            /* uncompressed, every slot holds a whole state beside the two
             * working buffers; compressed, a quarter of one */
            int whole = info.bytes[EBB_TIER_HOST] >=
                        (uint64_t)(info.slots[EBB_TIER_HOST] + 2) * state;
            cr_assert_eq(whole, !fast, "case %d: %llu bytes of host memory for %d slots", c,
                         (unsigned long long)info.bytes[EBB_TIER_HOST],
                         info.slots[EBB_TIER_HOST]);
            if (fast)
                cr_assert_eq(info.slots[EBB_TIER_HOST], 4 * plain,
                             "case %d, a fast codec: %d host slots, %d compressed in the budget "
                             "(%s)", c, info.slots[EBB_TIER_HOST], 4 * plain, reason);
            else
                cr_assert(info.slots[EBB_TIER_HOST] <= plain &&
                              strstr(reason, "uncompressed: faster than"),
                          "case %d, a slow codec: %d host slots, %d uncompressed in the budget "
                          "(%s)", c, info.slots[EBB_TIER_HOST], plain, reason);
        }
        rmdir(dir);
        ebb_config_dispose(&cfg);
    }
}
