/* Sizing: the least disk bandwidth and the fewest host slots the planner
 * answers meet the target overhead, and a little less does not; a bad
 * problem is refused with the field named. */
#include <math.h>

#include "ebb/planner.h"
#include "support/schedule_support.h"

static ebb_plan_problem base(void)
{
    ebb_plan_problem p;
    ebb_plan_problem_init(&p);
    p.steps = 400;
    p.state_size = 16 << 20;
    p.forward_s = 0.006;
    p.reverse_s = 0.012;
    p.slots[EBB_TIER_HOST] = 4;
    p.slots[EBB_TIER_DISK] = 400;
    p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth = 1e9;
    p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth = 2e9;
    return p;
}

static double overhead(const ebb_plan_problem *p, ebb_config_strategy cs)
{
    ebb_plan_prediction r;
    cr_assert_eq(ebb_plan_predict(p, cs, &r), EBB_OK, "%s", ebb_last_error());
    return r.fits ? r.predicted_s / ((double)p->steps * (p->forward_s + p->reverse_s)) : INFINITY;
}

Test(planner_sizing, least_disk_bandwidth_is_least)
{
    const ebb_config_strategy cs[] = {EBB_CONFIG_STRATEGY_ASYNC, EBB_CONFIG_STRATEGY_MULTISTAGE,
                                      EBB_CONFIG_STRATEGY_AUTO};
    const double targets[] = {1.05, 1.2, 1.5};
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < 3; k++) {
            ebb_plan_problem p = base();
            double bw = 0;
            cr_assert_eq(ebb_plan_size_disk_bandwidth(&p, cs[i], targets[k], &bw), EBB_OK, "%s",
                         ebb_last_error());
            p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth = bw;
            p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth = 2 * bw;
            double at = overhead(&p, cs[i]);
            cr_assert_leq(at, targets[k], "%s: %g at %g B/s", ebb_config_strategy_name(cs[i]), at,
                          bw);
            p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth = bw * 0.99;
            p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth = 2 * bw * 0.99;
            double below = overhead(&p, cs[i]);
            cr_assert_gt(below, targets[k], "%s: %g at 0.99 x %g B/s",
                         ebb_config_strategy_name(cs[i]), below, bw);
        }
}

Test(planner_sizing, fewest_host_slots_are_fewest)
{
    const double targets[] = {1.1, 1.5, 2.0, 3.0};
    for (size_t k = 0; k < 4; k++) {
        ebb_plan_problem p = base();
        p.slots[EBB_TIER_DISK] = 0;
        int32_t slots = 0;
        cr_assert_eq(ebb_plan_size_host_slots(&p, EBB_CONFIG_STRATEGY_REVOLVE, targets[k], &slots),
                     EBB_OK, "%s", ebb_last_error());
        p.slots[EBB_TIER_HOST] = slots;
        cr_assert_leq(overhead(&p, EBB_CONFIG_STRATEGY_REVOLVE), targets[k]);
        p.slots[EBB_TIER_HOST] = slots - 1;
        cr_assert_gt(overhead(&p, EBB_CONFIG_STRATEGY_REVOLVE), targets[k], "%d slots", slots - 1);
    }
}

Test(planner_sizing, out_of_reach_and_bad_problems_are_refused)
{
    ebb_plan_problem p = base();
    p.slots[EBB_TIER_DISK] = 0;
    double bw;
    cr_assert_eq(ebb_plan_size_disk_bandwidth(&p, EBB_CONFIG_STRATEGY_REVOLVE, 1.1, &bw),
                 EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "no disk bandwidth"), "%s", ebb_last_error());
    cr_assert_eq(ebb_plan_size_disk_bandwidth(&p, EBB_CONFIG_STRATEGY_REVOLVE, 0.9, &bw),
                 EBB_ERR_INVALID_ARG);
    ebb_plan_prediction r;
    p = base();
    p.steps = 0;
    cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_REVOLVE, &r), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "problem.steps"), "%s", ebb_last_error());
    p = base();
    p.forward_s = -1;
    cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_REVOLVE, &r), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "forward_s"), "%s", ebb_last_error());
    p = base();
    p.channel[EBB_PLAN_DISK_TO_HOST].latency = -0.5;
    cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_REVOLVE, &r), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "disk->host"), "%s", ebb_last_error());
    cr_assert_eq(ebb_plan_predict(NULL, EBB_CONFIG_STRATEGY_REVOLVE, &r), EBB_ERR_INVALID_ARG);
    p = base();
    p.slots[EBB_TIER_HOST] = 0;
    p.slots[EBB_TIER_DISK] = 0;
    cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_REVOLVE, &r), EBB_OK);
    cr_assert(!r.fits && r.why_not[0]);
    /* auto with nothing that fits: not an error either */
    cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_AUTO, &r), EBB_OK);
    cr_assert(!r.fits && strstr(r.why_not, "no strategy fits"), "%s", r.why_not);
}
