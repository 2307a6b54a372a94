/* Periodic Disk-Revolve's last, incomplete period: the schedule needs no
 * more forward steps than the reference implementation's, and exactly the
 * fewest over every number of periods written to disk. */
#include "support/schedule_support.h"

/* Forward steps (first sweep included) of firedrake checkpoint_schedules'
 * periodic Disk-Revolve (github.com/firedrakeproject/checkpoint_schedules,
 * commit 8c489cbc7242, hrevolve_sequences/periodic_disk_revolve.py), printed
 * by calling periodic_disk_revolve(n - 1, C, R, W, 1, 1) with python3 and
 * summing the lengths of its Forward operations, less n - 1: its backward
 * step of i follows a forward of step i, which ebb's reverse step runs itself
 * (its plain revolve differs from ebb's Revolve count by exactly that). Its
 * period (printed) is ebb_disk_revolve_period(C, W + R). Cases: n = m + 1,
 * 2m + 1, 3m + 1, 2m + 2, 3m - 1 and 5m + 1 for eight (C, W, R), most with
 * W != R; n - 1 a multiple of m is where a fixed tail loses. */
typedef struct {
    int64_t n;
    int32_t c;
    double w, r;
    int64_t period, forward;
} ref_case;

static const ref_case cases[] = {
    {4, 1, 1, 4, 3, 7},
    {7, 1, 1, 4, 3, 13},
    {10, 1, 1, 4, 3, 19},
    {8, 1, 1, 4, 3, 14},
    {16, 1, 1, 4, 3, 31},
    {7, 2, 4, 1, 6, 12},
    {13, 2, 4, 1, 6, 26},
    {19, 2, 4, 1, 6, 40},
    {14, 2, 4, 1, 6, 30},
    {17, 2, 4, 1, 6, 35},
    {31, 2, 4, 1, 6, 68},
    {4, 2, 0.5, 3, 3, 5},
    {7, 2, 0.5, 3, 3, 10},
    {10, 2, 0.5, 3, 3, 15},
    {8, 2, 0.5, 3, 3, 12},
    {16, 2, 0.5, 3, 3, 25},
    {11, 3, 7, 2, 10, 19},
    {21, 3, 7, 2, 10, 44},
    {31, 3, 7, 2, 10, 69},
    {22, 3, 7, 2, 10, 52},
    {29, 3, 7, 2, 10, 64},
    {51, 3, 7, 2, 10, 119},
    {11, 3, 2, 7, 10, 19},
    {21, 3, 2, 7, 10, 44},
    {31, 3, 2, 7, 10, 69},
    {22, 3, 2, 7, 10, 52},
    {29, 3, 2, 7, 10, 64},
    {51, 3, 2, 7, 10, 119},
    {16, 4, 1, 10, 15, 28},
    {31, 4, 1, 10, 15, 67},
    {46, 4, 1, 10, 15, 106},
    {32, 4, 1, 10, 15, 80},
    {44, 4, 1, 10, 15, 101},
    {76, 4, 1, 10, 15, 184},
    {22, 5, 10, 1, 21, 39},
    {43, 5, 10, 1, 21, 95},
    {64, 5, 10, 1, 21, 151},
    {44, 5, 10, 1, 21, 114},
    {62, 5, 10, 1, 21, 146},
    {106, 5, 10, 1, 21, 263},
    {8, 6, 3, 0.5, 7, 9},
    {15, 6, 3, 0.5, 7, 22},
    {22, 6, 3, 0.5, 7, 35},
    {16, 6, 3, 0.5, 7, 28},
    {20, 6, 3, 0.5, 7, 32},
    {36, 6, 3, 0.5, 7, 61},
};

static ebb_schedule_stats disk_revolve(int64_t n, int32_t c, double ratio, int64_t period)
{
    ebb_schedule_options o = opts(EBB_STRATEGY_DISK_REVOLVE, n, c);
    o.io_ratio = ratio;
    o.period = period;
    return validated(&o);
}

Test(disk_revolve, no_more_forward_steps_than_the_reference)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const ref_case *k = &cases[i];
        int64_t m = 0;
        cr_assert_eq(ebb_disk_revolve_period(k->c, k->w + k->r, &m), EBB_OK);
        cr_assert_eq(m, k->period, "C=%d W+R=%g: period %lld, reference %lld", k->c, k->w + k->r,
                     (long long)m, (long long)k->period);
        ebb_schedule_stats st = disk_revolve(k->n, k->c, k->w + k->r, 0);
        cr_assert_leq(st.forward_steps, k->forward,
                      "n=%lld C=%d W=%g R=%g: %lld forward steps, the reference %lld",
                      (long long)k->n, k->c, k->w, k->r, (long long)st.forward_steps,
                      (long long)k->forward);
    }
}

/* Forward steps of the validated Revolve stream for n steps, C slots. */
static int64_t revolve_stream(int64_t n, int32_t c)
{
    ebb_schedule_options o = opts(EBB_STRATEGY_REVOLVE, n, c);
    return validated(&o).forward_steps;
}

/* With k periods of m steps on disk the stream runs k m steps forward to
 * write them, reverses the tail of n - k m steps as Revolve does (its first
 * sweep included) and each period as Revolve's m steps less the step to
 * their end (the next period's start is on disk). Every k is tried, each
 * piece counted on a Revolve stream of its own: the schedule must reach the
 * least, with the fewest disk checkpoints among equals. */
Test(disk_revolve, last_period_is_the_best_of_every_split, .timeout = 300)
{
    uint64_t seed = 77;
    int merged = 0;
    for (int i = 0; i < 300; i++) {
        int64_t n = rng_range(&seed, 1, 400);
        int32_t c = (int32_t)rng_range(&seed, 1, 6);
        int64_t m = rng_range(&seed, 1, 40);
        if (i % 3 == 0) /* n - 1 a multiple of m: where a fixed split loses */
            n = m * rng_range(&seed, 1, 10) + 1;
        if (m > n)
            m = n;
        int64_t period = revolve_stream(m, c) - 1;
        int64_t best = -1, best_k = -1;
        for (int64_t k = 0; k <= (n - 1) / m; k++) {
            int64_t f = k * m + revolve_stream(n - k * m, c) + k * period;
            if (best < 0 || f < best) {
                best = f;
                best_k = k;
            }
        }
        ebb_schedule_stats st = disk_revolve(n, c, 0, m);
        cr_assert_eq(st.forward_steps, best, "n=%lld C=%d m=%lld: %lld forward steps, least %lld",
                     (long long)n, c, (long long)m, (long long)st.forward_steps, (long long)best);
        cr_assert_eq(st.stores[EBB_TIER_DISK], best_k,
                     "n=%lld C=%d m=%lld: %lld periods on disk, the fewest that reach %lld: %lld",
                     (long long)n, c, (long long)m, (long long)st.stores[EBB_TIER_DISK],
                     (long long)best, (long long)best_k);
        merged += best_k < (n - 1) / m;
    }
    cr_assert_gt(merged, 30, "only %d cases where the tail took a period in", merged);
}
