/*
 * Online checkpointing (n unknown) against offline Revolve on random (C, n):
 * every stream validates, its forward count is what ebb_online_forward_count
 * says, never below the offline optimum, and within the measured gap:
 * at most 1 step over it up to beta(C, 2), 4 up to beta(C, 3) (the stops just
 * after a store, whose newest checkpoint is of no use yet), 25% beyond.
 */
#include "schedules/binomial.h"
#include "schedules/online.h"
#include "support/schedule_support.h"

static int64_t allowed_excess(int64_t n, int32_t c, int64_t offline)
{
    if (n <= ebb_beta(c, 2))
        return 1;
    if (n <= ebb_beta(c, 3))
        return 4;
    return offline / 4;
}

static void check(int64_t n, int32_t c, int validate)
{
    int64_t fast = 0, offline = revolve_count(n, c);
    cr_assert_eq(ebb_online_forward_count(n, c, &fast), EBB_OK, "%s", ebb_last_error());
    cr_assert_geq(fast, offline, "n=%lld C=%d: online %lld below the optimum %lld", (long long)n,
                  c, (long long)fast, (long long)offline);
    cr_assert_leq(fast - offline, allowed_excess(n, c, offline),
                  "n=%lld C=%d: online %lld, offline %lld", (long long)n, c, (long long)fast,
                  (long long)offline);
    if (validate) {
        ebb_schedule_options o = opts(EBB_STRATEGY_ONLINE, n, c);
        ebb_schedule_stats st = validated(&o);
        cr_assert_leq(st.peak_slots[EBB_TIER_HOST], c);
        cr_assert_eq(st.forward_steps, fast, "n=%lld C=%d: stream %lld, count %lld",
                     (long long)n, c, (long long)st.forward_steps, (long long)fast);
    }
}

Test(online, random_cases_validate_and_stay_near_offline, .timeout = 300)
{
    uint64_t seed = 2010;
    for (int i = 0; i < 1500; i++) {
        int32_t c = (int32_t)rng_range(&seed, 1, 80);
        int64_t b3 = ebb_beta(c, 3);
        /* Half inside beta(C, 3), half up to three times beyond it. */
        int64_t top = i % 2 ? b3 : 3 * b3;
        if (top > 20000)
            top = 20000;
        int64_t n = rng_range(&seed, 1, top);
        check(n, c, n <= 4000);
    }
}
