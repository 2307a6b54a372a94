/* Revolve's forward count equals r*n - binom(C+r, r-1) + 1 exactly. */
#include "support/schedule_support.h"

/* The formula, computed independently of the library (exact in 128 bits). */
static int64_t formula(int64_t n, int64_t c)
{
    int64_t r = 0;
    __int128 beta = 1; /* binom(c + r, c) */
    while (beta < n) {
        r++;
        beta = beta * (c + r) / r;
    }
    __int128 b = 0; /* binom(c + r, r - 1) */
    if (r >= 1) {
        b = 1;
        for (int64_t i = 1; i <= r - 1; i++)
            b = b * (c + 1 + i) / i;
    }
    return (int64_t)(r * (__int128)n - b + 1);
}

Test(revolve_count, every_n_to_1000_and_c_to_40, .timeout = 300)
{
    for (int32_t c = 1; c <= 40; c++) {
        for (int64_t n = 1; n <= 1000; n++) {
            ebb_schedule_options o = opts(EBB_STRATEGY_REVOLVE, n, c);
            ebb_schedule_stats st = validated(&o);
            cr_assert_eq(st.forward_steps, formula(n, c), "n=%lld C=%d: %lld forward steps, want %lld",
                         (long long)n, c, (long long)st.forward_steps, (long long)formula(n, c));
            cr_assert_eq(revolve_count(n, c), st.forward_steps);
            cr_assert_leq(st.peak_slots[EBB_TIER_HOST], c);
        }
    }
}

Test(revolve_count, store_all_regime_costs_n)
{
    for (int64_t n = 1; n <= 200; n++) {
        ebb_schedule_options o = opts(EBB_STRATEGY_REVOLVE, n, (int32_t)(n + 5));
        ebb_schedule_stats st = validated(&o);
        cr_assert_eq(st.forward_steps, n);
    }
}

Test(revolve_count, sampled_large_cases_to_ten_million, .timeout = 600)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int checked = 0;
    /* Fixed corners, then random (n, C) whose stream stays under 4e7 steps. */
    const int64_t fixed[][2] = {{10000000, 100}, {10000000, 40}, {3000000, 16}, {1000000, 8},
                                {100000, 3},     {20000, 2},     {7, 200},      {1, 1}};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        ebb_schedule_options o = opts(EBB_STRATEGY_REVOLVE, fixed[i][0], (int32_t)fixed[i][1]);
        cr_assert_eq(validated(&o).forward_steps, formula(fixed[i][0], fixed[i][1]));
        checked++;
    }
    while (checked < 40) {
        int64_t n = rng_range(&seed, 1000, 10000000);
        int32_t c = (int32_t)rng_range(&seed, 2, 300);
        if (formula(n, c) > 40000000)
            continue;
        ebb_schedule_options o = opts(EBB_STRATEGY_REVOLVE, n, c);
        cr_assert_eq(validated(&o).forward_steps, formula(n, c), "n=%lld C=%d", (long long)n, c);
        checked++;
    }
}

Test(revolve_count, formula_api_matches_and_rejects_bad_input)
{
    int64_t count = 0;
    cr_assert_eq(ebb_revolve_forward_count(100000000, 100, &count), EBB_OK);
    cr_assert_eq(count, formula(100000000, 100));
    cr_assert_eq(ebb_revolve_forward_count(0, 5, &count), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "steps >= 1") != NULL, "%s", ebb_last_error());
    cr_assert_eq(ebb_revolve_forward_count(10, 0, &count), EBB_ERR_INVALID_ARG);
    cr_assert_eq(ebb_revolve_forward_count(INT64_MAX / 2, 1, &count), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "overflows") != NULL, "%s", ebb_last_error());
}
