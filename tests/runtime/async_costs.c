/*
 * The asynchronous strategy's generator told the forward steps' costs
 * (rt_async_set_forward_costs): the forward sweep's decisions are the same,
 * every stream validates within the slots, the reverse sweep costs no more
 * over those costs than Revolve's reversal of the same intervals and less
 * in many cases, uniform costs give Revolve's counts, the planner predicts
 * the generator told the steps' times, and bad calls are refused saying
 * why.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"
#include "schedules/async.h"

/* A channel free once every `every` decisions (one state in `every` goes
 * down), whatever happened before: the same answers for the same steps, so
 * a run told the costs makes the forward decisions of one that is not. */
static ebb_status idle(void *ctx, int mask, int64_t step, int *out)
{
    (void)mask;
    *out = step % *(const int *)ctx == 0;
    return EBB_OK;
}

typedef struct replayed {
    double cost;     /* the forward costs of every step run */
    int64_t forward; /* forward steps run */
    int64_t stored;  /* states stored in the slower tiers */
} replayed;

/* n steps, c fast and d slow slots (tiers: 2 or 3, with d slots in each
 * slower tier), told the costs (`tell`) once n is known: at create where it
 * is (`known`), else right after the advance that reached x_n. */
static replayed replay(int64_t n, int known, int tiers, int32_t c, int32_t d, int every,
                       const double *costs, int tell)
{
    rt_async_options o;
    rt_async_options_init(&o, known ? n : 0, tiers == 3 ? EBB_TIER_GPU : EBB_TIER_HOST, c);
    cr_assert(rt_async_add_tier(&o, tiers == 3 ? EBB_TIER_HOST : EBB_TIER_DISK, d));
    if (tiers == 3)
        rt_async_add_tier(&o, EBB_TIER_DISK, d);
    rt_async *a;
    cr_assert_eq(rt_async_create(&o, &a), EBB_OK, "%s", ebb_last_error());
    if (known && tell)
        cr_assert_eq(rt_async_set_forward_costs(a, costs, n), EBB_OK, "%s", ebb_last_error());
    int32_t ts[EBB_TIER_COUNT];
    rt_async_tier_slots(a, ts);
    ebb_validator *v;
    cr_assert_eq(ebb_validator_create(known ? n : 0, ts, &v), EBB_OK);
    replayed r = {0, 0, 0};
    int told = known, end = 0;
    ebb_action batch[256];
    while (!end) {
        size_t k = 0;
        cr_assert_eq(rt_async_next_batch(a, batch, 256, &k, idle, &every), EBB_OK, "%s",
                     ebb_last_error());
        cr_assert_eq(ebb_validator_check(v, batch, k), EBB_OK,
                     "n=%lld known=%d tiers=%d c=%d d=%d every=%d told=%d: %s", (long long)n,
                     known, tiers, c, d, every, tell, ebb_last_error());
        for (size_t i = 0; i < k; i++) {
            const ebb_action *x = &batch[i];
            end |= x->kind == EBB_ACT_END;
            r.stored += x->kind == EBB_ACT_STORE && x->tier != (int)o.tier[0];
            if (x->kind != EBB_ACT_ADVANCE)
                continue;
            for (int64_t s = x->step; s < x->to; s++)
                r.cost += costs[s];
            r.forward += x->to - x->step;
            if (x->to == n && !told) {
                told = 1;
                cr_assert_eq(rt_async_set_steps(a, n), EBB_OK, "%s", ebb_last_error());
                if (tell)
                    cr_assert_eq(rt_async_set_forward_costs(a, costs, n), EBB_OK, "%s",
                                 ebb_last_error());
            }
        }
    }
    cr_assert_eq(ebb_validator_finish(v), EBB_OK, "%s", ebb_last_error());
    ebb_schedule_stats st;
    cr_assert_eq(ebb_validator_stats(v, &st), EBB_OK);
    cr_assert(st.complete);
    cr_assert_eq(st.reverse_steps, n);
    cr_assert_leq(st.peak_slots[o.tier[0]], c, "n=%lld c=%d: %d fast slots held", (long long)n, c,
                  st.peak_slots[o.tier[0]]);
    ebb_validator_destroy(v);
    rt_async_destroy(a);
    return r;
}

Test(async_costs, never_dearer_than_revolve_and_often_cheaper, .timeout = 600)
{
    srand(20261207);
    int cheaper = 0, cases = 300;
    for (int it = 0; it < cases; it++) {
        int64_t n = 2 + rand() % (it % 10 == 0 ? 2000 : 200);
        int known = rand() % 2, tiers = 2 + rand() % 2, every = 1 + rand() % 40;
        int32_t c = 1 + rand() % 10, d = 1 + rand() % 30;
        double *costs = malloc(sizeof *costs * (size_t)n);
        cr_assert_not_null(costs);
        for (int64_t i = 0; i < n; i++)
            costs[i] = it % 2 ? 1 + rand() % 9 : (rand() % 5 == 0 ? 16 : 1);
        replayed plain = replay(n, known, tiers, c, d, every, costs, 0);
        replayed told = replay(n, known, tiers, c, d, every, costs, 1);
        cr_assert_eq(told.stored, plain.stored, "n=%lld: the forward decisions differ",
                     (long long)n);
        cr_assert_leq(told.cost, plain.cost + 1e-9,
                      "n=%lld known=%d tiers=%d c=%d d=%d every=%d: %g told, %g not",
                      (long long)n, known, tiers, c, d, every, told.cost, plain.cost);
        cheaper += told.cost < plain.cost - 1e-9;
        free(costs);
    }
    cr_log_info("cheaper in %d of %d cases", cheaper, cases);
    cr_assert_geq(cheaper, cases / 4, "cheaper in only %d of %d cases", cheaper, cases);
}

