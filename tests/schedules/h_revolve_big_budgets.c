/* More memory never makes H-Revolve fail or cost more: memory that holds
 * x_0 .. x_{n-2} (memory is free) gives the store-all optimum, n forward
 * and n reverse steps, whatever the disk slots and however large the
 * budget, also where (C + D) x n is far beyond the programme's table; disk
 * slots beyond n cost what n of them cost. Every stream replays through the
 * validator. */
#include <math.h>

#include "support/h_revolve_support.h"

static void expect_store_all(int64_t n, int32_t c, int32_t d, double w, double r, double b)
{
    double predicted = 0, cost = hr_cost(n, c, d, w, r, b, &predicted);
    double want = (double)n * (1.0 + b);
    cr_assert(fabs(cost - want) <= 1e-9 * want && fabs(predicted - want) <= 1e-9 * want,
              "n=%lld C=%d D=%d W=%g R=%g B=%g: cost %.17g, predicted %.17g, store-all %.17g",
              (long long)n, c, d, w, r, b, cost, predicted, want);
}

Test(h_revolve, memory_for_every_state_is_store_all)
{
    uint64_t seed = 33;
    for (int k = 0; k < 300; k++) {
        int64_t n = 1 + (int64_t)(hr_rand(&seed) % 300);
        int32_t c = (int32_t)(n - 1 + (int64_t)(hr_rand(&seed) % (uint64_t)(3 * n + 1)));
        int32_t d = (int32_t)(hr_rand(&seed) % (uint64_t)(2 * n + 1));
        expect_store_all(n, c > 0 ? c : 1, d, (double)(hr_rand(&seed) % 41) / 4.0,
                         (double)(hr_rand(&seed) % 41) / 4.0, (double)(hr_rand(&seed) % 13) / 4.0);
    }
}

/* (C + D) x n beyond the table's 2^24 entries. */
Test(h_revolve, budgets_beyond_the_table)
{
    uint64_t seed = 4097;
    expect_store_all(4097, 100000, 0, 1.0, 1.0, 2.0);
    for (int k = 0; k < 20; k++) {
        int64_t n = 4097 + (int64_t)(hr_rand(&seed) % 2000);
        int32_t c = (int32_t)(n - 1 + (int64_t)(hr_rand(&seed) % (uint64_t)(9 * n)));
        int32_t d = (int32_t)(hr_rand(&seed) % (uint64_t)(n + 1));
        expect_store_all(n, c, d, 2.0, 3.0, 1.5);
    }
}

Test(h_revolve, disk_slots_beyond_n_cost_what_n_cost)
{
    uint64_t seed = 77;
    for (int k = 0; k < 200; k++) {
        int64_t n = 3 + (int64_t)(hr_rand(&seed) % 120);
        int32_t c = 1 + (int32_t)(hr_rand(&seed) % (uint64_t)(n - 2));
        int32_t d = (int32_t)(n + 1 + (int64_t)(hr_rand(&seed) % (uint64_t)(2 * n)));
        double w = (double)(hr_rand(&seed) % 41) / 4.0, r = (double)(hr_rand(&seed) % 41) / 4.0,
               b = (double)(hr_rand(&seed) % 13) / 4.0;
        double pn = 0, pd = 0, at_n = hr_cost(n, c, (int32_t)n, w, r, b, &pn),
               beyond = hr_cost(n, c, d, w, r, b, &pd);
        cr_assert(beyond == at_n && pd == pn,
                  "n=%lld C=%d D=%d W=%g R=%g B=%g: %.17g (predicted %.17g) against %.17g "
                  "(%.17g) with D = n",
                  (long long)n, c, d, w, r, b, beyond, pd, at_n, pn);
    }
}
