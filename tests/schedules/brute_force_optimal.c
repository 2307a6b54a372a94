/*
 * A brute-force dynamic program over every checkpoint placement confirms that
 * the binomial schedule is optimal: no schedule with C slots reverses l steps
 * with fewer forward steps. Model: x_0 is stored, the reverse step of i needs
 * x_i live, the first sweep must also reach x_l (+1, the turn).
 */
#include "schedules/binomial.h"
#include "support/schedule_support.h"

enum { L_MAX = 70, C_MAX = 9 };

static int64_t memo[L_MAX + 1][C_MAX + 1];

/* Fewest forward steps to reverse l steps with c slots, x_0 in one of them. */
static int64_t best(int l, int c)
{
    if (l <= 1)
        return 0;
    if (c == 0)
        return INT64_MAX / 4;
    if (memo[l][c] >= 0)
        return memo[l][c];
    int64_t b = INT64_MAX;
    /* Advance m steps, keep x_m (unless the rest is one step), reverse the
     * rest with one slot fewer, then the first m with all c. */
    for (int m = 1; m < l; m++) {
        int64_t cost = m + best(l - m, c - 1) + best(m, c);
        if (cost < b)
            b = cost;
    }
    return memo[l][c] = b;
}

Test(brute_force, binomial_schedule_is_optimal)
{
    memset(memo, -1, sizeof memo);
    for (int c = 1; c <= C_MAX; c++) {
        for (int l = 1; l <= L_MAX; l++) {
            int64_t dp = best(l, c);
            cr_assert_eq(ebb_revolve_cost(l, c), dp, "l=%d c=%d: formula %lld, dp %lld", l, c,
                         (long long)ebb_revolve_cost(l, c), (long long)dp);
            ebb_schedule_options o = opts(EBB_STRATEGY_REVOLVE, l, c);
            cr_assert_eq(validated(&o).forward_steps, dp + 1, "l=%d c=%d", l, c);
        }
    }
}

Test(brute_force, every_split_the_library_takes_is_optimal)
{
    memset(memo, -1, sizeof memo);
    for (int c = 2; c <= C_MAX; c++) {
        for (int l = 2; l <= L_MAX; l++) {
            int64_t m = ebb_revolve_split(l, c);
            cr_assert(m >= 1 && m < l, "split %lld for l=%d", (long long)m, l);
            cr_assert_eq(m + best(l - (int)m, c - 1) + best((int)m, c), best(l, c),
                         "split %lld is not optimal for l=%d c=%d", (long long)m, l, c);
        }
    }
}
