/* Every H-Revolve stream passes the replay validator: random n <= 300, memory
 * and disk slots, disk write and read costs and reverse cost. */
#include "support/h_revolve_support.h"

Test(h_revolve, every_stream_validates)
{
    uint64_t seed = 9;
    for (int k = 0; k < 600; k++) {
        int64_t n = 1 + (int64_t)(hr_rand(&seed) % 300);
        int32_t c = 1 + (int32_t)(hr_rand(&seed) % 8);
        int32_t d = (int32_t)(hr_rand(&seed) % 9);
        double w = (double)(hr_rand(&seed) % 41) / 4.0;
        double r = (double)(hr_rand(&seed) % 41) / 4.0;
        double b = (double)(hr_rand(&seed) % 13) / 4.0;
        hr_cost(n, c, d, w, r, b, NULL);
    }
    /* The edges: one step, one slot, no disk. */
    for (int64_t n = 1; n <= 5; n++)
        for (int32_t d = 0; d <= 2; d++)
            hr_cost(n, 1, d, 1.0, 1.0, 1.0, NULL);
}

/* The first sweep runs exactly n forward steps: the advances before TURN. */
Test(h_revolve, first_sweep_is_n_steps)
{
    uint64_t seed = 17;
    for (int k = 0; k < 200; k++) {
        int64_t n = 1 + (int64_t)(hr_rand(&seed) % 300);
        int32_t c = 1 + (int32_t)(hr_rand(&seed) % 8);
        int32_t d = (int32_t)(hr_rand(&seed) % 9);
        double w = (double)(hr_rand(&seed) % 41) / 4.0;
        ebb_schedule_options o = hr_options(n, c, d);
        ebb_schedule *s = NULL;
        cr_assert_eq(ebb_h_revolve_create(&o, w, w, 1.0, &s), EBB_OK, "%s", ebb_last_error());
        int64_t forward = 0;
        ebb_action a;
        do {
            cr_assert_eq(ebb_schedule_next(s, &a), EBB_OK);
            if (a.kind == EBB_ACT_ADVANCE)
                forward += a.to - a.step;
            cr_assert_neq(a.kind, EBB_ACT_REVERSE, "n=%lld: reverse before TURN", (long long)n);
        } while (a.kind != EBB_ACT_TURN);
        cr_assert_eq(forward, n, "n=%lld C=%d D=%d W=R=%g: first sweep %lld steps",
                     (long long)n, c, d, w, (long long)forward);
        ebb_schedule_destroy(s);
    }
}
