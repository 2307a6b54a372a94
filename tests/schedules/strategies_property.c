#include <math.h>

/* Every strategy passes the validator across thousands of (n, C, D, k, R) cases. */
#include "schedules/binomial.h"
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

/* Stores and restores per (tier, slot), counted from the stream itself. */
typedef struct {
    int64_t uses[EBB_TIER_COUNT][64];
} slot_uses;

static ebb_status count_uses(void *user, const ebb_action *a, size_t count)
{
    slot_uses *u = user;
    for (size_t i = 0; i < count; i++)
        if ((a[i].kind == EBB_ACT_STORE || a[i].kind == EBB_ACT_RESTORE) && a[i].slot < 64)
            u->uses[a[i].tier][a[i].slot]++;
    return EBB_OK;
}

Test(strategies, multistage_puts_the_least_used_slots_on_disk, .timeout = 120)
{
    /* Stumm & Walther: the D checkpoints accessed least go to disk. Ranked
     * by stores + restores, every disk slot is used no more than any memory
     * slot (ties allowed), over many (n, C, D). */
    uint64_t seed = 4242;
    int checked = 0;
    for (int i = 0; i < 300; i++) {
        /* The last few are long enough that the library maps without a dry run. */
        int64_t n = i >= 295 ? rng_range(&seed, 1000000, 3000000)
                             : rng_range(&seed, 2, i < 150 ? 300 : 30000);
        int32_t c = (int32_t)rng_range(&seed, 1, 12);
        int32_t d = (int32_t)rng_range(&seed, 1, 12);
        ebb_schedule_options o = opts(EBB_STRATEGY_MULTISTAGE, n, c);
        o.disk_slots = d;
        slot_uses u;
        memset(&u, 0, sizeof u);
        ebb_schedule_stats st;
        cr_assert_eq(ebb_schedule_replay(&o, &st, count_uses, &u), EBB_OK, "%s", ebb_last_error());
        int32_t slots[EBB_TIER_COUNT];
        ebb_schedule *s = NULL;
        cr_assert_eq(ebb_schedule_create(&o, &s), EBB_OK);
        ebb_schedule_tier_slots(s, slots);
        ebb_schedule_destroy(s);
        int64_t disk_max = -1, host_min = INT64_MAX;
        for (int32_t k = 0; k < slots[EBB_TIER_DISK]; k++)
            if (u.uses[EBB_TIER_DISK][k] > disk_max)
                disk_max = u.uses[EBB_TIER_DISK][k];
        for (int32_t k = 0; k < slots[EBB_TIER_HOST]; k++)
            if (u.uses[EBB_TIER_HOST][k] < host_min)
                host_min = u.uses[EBB_TIER_HOST][k];
        /* Disk is used only when memory alone cannot hold every useful level. */
        if (slots[EBB_TIER_DISK] == 0)
            continue;
        cr_assert_eq(slots[EBB_TIER_HOST], c, "n=%lld C=%d D=%d", (long long)n, c, d);
        cr_assert_leq(disk_max, host_min, "n=%lld C=%d D=%d: a disk slot is used %lld times, a "
                      "memory slot only %lld", (long long)n, c, d, (long long)disk_max,
                      (long long)host_min);
        checked++;
    }
    cr_assert_gt(checked, 200);
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
        int64_t m = r.period, last = st.stores[EBB_TIER_DISK] * m;
        /* The disk phase runs `last` steps (k periods, k the disk stores);
         * the tail [last, n) costs Revolve's count with its turn (+1); each
         * period T(m, C). The tail is chosen (disk_revolve_last_period.c
         * checks how): never worse than leaving 1 .. m steps in memory. */
        int64_t expect = last + ebb_revolve_cost(n - last, c) + 1 + (last / m) * ebb_revolve_cost(m, c);
        cr_assert_eq(st.forward_steps, expect, "n=%lld C=%d m=%lld", (long long)n, c, (long long)m);
        int64_t fixed = (n - 1) / m * m;
        cr_assert_leq(st.forward_steps,
                      fixed + ebb_revolve_cost(n - fixed, c) + 1 + (fixed / m) * ebb_revolve_cost(m, c),
                      "n=%lld C=%d m=%lld", (long long)n, c, (long long)m);
    }
}

/* Forward steps per reversed step of periodic Disk-Revolve with period m:
 * the first sweep (m), Revolve inside the period (T(m, M)), and one disk
 * write plus one read (R), over m steps. Compared as fractions. */
static double per_step(int64_t m, int32_t mslots, double r)
{
    return ((double)m + (double)ebb_revolve_cost(m, mslots) + r) / (double)m;
}

Test(strategies, disk_revolve_period_minimises_the_cost_per_step, .timeout = 120)
{
    /* Brute force over every period up to 6000: the library's period must
     * reach the least cost per step (ties allowed, to rounding). */
    int checked = 0;
    for (int32_t mslots = 1; mslots <= 10; mslots++) {
        for (double r = 0.0; r < 400.0; r += 3.7) {
            int64_t m = 0;
            cr_assert_eq(ebb_disk_revolve_period(mslots, r, &m), EBB_OK);
            cr_assert(m >= 1 && m < 6000, "M=%d R=%g: period %lld", mslots, r, (long long)m);
            double best = INFINITY;
            int64_t best_m = 0;
            for (int64_t k = 1; k < 6000; k++) {
                double c = per_step(k, mslots, r);
                if (c < best) {
                    best = c;
                    best_m = k;
                }
            }
            cr_assert_leq(per_step(m, mslots, r), best * (1 + 1e-12),
                          "M=%d R=%g: period %lld costs %.9f per step, period %lld %.9f", mslots,
                          r, (long long)m, per_step(m, mslots, r), (long long)best_m, best);
            checked++;
        }
    }
    cr_assert_gt(checked, 1000);
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
        /* the online placement (schedules/online_place.c) is within a small factor of optimal */
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
        o.disk_slots = s == EBB_STRATEGY_MULTISTAGE || s == EBB_STRATEGY_H_REVOLVE
                           ? (int32_t)rng_range(&seed, 0, 10)
                           : -1;
        o.write_cost = (double)rng_range(&seed, 0, 40) / 4.0;
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

#include "schedules/online.h"

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
