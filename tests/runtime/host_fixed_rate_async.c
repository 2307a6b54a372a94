/* The asynchronous strategy with the host tier's slots compressed: it
 * recomputes no more than with the budget's fewer uncompressed slots, for
 * the same stored states. Async stores x_i on disk whenever the disk's last
 * write has ended, so how many states it stores, and how long the intervals
 * between them that the reverse sweep recomputes, follow the clock: with
 * steps of microseconds and an unpaced disk the count swings from 2 to 90
 * between two runs of one configuration (measured in
 * host_fixed_rate.c's cases, 12 runs each, compressed and not in turn: the
 * medians of both alike), which is how one random case once recomputed 193
 * steps compressed against 27 uncompressed. Given the same stored states,
 * each interval is reversed by Revolve over the fast slots, and 4 times the
 * slots recompute no more. So: the planner (the same engine on a simulated
 * clock) over random problems, where the stored states are the same by
 * construction; and real runs on a disk paced so slow that async stores
 * x_0 and a few states after it (the long intervals then recomputed by
 * Revolve over the fast slots: fewer with 4 times as many), compared where
 * both runs stored as many. */
#include <math.h>
#include <time.h>

#include "ebb/planner.h"
#include "workload.h"

Test(host_fixed_rate_async, the_planner_recomputes_no_more)
{
    wl_rng r = {0xa5a5};
    int fewer = 0;
    for (int c = 0; c < 200; c++) {
        ebb_plan_problem p;
        ebb_plan_problem_init(&p);
        p.steps = wl_pick(&r, 20, 400);
        p.state_size = (size_t)wl_pick(&r, 1, 16) << 20;
        p.forward_s = 1e-4 * (double)wl_pick(&r, 1, 100);
        p.reverse_s = p.forward_s * (double)wl_pick(&r, 1, 3);
        int32_t slots = (int32_t)wl_pick(&r, 2, 6);
        p.slots[EBB_TIER_HOST] = slots;
        p.slots[EBB_TIER_DISK] = (int32_t)wl_pick(&r, 2, p.steps);
        /* a write takes 0.3 to 8 forward steps */
        p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth =
            (double)p.state_size / (p.forward_s * 0.1 * (double)wl_pick(&r, 3, 80));
        p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth = p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth;
        ebb_plan_problem packed = p;
        packed.slots[EBB_TIER_HOST] = 4 * slots;
        packed.host_codec.ratio = 4;
        packed.host_codec.threads = (int32_t)wl_pick(&r, 1, 3);
        packed.host_codec.compress_bps = 1e7 * (double)wl_pick(&r, 1, 500);
        packed.host_codec.decompress_bps = 1e7 * (double)wl_pick(&r, 1, 500);
        ebb_plan_prediction a, b;
        cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_ASYNC, &a), EBB_OK, "%s",
                     ebb_last_error());
        cr_assert_eq(ebb_plan_predict(&packed, EBB_CONFIG_STRATEGY_ASYNC, &b), EBB_OK, "%s",
                     ebb_last_error());
        cr_assert(a.fits && b.fits, "case %d: %s %s", c, a.why_not, b.why_not);
        if (b.schedule == EBB_STRATEGY_STORE_ALL) { /* 4 x the slots hold every state */
            cr_assert_eq(b.recomputed_steps, 0);
            continue;
        }
        cr_assert_eq(b.stores[EBB_TIER_DISK], a.stores[EBB_TIER_DISK],
                     "case %d (n %lld, %d slots): %lld states stored on disk compressed, %lld "
                     "uncompressed", c, (long long)p.steps, slots,
                     (long long)b.stores[EBB_TIER_DISK], (long long)a.stores[EBB_TIER_DISK]);
        cr_assert_leq(b.recomputed_steps, a.recomputed_steps,
                      "case %d (n %lld, %d slots, %lld disk stores): %lld recomputed with %d "
                      "compressed slots, %lld with %d", c, (long long)p.steps, slots,
                      (long long)a.stores[EBB_TIER_DISK], (long long)b.recomputed_steps,
                      4 * slots, (long long)a.recomputed_steps, slots);
        fewer += b.recomputed_steps < a.recomputed_steps;
    }
    cr_assert_geq(fewer, 50, "only %d cases recomputed fewer steps", fewer);
}

