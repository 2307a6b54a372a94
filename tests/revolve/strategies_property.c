/* Every strategy passes the validator across thousands of (n, C, D, k, R) cases. */
#include "revolve/binomial.h"
#include "support/schedule_support.h"

static const int64_t edge_n[] = {1, 2, 3, 4, 5, 7, 8, 16, 31, 64, 100, 257, 1000};
static const int32_t edge_c[] = {1, 2, 3, 4, 5, 8, 13, 40, 999, 5000};
#define COUNT(a) (sizeof(a) / sizeof *(a))

Test(strategies, store_all_edges)
{
    for (size_t i = 0; i < COUNT(edge_n); i++) {
        int64_t n = edge_n[i];
        ebb_schedule_options o = opts(EBB_STRATEGY_STORE_ALL, n, (int32_t)(n > 1 ? n - 1 : 1));
        ebb_schedule_stats st = validated(&o);
        cr_assert_eq(st.forward_steps, n);
        cr_assert_eq(st.peak_slots[EBB_TIER_HOST], n - 1);
    }
}

Test(strategies, periodic_many_cases)
{
    int cases = 0;
    for (int64_t n = 1; n <= 120; n++) {
        for (int64_t k = 1; k <= n + 2; k++) {
            ebb_schedule_options o = opts(EBB_STRATEGY_PERIODIC, n, 100000);
            o.period = k;
            ebb_schedule_stats st = validated(&o);
            int64_t kk = k < n ? k : n;
            int64_t last = (n - 1) / kk * kk;
            /* n for the first sweep, k-1 for each earlier interval. */
            cr_assert_eq(st.forward_steps, n + (last / kk) * (kk - 1), "n=%lld k=%lld", (long long)n,
                         (long long)k);
            cases++;
        }
    }
    cr_assert_gt(cases, 7000);
}

Test(strategies, periodic_chooses_a_period_that_fits)
{
    for (size_t i = 0; i < COUNT(edge_n); i++) {
        for (int32_t c = 1; c <= 80; c++) {
            ebb_schedule_options o = opts(EBB_STRATEGY_PERIODIC, edge_n[i], c);
            ebb_schedule *s = NULL;
            ebb_status st = ebb_schedule_create(&o, &s);
            if (st != EBB_OK) {
                cr_assert_eq(st, EBB_ERR_INVALID_ARG);
                cr_assert(strstr(ebb_last_error(), "periodic needs at least") != NULL, "%s",
                          ebb_last_error());
                continue;
            }
            ebb_schedule_destroy(s);
            cr_assert_leq(validated(&o).peak_slots[EBB_TIER_HOST], c);
        }
    }
}

Test(strategies, revolve_edges_and_slot_bound)
{
    for (size_t i = 0; i < COUNT(edge_n); i++)
        for (size_t j = 0; j < COUNT(edge_c); j++) {
            ebb_schedule_options o = opts(EBB_STRATEGY_REVOLVE, edge_n[i], edge_c[j]);
            ebb_schedule_stats st = validated(&o);
            cr_assert_eq(st.forward_steps, revolve_count(edge_n[i], edge_c[j]));
            cr_assert_leq(st.peak_slots[EBB_TIER_HOST], edge_c[j]);
        }
}

Test(strategies, multistage_equals_revolve_with_all_slots, .timeout = 120)
{
    uint64_t seed = 42;
    for (int i = 0; i < 2000; i++) {
        int64_t n = rng_range(&seed, 1, 3000);
        int32_t c = (int32_t)rng_range(&seed, 1, 30);
        int32_t d = (int32_t)rng_range(&seed, 0, 30);
        ebb_schedule_options o = opts(EBB_STRATEGY_MULTISTAGE, n, c);
        o.disk_slots = d;
        ebb_schedule_stats st = validated(&o);
        cr_assert_eq(st.forward_steps, revolve_count(n, c + d), "n=%lld C=%d D=%d", (long long)n, c,
                     d);
        cr_assert_leq(st.peak_slots[EBB_TIER_HOST], c);
        cr_assert_leq(st.peak_slots[EBB_TIER_DISK], d);
    }
}

Test(strategies, multistage_puts_the_least_used_slots_on_disk)
{
    /* Stumm & Walther: disk holds the levels accessed least. Per stored
     * checkpoint, disk slots must see no more restores than memory slots. */
    const int64_t ns[] = {200, 1000, 5000, 20000};
    for (size_t i = 0; i < COUNT(ns); i++) {
        ebb_schedule_options o = opts(EBB_STRATEGY_MULTISTAGE, ns[i], 6);
        o.disk_slots = 3;
        ebb_schedule_stats st = validated(&o);
        double disk = (double)(st.stores[EBB_TIER_DISK] + st.restores[EBB_TIER_DISK]) / 3.0;
        double ram = (double)(st.stores[EBB_TIER_HOST] + st.restores[EBB_TIER_HOST]) / 6.0;
        cr_assert_lt(disk, ram, "n=%lld: %.1f disk accesses per slot, %.1f in memory",
                     (long long)ns[i], disk, ram);
    }
}

