/* The planner replays each offline strategy's action stream: its forward
 * steps, stores, restores and peak slots per tier equal the replay
 * validator's for the same schedule, over many random (n, C, D). */
#include "ebb/planner.h"
#include "support/schedule_support.h"

static ebb_plan_problem problem(int64_t n, int32_t c, int32_t d)
{
    ebb_plan_problem p;
    ebb_plan_problem_init(&p);
    p.steps = n;
    p.state_size = 4096;
    p.forward_s = 0.001;
    p.reverse_s = 0.002;
    p.slots[EBB_TIER_HOST] = c;
    p.slots[EBB_TIER_DISK] = d;
    p.disk_fallback = 0;
    p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth = 4096 / 0.0007; /* a write: 0.7 f */
    p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth = 4096 / 0.0005;
    return p;
}

/* The schedule options the runtime (and so the planner) builds. */
static ebb_schedule_options options(ebb_config_strategy cs, int64_t n, int32_t c, int32_t d)
{
    ebb_strategy s;
    cr_assert_eq(ebb_config_strategy_schedule(cs, &s), EBB_OK);
    ebb_schedule_options o = opts(s, n, c > n ? (int32_t)n : c);
    o.io_ratio = 1.0;
    if (s == EBB_STRATEGY_ONLINE)
        o.slots = c;
    if (s == EBB_STRATEGY_MULTISTAGE)
        o.disk_slots = d > n ? (int32_t)n : d;
    else if (s == EBB_STRATEGY_DISK_REVOLVE)
        o.disk_slots = -1;
    else
        o.disk_slots = 0;
    return o;
}

static void compare(ebb_config_strategy cs, int64_t n, int32_t c, int32_t d, int *checked)
{
    ebb_schedule_options o = options(cs, n, c, d);
    ebb_schedule_stats st;
    memset(&st, 0, sizeof st);
    int valid = ebb_schedule_validate(&o, &st) == EBB_OK;
    ebb_plan_problem p = problem(n, c, d);
    ebb_plan_prediction pr;
    cr_assert_eq(ebb_plan_predict(&p, cs, &pr), EBB_OK, "%s", ebb_last_error());
    const char *name = ebb_config_strategy_name(cs);
    if (!valid || (cs == EBB_CONFIG_STRATEGY_DISK_REVOLVE && st.peak_slots[EBB_TIER_DISK] > d)) {
        cr_assert(!pr.fits, "%s n=%lld C=%d D=%d: the schedule cannot run, the planner says it fits",
                  name, (long long)n, c, d);
        return;
    }
    cr_assert(pr.fits, "%s n=%lld C=%d D=%d: %s", name, (long long)n, c, d, pr.why_not);
    cr_assert_eq(pr.forward_steps, st.forward_steps, "%s n=%lld C=%d D=%d: forward %lld vs %lld",
                 name, (long long)n, c, d, (long long)pr.forward_steps,
                 (long long)st.forward_steps);
    cr_assert_eq(pr.reverse_steps, n);
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        cr_assert_eq(pr.stores[t], st.stores[t], "%s n=%lld C=%d D=%d tier %d stores", name,
                     (long long)n, c, d, t);
        cr_assert_eq(pr.restores[t], st.restores[t], "%s n=%lld C=%d D=%d tier %d restores",
                     name, (long long)n, c, d, t);
        cr_assert_eq(pr.peak_slots[t], st.peak_slots[t], "%s n=%lld C=%d D=%d tier %d peak",
                     name, (long long)n, c, d, t);
    }
    (*checked)++;
}

static const ebb_config_strategy offline[] = {
    EBB_CONFIG_STRATEGY_STORE_ALL, EBB_CONFIG_STRATEGY_PERIODIC,   EBB_CONFIG_STRATEGY_REVOLVE,
    EBB_CONFIG_STRATEGY_ONLINE,    EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_CONFIG_STRATEGY_DISK_REVOLVE};

Test(planner_counts, equal_the_validator_over_random_cases)
{
    uint64_t rng = 0x9e3779b97f4a7c15u;
    int checked = 0;
    for (int i = 0; i < 300; i++) {
        int64_t n = rng_range(&rng, 1, 400);
        int32_t c = (int32_t)rng_range(&rng, 1, 12);
        int32_t d = (int32_t)rng_range(&rng, 1, (int32_t)n + 5);
        if (i % 10 == 0)
            c = (int32_t)(n > 1 ? n - 1 : 1); /* store-all fits */
        for (size_t s = 0; s < sizeof offline / sizeof *offline; s++)
            compare(offline[s], n, c, d, &checked);
    }
    cr_assert_gt(checked, 1000, "only %d cases fitted", checked);
}

Test(planner_counts, async_stores_every_step_when_the_disk_is_infinitely_fast)
{
    for (int64_t n = 2; n <= 200; n += 7) {
        ebb_plan_problem p = problem(n, 4, (int32_t)n);
        p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth = 0; /* infinite */
        p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth = 0;
        ebb_plan_prediction pr;
        cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_ASYNC, &pr), EBB_OK, "%s",
                     ebb_last_error());
        cr_assert(pr.fits, "%s", pr.why_not);
        cr_assert_eq(pr.forward_steps, n, "n=%lld: %lld forward steps", (long long)n,
                     (long long)pr.forward_steps);
        /* x_0 .. x_{n-1} (for n <= 5 the host holds all: store-all) */
        cr_assert_eq(pr.stores[EBB_TIER_DISK], n > 5 ? n : pr.stores[EBB_TIER_DISK]);
    }
}
