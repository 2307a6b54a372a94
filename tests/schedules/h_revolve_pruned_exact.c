/* The pruned split search (branch and bound, what the schedule uses) finds
 * the same optimum as trying every split, on random cases up to n = 4000
 * with disk costs up to 100 forward steps, memory write and read costs
 * included. */
#include "support/h_revolve_support.h"

static double dp_cost(int64_t n, int32_t c, int32_t d, const ebb_h_revolve_costs *k, int exact)
{
    ebb_h_revolve_dp *dp = NULL;
    cr_assert_eq(ebb_h_revolve_dp_create(n, c, d, k, exact, &dp), EBB_OK, "%s", ebb_last_error());
    double cost = ebb_h_revolve_dp_cost(dp);
    ebb_h_revolve_dp_destroy(dp);
    return cost;
}

Test(h_revolve, pruned_equals_exact)
{
    uint64_t seed = 46;
    for (int k = 0; k < 60; k++) {
        int64_t n = 2 + (int64_t)(hr_rand(&seed) % (k < 50 ? 1500 : 4000));
        int32_t c = 1 + (int32_t)(hr_rand(&seed) % 12);
        int32_t d = (int32_t)(hr_rand(&seed) % 12);
        ebb_h_revolve_costs costs = {
            .write = {(double)(hr_rand(&seed) % 3) / 4.0, (double)(hr_rand(&seed) % 401) / 4.0},
            .read = {(double)(hr_rand(&seed) % 3) / 4.0, (double)(hr_rand(&seed) % 401) / 4.0},
            .reverse = (double)(hr_rand(&seed) % 21) / 4.0};
        double exact = dp_cost(n, c, d, &costs, 1);
        double pruned = dp_cost(n, c, d, &costs, 0);
        cr_assert_eq(pruned, exact, "n=%lld C=%d D=%d w=%g/%g r=%g/%g B=%g: pruned %g, exact %g",
                     (long long)n, c, d, costs.write[0], costs.write[1], costs.read[0],
                     costs.read[1], costs.reverse, pruned, exact);
    }
}