Test(strategies, disk_revolve_many_cases, .timeout = 120)
{
    uint64_t seed = 7;
    for (int i = 0; i < 2000; i++) {
        int64_t n = rng_range(&seed, 1, 5000);
        int32_t c = (int32_t)rng_range(&seed, 1, 20);
        ebb_schedule_options o = opts(EBB_STRATEGY_DISK_REVOLVE, n, c);
        if (i % 2)
            o.period = rng_range(&seed, 1, 400);
        else
            o.io_ratio = (double)rng_range(&seed, 1, 10000) / 100.0;
        ebb_schedule_stats st = validated(&o);
        /* Every disk checkpoint is written once and read once. */
        cr_assert_eq(st.stores[EBB_TIER_DISK], st.transfers_out[EBB_TIER_DISK]);
        cr_assert_eq(st.restores[EBB_TIER_DISK], 0);
        cr_assert_leq(st.peak_slots[EBB_TIER_HOST], c);
        /* Forward count: n, plus Revolve inside each earlier period. */
        ebb_schedule *s = NULL;
        cr_assert_eq(ebb_schedule_create(&o, &s), EBB_OK);
        ebb_schedule_options r;
        ebb_schedule_get_options(s, &r);
        ebb_schedule_destroy(s);
        int64_t m = r.period, last = (n - 1) / m * m;
        /* The disk phase runs `last` steps; the last period costs Revolve's
         * count with its turn (+1); each earlier period T(m, C). */
        int64_t expect = last + ebb_revolve_cost(n - last, c) + 1 + (last / m) * ebb_revolve_cost(m, c);
        cr_assert_eq(st.forward_steps, expect, "n=%lld C=%d m=%lld", (long long)n, c, (long long)m);
    }
}

Test(strategies, disk_revolve_period_formula)
{
    /* m = beta(M, t), t the least with beta(M+1, t) > R. */
    for (int32_t mslots = 1; mslots <= 30; mslots++) {
        for (double r = 0.0; r < 500.0; r += 3.7) {
            int64_t m = 0;
            cr_assert_eq(ebb_disk_revolve_period(mslots, r, &m), EBB_OK);
            int64_t t = 0;
            while ((double)ebb_beta(mslots + 1, t) <= r)
                t++;
            cr_assert_eq(m, ebb_beta(mslots, t));
            cr_assert_gt((double)ebb_beta(mslots + 1, t), r);
            if (t > 0)
                cr_assert_leq((double)ebb_beta(mslots + 1, t - 1), r);
        }
    }
    int64_t m;
    cr_assert_eq(ebb_disk_revolve_period(0, 1.0, &m), EBB_ERR_INVALID_ARG);
    cr_assert_eq(ebb_disk_revolve_period(4, -1.0, &m), EBB_ERR_INVALID_ARG);
}

Test(strategies, online_many_cases_and_close_to_offline, .timeout = 120)
{
    uint64_t seed = 99;
    for (int i = 0; i < 3000; i++) {
        int64_t n = rng_range(&seed, 1, 2000);
        int32_t c = (int32_t)rng_range(&seed, 1, 60);
        ebb_schedule_options o = opts(EBB_STRATEGY_ONLINE, n, c);
        ebb_schedule_stats st = validated(&o);
        cr_assert_leq(st.peak_slots[EBB_TIER_HOST], c);
        int64_t offline = revolve_count(n, c);
        cr_assert_geq(st.forward_steps, offline);
        /* the online placement (revolve/online_place.c) is within a small factor of optimal */
        cr_assert_leq((double)st.forward_steps, 1.5 * (double)offline + 2, "n=%lld C=%d: %lld vs %lld",
                      (long long)n, c, (long long)st.forward_steps, (long long)offline);
    }
}

Test(strategies, thousands_of_mixed_cases)
{
    uint64_t seed = 12345;
    int ran = 0;
    for (int i = 0; i < 4000; i++) {
        ebb_strategy s = (ebb_strategy)rng_range(&seed, 0, EBB_STRATEGY_COUNT - 1);
        int64_t n = rng_range(&seed, 1, 600);
        int32_t c = (int32_t)rng_range(&seed, 1, 700);
        ebb_schedule_options o = opts(s, n, c);
        o.disk_slots = s == EBB_STRATEGY_MULTISTAGE ? (int32_t)rng_range(&seed, 0, 10) : -1;
        o.period = s == EBB_STRATEGY_PERIODIC || s == EBB_STRATEGY_DISK_REVOLVE
                       ? rng_range(&seed, 0, 50)
                       : 0;
        o.io_ratio = (double)rng_range(&seed, 1, 100);
        ebb_schedule *sch = NULL;
        ebb_status st = ebb_schedule_create(&o, &sch);
        if (st != EBB_OK) {
            /* Only "too few slots" is an acceptable refusal here. */
            cr_assert_eq(st, EBB_ERR_INVALID_ARG);
            cr_assert(strstr(ebb_last_error(), "needs") != NULL, "%s", ebb_last_error());
            continue;
        }
        ebb_schedule_destroy(sch);
        validated(&o);
        ran++;
    }
    cr_assert_gt(ran, 3000);
}

#include "revolve/online.h"

Test(strategies, online_fast_count_matches_the_generated_stream)
{
    uint64_t seed = 5;
    for (int i = 0; i < 500; i++) {
        int64_t n = rng_range(&seed, 1, 3000);
        int32_t c = (int32_t)rng_range(&seed, 1, 80);
        ebb_schedule_options o = opts(EBB_STRATEGY_ONLINE, n, c);
        int64_t fast = 0;
        cr_assert_eq(ebb_online_forward_count(n, c, &fast), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(fast, validated(&o).forward_steps, "n=%lld C=%d", (long long)n, c);
    }
}