/* Steps of a smooth float64 field that take `f` seconds (spinning out the
 * rest), so that the paced disk's writes end mid-step. */
typedef struct timed {
    size_t values;
    double f;
} timed;

static int timed_forward(void *user, int64_t k, const void *in, void *out)
{
    const timed *t = user;
    double end = wl_now_s() + t->f;
    const double *x = in;
    double *y = out;
    for (size_t i = 0; i < t->values; i++)
        y[i] = 0.9 * x[i] + 0.1 * sin(0.001 * (double)i + 0.01 * (double)k);
    while (wl_now_s() < end)
        ;
    return EBB_STEP_OK;
}

static int timed_reverse(void *user, int64_t k, void *state)
{
    (void)user, (void)k, (void)state;
    return EBB_STEP_OK;
}

static void async_run(ebb_config *cfg, timed *t, int64_t n, ebb_run_stats *st)
{
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = t->values * sizeof(double);
    o.steps = n;
    o.config = cfg;
    o.strategy = EBB_STRATEGY_ASYNC;
    o.element = EBB_ELEMENT_FLOAT64;
    o.forward = timed_forward;
    o.reverse = timed_reverse;
    o.user = t;
    ebb_run *run = wl_create(&o);
    double *x0 = calloc(t->values, sizeof(double));
    cr_assert_eq(ebb_run_forward(run, x0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    free(x0);
    ebb_run_stats_get(run, st);
    ebb_run_destroy(run);
}

Test(host_fixed_rate_async, real_runs_recompute_no_more, .timeout = 300)
{
    wl_rng r = {0xc0ffee};
    int compared = 0;
    for (int c = 0; c < 6; c++) {
        char dir[256];
        ebb_config cfg;
        wl_config(&cfg, dir, sizeof dir);
        timed t = {4096 * (size_t)wl_pick(&r, 1, 4), 1e-3};
        size_t state = t.values * sizeof(double);
        int64_t slots = wl_pick(&r, 2, 5);
        int64_t n = wl_pick(&r, 8 * slots, 16 * slots);
        cfg.host.budget = (uint64_t)slots * state;
        /* the second write waits for twice the forward sweep: x_0 and the
         * state or two stored while its write went at once, whatever the
         * clock's noise; the reverse recomputes the rest from them */
        cfg.disk.max_bandwidth = (uint64_t)((double)state / (2.0 * (double)n * t.f));
        ebb_run_stats plain, packed;
        /* the pacer lets a burst of one request go at once, and a loaded
         * machine delays a write's end: two to four stores, tried again
         * until both runs stored as many */
        int same = 0;
        for (int attempt = 0; attempt < 4 && !same; attempt++) {
            cfg.host.compression.mode = EBB_COMPRESSION_OFF;
            async_run(&cfg, &t, n, &plain);
            cfg.host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
            cfg.host.compression.rate = 16;
            async_run(&cfg, &t, n, &packed);
            same = plain.stores[EBB_TIER_DISK] == packed.stores[EBB_TIER_DISK];
        }
        cr_assert_leq(plain.stores[EBB_TIER_DISK], 4, "case %d: %lld disk stores", c,
                      (long long)plain.stores[EBB_TIER_DISK]);
        if (same) {
            compared++;
            cr_assert_lt(packed.recomputed_steps, plain.recomputed_steps,
                         "case %d (n %lld, %lld slots, %lld disk stores): %lld recomputed with "
                         "%lld compressed slots, %lld with %lld uncompressed", c, (long long)n,
                         (long long)slots, (long long)plain.stores[EBB_TIER_DISK],
                         (long long)packed.recomputed_steps, 4 * (long long)slots,
                         (long long)plain.recomputed_steps, (long long)slots);
        }
        rmdir(dir);
        ebb_config_dispose(&cfg);
    }
    cr_assert_geq(compared, 4, "only %d of 6 cases stored as many states in 4 tries: do the "
                  "compressed host slots change async's disk stores?", compared);
}