Test(async_costs, uniform_costs_give_revolve_counts, .timeout = 300)
{
    srand(7);
    for (int it = 0; it < 100; it++) {
        int64_t n = 2 + rand() % 600;
        int known = rand() % 2, tiers = 2 + rand() % 2, every = 1 + rand() % 60;
        int32_t c = 1 + rand() % 8, d = 1 + rand() % 20;
        double *ones = malloc(sizeof *ones * (size_t)n);
        cr_assert_not_null(ones);
        for (int64_t i = 0; i < n; i++)
            ones[i] = 1;
        replayed plain = replay(n, known, tiers, c, d, every, ones, 0);
        replayed told = replay(n, known, tiers, c, d, every, ones, 1);
        cr_assert_eq(told.forward, plain.forward, "n=%lld c=%d d=%d every=%d: %lld against %lld",
                     (long long)n, c, d, every, (long long)told.forward,
                     (long long)plain.forward);
        free(ones);
    }
}

static void expect(ebb_status got, ebb_status want, const char *has)
{
    cr_assert_eq(got, want, "status %d, expected %d: %s", got, want, ebb_last_error());
    cr_assert(strstr(ebb_last_error(), has), "\"%s\" does not say \"%s\"", ebb_last_error(), has);
}

Test(async_costs, bad_calls_are_refused_saying_why)
{
    double costs[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    rt_async_options o;
    rt_async_options_init(&o, 0, EBB_TIER_HOST, 2);
    rt_async_add_tier(&o, EBB_TIER_DISK, 4);
    rt_async *a;
    cr_assert_eq(rt_async_create(&o, &a), EBB_OK);
    expect(rt_async_set_forward_costs(a, costs, 8), EBB_ERR_STATE, "once n is known");
    rt_async_destroy(a);

    rt_async_options_init(&o, 8, EBB_TIER_HOST, 2);
    rt_async_add_tier(&o, EBB_TIER_DISK, 4);
    cr_assert_eq(rt_async_create(&o, &a), EBB_OK);
    expect(rt_async_set_forward_costs(a, costs, 7), EBB_ERR_INVALID_ARG, "7 costs for 8 steps");
    int every = 1, reversing = 0;
    ebb_action batch[64];
    while (!reversing) {
        size_t k = 0;
        cr_assert_eq(rt_async_next_batch(a, batch, 64, &k, idle, &every), EBB_OK);
        for (size_t i = 0; i < k; i++)
            reversing |= batch[i].kind == EBB_ACT_REVERSE;
    }
    expect(rt_async_set_forward_costs(a, costs, 8), EBB_ERR_STATE, "after the reverse began");
    rt_async_destroy(a);
}

/* The planner runs the engine with the steps' times as async's costs: with
 * transfers that take no time every decision finds the channel free, and
 * the prediction is the time of the forward steps the generator told those
 * costs runs (every channel free) and of the reverse steps. */
Test(async_costs, the_planner_predicts_them, .timeout = 120)
{
    srand(11);
    int differs = 0;
    for (int it = 0; it < 40; it++) {
        int64_t n = 3 + rand() % 300;
        int32_t c = 1 + rand() % 6, d = 1 + rand() % 12;
        double *f = malloc(sizeof *f * (size_t)n), *r = malloc(sizeof *r * (size_t)n);
        cr_assert(f && r);
        double reverse = 0;
        for (int64_t i = 0; i < n; i++) {
            f[i] = 1e-3 * (rand() % 5 == 0 ? 16 : 1);
            r[i] = 1e-3 * (1 + rand() % 3);
            reverse += r[i];
        }
        ebb_plan_problem p;
        ebb_plan_problem_init(&p);
        p.steps = n;
        p.state_size = 64;
        p.slots[EBB_TIER_HOST] = c;
        p.slots[EBB_TIER_DISK] = d;
        for (int ch = 0; ch < EBB_PLAN_CHANNEL_COUNT; ch++)
            p.channel[ch] = (ebb_plan_channel){0, 0};
        p.forward_step_s = f;
        p.reverse_step_s = r;
        ebb_plan_prediction got;
        cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_ASYNC, &got), EBB_OK, "%s",
                     ebb_last_error());
        cr_assert(got.fits, "%s", got.why_not);
        int every = 1;
        double want = replay(n, 1, 2, c, d, every, f, 1).cost + reverse;
        double plain = replay(n, 1, 2, c, d, every, f, 0).cost + reverse;
        cr_assert(fabs(got.predicted_s - want) <= 1e-9 * want,
                  "case %d (n %lld, %d + %d slots): predicted %.12g, the generator told the "
                  "costs %.12g (not told: %.12g)",
                  it, (long long)n, c, d, got.predicted_s, want, plain);
        differs += want < plain - 1e-12;
        free(f);
        free(r);
    }
    cr_assert_geq(differs, 10, "told the costs, the generator ran cheaper in %d cases", differs);
}
