/*
 * Online checkpointing told the forward steps' costs once n is known
 * (ebb_schedule_set_forward_costs): every stream validates within its
 * slots, costs no more over those costs than the binomial reversal of the
 * same checkpoints, less in many cases, the same on uniform costs; bad
 * calls are refused saying why.
 */
#include <math.h>

#include "schedules/online.h"
#include "support/schedule_support.h"

typedef struct {
    double cost;     /* the forward costs of every step run */
    int64_t forward; /* forward steps run */
} replayed;

/* Runs online over n steps with c host slots as a caller would: tells it n
 * right after the advance that reached x_n and, if `tell`, the costs; each
 * action goes through a validator that does not know n. */
static replayed replay(int64_t n, int32_t c, const double *costs, int tell)
{
    ebb_schedule_options o = opts(EBB_STRATEGY_ONLINE, 0, c);
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_schedule_create(&o, &s), EBB_OK, "%s", ebb_last_error());
    int32_t slots[EBB_TIER_COUNT] = {0};
    slots[EBB_TIER_HOST] = c;
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(0, slots, &v), EBB_OK, "%s", ebb_last_error());
    replayed r = {0, 0};
    int told = 0;
    for (;;) {
        ebb_action a;
        cr_assert_eq(ebb_schedule_next(s, &a), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_validator_check(v, &a, 1), EBB_OK, "n=%lld C=%d told=%d: %s",
                     (long long)n, c, tell, ebb_last_error());
        if (a.kind == EBB_ACT_END)
            break;
        if (a.kind != EBB_ACT_ADVANCE)
            continue;
        for (int64_t i = a.step; i < a.to; i++)
            r.cost += costs[i];
        r.forward += a.to - a.step;
        if (a.to == n && !told) {
            told = 1;
            cr_assert_eq(ebb_schedule_set_steps(s, n), EBB_OK, "%s", ebb_last_error());
            if (tell)
                cr_assert_eq(ebb_schedule_set_forward_costs(s, costs, n), EBB_OK, "%s",
                             ebb_last_error());
        }
    }
    cr_assert_eq(ebb_validator_finish(v), EBB_OK, "n=%lld C=%d: %s", (long long)n, c,
                 ebb_last_error());
    ebb_schedule_stats st;
    cr_assert_eq(ebb_validator_stats(v, &st), EBB_OK);
    cr_assert(st.complete);
    cr_assert_eq(st.reverse_steps, n);
    cr_assert_leq(st.peak_slots[EBB_TIER_HOST], c, "n=%lld C=%d: %d slots held", (long long)n, c,
                  st.peak_slots[EBB_TIER_HOST]);
    ebb_validator_destroy(v);
    ebb_schedule_destroy(s);
    return r;
}

Test(online_costs, never_dearer_than_the_binomial_reversal_and_often_cheaper, .timeout = 300)
{
    uint64_t seed = 4242;
    int cheaper = 0, cases = 300;
    double *costs = malloc(sizeof *costs * 2000);
    for (int i = 0; i < cases; i++) {
        int64_t n = rng_range(&seed, 2, i % 3 ? 400 : 2000);
        int32_t c = (int32_t)rng_range(&seed, 1, 10);
        for (int64_t k = 0; k < n; k++)
            costs[k] = (double)rng_range(&seed, 1, 9);
        replayed told = replay(n, c, costs, 1), not_told = replay(n, c, costs, 0);
        cr_assert_leq(told.cost, not_told.cost, "case %d (n=%lld C=%d): %g against %g", i,
                      (long long)n, c, told.cost, not_told.cost);
        cheaper += told.cost < not_told.cost;
    }
    free(costs);
    cr_assert_geq(cheaper, cases / 4, "cheaper in %d of %d cases", cheaper, cases);
}

Test(online_costs, uniform_costs_give_the_binomial_counts)
{
    uint64_t seed = 77;
    double *costs = malloc(sizeof *costs * 1000);
    for (int k = 0; k < 1000; k++)
        costs[k] = 1.0;
    for (int i = 0; i < 100; i++) {
        int64_t n = rng_range(&seed, 2, 1000);
        int32_t c = (int32_t)rng_range(&seed, 1, 12);
        replayed told = replay(n, c, costs, 1), not_told = replay(n, c, costs, 0);
        int64_t count = 0;
        cr_assert_eq(ebb_online_forward_count(n, c, &count), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(told.forward, count, "n=%lld C=%d: %lld against the binomial %lld",
                     (long long)n, c, (long long)told.forward, (long long)count);
        cr_assert_eq(not_told.forward, count);
    }
    free(costs);
}

static ebb_schedule *online_at_n(int64_t n, int32_t c)
{
    ebb_schedule_options o = opts(EBB_STRATEGY_ONLINE, 0, c);
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_schedule_create(&o, &s), EBB_OK, "%s", ebb_last_error());
    ebb_action a;
    do
        cr_assert_eq(ebb_schedule_next(s, &a), EBB_OK, "%s", ebb_last_error());
    while (!(a.kind == EBB_ACT_ADVANCE && a.to == n));
    return s;
}

Test(online_costs, bad_calls_are_refused_saying_why)
{
    double costs[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    ebb_schedule_options o = opts(EBB_STRATEGY_REVOLVE, 8, 3);
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_schedule_create(&o, &s), EBB_OK);
    cr_assert_eq(ebb_schedule_set_forward_costs(s, costs, 8), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "for online schedules; this one is revolve"),
              "%s", ebb_last_error());
    ebb_schedule_destroy(s);

    s = online_at_n(8, 3);
    cr_assert_eq(ebb_schedule_set_forward_costs(s, costs, 8), EBB_ERR_STATE);
    cr_assert(strstr(ebb_last_error(), "n is not known yet"), "%s", ebb_last_error());
    cr_assert_eq(ebb_schedule_set_steps(s, 8), EBB_OK);
    cr_assert_eq(ebb_schedule_set_forward_costs(s, costs, 7), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "7 costs for 8 steps"), "%s", ebb_last_error());
    costs[5] = -1;
    cr_assert_eq(ebb_schedule_set_forward_costs(s, costs, 8), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "step 5's cost must be finite and >= 0, got -1"), "%s",
              ebb_last_error());
    costs[5] = NAN;
    cr_assert_eq(ebb_schedule_set_forward_costs(s, costs, 8), EBB_ERR_INVALID_ARG);
    costs[5] = 6;
    cr_assert_eq(ebb_schedule_set_forward_costs(s, NULL, 8), EBB_ERR_INVALID_ARG);
    ebb_action a;
    cr_assert_eq(ebb_schedule_next(s, &a), EBB_OK);
    cr_assert_eq(a.kind, EBB_ACT_TURN);
    cr_assert_eq(ebb_schedule_set_forward_costs(s, costs, 8), EBB_ERR_STATE);
    cr_assert(strstr(ebb_last_error(), "the reverse sweep began already"), "%s",
              ebb_last_error());
    ebb_schedule_destroy(s);
}
