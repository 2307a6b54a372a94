/*
 * Online checkpointing with far more slots than steps (a run with n unknown
 * is given its whole budget: millions of slots for small states): the
 * reverse sweep reverses each interval between kept states with at most as
 * many levels as the interval has steps, so it never scans every slot for
 * every interval (300 intervals x 2 million slots took minutes), and the
 * stream is what few slots give: every state kept once, no recomputation.
 */
#include <time.h>

#include "schedules/online.h"
#include "support/schedule_support.h"

Test(online, many_more_slots_than_steps, .timeout = 60)
{
    const int64_t n = 300;
    const int32_t c = 2000000;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ebb_schedule_options o = opts(EBB_STRATEGY_ONLINE, n, c);
    ebb_schedule_stats st = validated(&o);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_log_info("online, n %lld, %d slots: %.3f s", (long long)n, c, s);
    cr_assert_eq(st.forward_steps, n, "%lld forward steps", (long long)st.forward_steps);
    cr_assert_leq(st.peak_slots[EBB_TIER_HOST], n);
    cr_assert_lt(s, 5.0, "%.1f s to generate and validate %lld steps", s, (long long)n);
}
