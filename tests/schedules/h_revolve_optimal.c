/* H-Revolve's stream costs exactly the programme's optimum, and no more
 * than any other strategy with the same slots under the same costs: store-all
 * and periodic (when C memory slots hold their states), Revolve and online
 * (C memory slots), multistage (C + D) and periodic Disk-Revolve (C memory,
 * period from W + R, when its periods fit D disk slots), all counted by
 * ebb_stream_cost on their validated streams. */
#include "support/h_revolve_support.h"

enum { OTHERS = 6 };

static int other_cost(ebb_strategy strategy, int64_t n, int32_t c, int32_t d, double w, double r,
                      double b, double *cost)
{
    ebb_schedule_options o = hr_options(n, c, d);
    o.strategy = strategy;
    o.io_ratio = w + r > 0 ? w + r : 0.5;
    if (strategy != EBB_STRATEGY_MULTISTAGE && strategy != EBB_STRATEGY_DISK_REVOLVE)
        o.disk_slots = 0;
    ebb_schedule *s = NULL;
    if (ebb_schedule_create(&o, &s) != EBB_OK)
        return 0; /* e.g. disk-revolve's periods need more than D slots */
    ebb_schedule_destroy(s);
    ebb_schedule_stats st;
    cr_assert_eq(ebb_schedule_validate(&o, &st), EBB_OK, "%s: %s", ebb_strategy_name(strategy),
                 ebb_last_error());
    ebb_stream_costs costs = hr_stream_costs(&o, w, r, b);
    cr_assert_eq(ebb_stream_cost(&st, &costs, cost), EBB_OK);
    return 1;
}

Test(h_revolve, equals_optimum_and_beats_the_others)
{
    uint64_t seed = 2020;
    int compared[OTHERS] = {0};
    const ebb_strategy others[OTHERS] = {EBB_STRATEGY_STORE_ALL,  EBB_STRATEGY_PERIODIC,
                                         EBB_STRATEGY_REVOLVE,    EBB_STRATEGY_ONLINE,
                                         EBB_STRATEGY_MULTISTAGE, EBB_STRATEGY_DISK_REVOLVE};
    for (int k = 0; k < 400; k++) {
        /* A quarter of the cases short enough for store-all's C slots. */
        int64_t n = 1 + (int64_t)(hr_rand(&seed) % (k % 4 == 0 ? 8 : 300));
        int32_t c = 1 + (int32_t)(hr_rand(&seed) % 6);
        int32_t d = (int32_t)(hr_rand(&seed) % 40);
        double w = (double)(hr_rand(&seed) % 33) / 4.0;
        double r = (double)(hr_rand(&seed) % 33) / 4.0;
        double b = (double)(hr_rand(&seed) % 9) / 4.0;
        double predicted = 0;
        double cost = hr_cost(n, c, d, w, r, b, &predicted);
        cr_assert_eq(cost, predicted, "n=%lld C=%d D=%d W=%g R=%g B=%g: stream %g, optimum %g",
                     (long long)n, c, d, w, r, b, cost, predicted);
        for (int i = 0; i < OTHERS; i++) {
            double other = 0;
            if (!other_cost(others[i], n, c, d, w, r, b, &other))
                continue;
            compared[i]++;
            cr_assert(cost <= other, "n=%lld C=%d D=%d W=%g R=%g B=%g: h-revolve %g > %s %g",
                      (long long)n, c, d, w, r, b, cost, ebb_strategy_name(others[i]), other);
        }
    }
    for (int i = 0; i < OTHERS; i++)
        cr_assert(compared[i] >= 20, "only %d cases compared with %s", compared[i],
                  ebb_strategy_name(others[i]));
}
