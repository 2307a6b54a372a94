/*
 * At n = beta(C, 1), beta(C, 2), beta(C, 3) the online placement holds the
 * one layout that is optimal there (docs/online.md), so its forward count is
 * offline Revolve's exactly; the stops around each boundary stay within the
 * measured gap (1 step over the optimum up to beta(C, 2), 4 up to beta(C, 3)).
 */
#include "schedules/binomial.h"
#include "schedules/online.h"
#include "support/schedule_support.h"

static int64_t online_count(int64_t n, int32_t c)
{
    int64_t count = 0;
    cr_assert_eq(ebb_online_forward_count(n, c, &count), EBB_OK, "%s", ebb_last_error());
    return count;
}

Test(online, exact_at_the_binomial_boundaries, .timeout = 300)
{
    for (int32_t c = 1; c <= 200; c++) {
        for (int64_t r = 1; r <= 3; r++) {
            int64_t b = ebb_beta(c, r);
            if (r == 3 && c > 60)
                break; /* beta(60, 3) = 39711: enough, and keeps the test short */
            cr_assert_eq(online_count(b, c), revolve_count(b, c), "C=%d n=beta(C,%lld)=%lld", c,
                         (long long)r, (long long)b);
        }
    }
}

Test(online, near_the_boundaries_within_the_gap, .timeout = 300)
{
    const int32_t slots[] = {2, 4, 7, 16, 33, 50};
    for (size_t i = 0; i < sizeof slots / sizeof *slots; i++) {
        int32_t c = slots[i];
        for (int64_t r = 2; r <= 3; r++) {
            int64_t b = ebb_beta(c, r);
            /* Beyond beta(C, 3) the gap is relative (online_close_to_offline). */
            int64_t hi = b + 12 < ebb_beta(c, 3) ? b + 12 : ebb_beta(c, 3);
            for (int64_t n = b - 12 > 1 ? b - 12 : 1; n <= hi; n++) {
                int64_t gap = online_count(n, c) - revolve_count(n, c);
                cr_assert_geq(gap, 0);
                cr_assert_leq(gap, n <= ebb_beta(c, 2) ? 1 : 4, "C=%d n=%lld: %lld over", c,
                              (long long)n, (long long)gap);
            }
        }
    }
}
