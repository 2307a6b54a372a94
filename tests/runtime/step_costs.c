/* Steps of different costs in a run (ebb_run_options.forward_costs,
 * reverse_costs): over random (n, slots, costs, tier) cases the run's
 * adjoint is bitwise the plain loop's, and the forward steps it really ran
 * cost, with the reverse steps, exactly what ebb_chain_schedule_create says
 * for the same chain within the same slots: the run follows the chain
 * program, not Revolve. Against Revolve's run with the same slots it never
 * costs more, and less in many cases. Bad costs are refused saying why. */
#include <math.h>

#include "workload.h"

/* The workload's callbacks, adding each forward call's cost. */
typedef struct costed {
    wl w;
    const double *f;
    double spent;
    double wait_s; /* each forward call's real time (0: none) */
} costed;

static int costed_forward(void *user, int64_t k, const void *in, void *out)
{
    costed *c = user;
    c->spent += c->f[k];
    if (c->wait_s > 0)
        wl_wait_s(c->wait_s);
    return wl_forward_cb(&c->w, k, in, out);
}

static int costed_reverse(void *user, int64_t k, void *state)
{
    return wl_reverse_cb(&((costed *)user)->w, k, state);
}

static ebb_run_options costed_options(costed *c, size_t size, ebb_config *cfg, int64_t n,
                                      int32_t slots, const double *f, const double *r)
{
    wl_init(&c->w, size);
    c->f = f;
    c->wait_s = 0;
    ebb_run_options o = wl_options(&c->w, cfg, n);
    o.forward = costed_forward;
    o.reverse = costed_reverse;
    o.user = c;
    o.slots = slots;
    o.strategy = EBB_STRATEGY_REVOLVE;
    o.audit = EBB_AUDIT_REPLAY;
    o.forward_costs = f;
    o.reverse_costs = r;
    return o;
}

/* What the run's forward calls cost, its adjoint checked against the loop. */
static double run_cost(costed *c, const ebb_run_options *o, int64_t n, uint64_t seed,
                       const double *r, ebb_run_info *info)
{
    wl_init(&c->w, o->state_size);
    c->w.expect_reverse = -1;
    c->w.order_ok = 1;
    c->spent = 0;
    ebb_run_stats stats;
    cr_assert_eq(wl_run(o, NULL, &c->w, seed, &stats), EBB_OK, "n %lld: %s", (long long)n,
                 ebb_last_error());
    cr_assert_eq(c->w.adjoint, wl_reference(o->state_size, n, seed), "n %lld", (long long)n);
    cr_assert(c->w.order_ok);
    if (info) {
        /* the reason outlives the run here (its own text is the run's) */
        static char reason[256];
        ebb_run *run = wl_create(o);
        cr_assert_eq(ebb_run_info_get(run, info), EBB_OK);
        snprintf(reason, sizeof reason, "%s", info->reason);
        info->reason = reason;
        info->warnings = NULL;
        ebb_run_destroy(run);
    }
    double rev = 0;
    for (int64_t i = 0; i < n; i++)
        rev += r[i];
    return c->spent + rev;
}

Test(step_costs, the_run_follows_the_chain_program_bitwise)
{
    wl_setup env;
    wl_setup_open(&env);
    wl_rng rng = {0x5eed};
    int cheaper = 0, cases = 80;
    for (int k = 0; k < cases; k++) {
        int64_t n = wl_pick(&rng, 1, k % 8 == 0 ? 400 : 40);
        int32_t slots = (int32_t)wl_pick(&rng, 1, n < 10 ? n : 10);
        size_t size = (size_t)wl_pick(&rng, 8, 300);
        double *f = malloc(sizeof *f * (size_t)n), *r = malloc(sizeof *r * (size_t)n);
        cr_assert(f && r);
        int uniform = k % 10 == 0;
        for (int64_t i = 0; i < n; i++) {
            f[i] = uniform ? 1 : (double)wl_pick(&rng, 1, 9);
            r[i] = uniform ? 2 : (double)wl_pick(&rng, 1, 9);
        }
        costed c;
        ebb_run_options o = costed_options(&c, size, &env.cfg, n, slots, f, r);
        if (k % 3 == 1)
            o.fast_tier = EBB_TIER_DISK;
        ebb_run_info info;
        double ran = run_cost(&c, &o, n, (uint64_t)k, r, &info);
        cr_assert_eq(info.strategy, EBB_STRATEGY_REVOLVE);
        cr_assert_leq(info.slots[o.fast_tier == EBB_TIER_DISK ? EBB_TIER_DISK : EBB_TIER_HOST],
                      slots, "case %d", k);
        double want = wl_chain_cost(n, f, r, NULL, size, (uint64_t)slots * size);
        cr_assert_eq(ran, want, "case %d (n %lld, %d slots): the run cost %g, the chain "
                     "program %g", k, (long long)n, slots, ran, want);
        /* Revolve's run with the same slots, at the same costs */
        o.forward_costs = o.reverse_costs = NULL;
        double revolve = run_cost(&c, &o, n, (uint64_t)k, r, NULL);
        cr_assert_leq(ran, revolve, "case %d: %g above Revolve's %g", k, ran, revolve);
        if (uniform)
            cr_assert_eq(ran, revolve, "case %d: a uniform chain is Revolve's", k);
        cheaper += ran < revolve;
        free(f);
        free(r);
    }
    cr_assert_geq(cheaper, cases / 4, "only %d of %d cases cheaper than Revolve", cheaper,
                  cases);
    wl_setup_close(&env);
}

Test(step_costs, auto_chooses_them_and_store_all_takes_them)
{
    wl_setup env;
    wl_setup_open(&env);
    double f[6] = {1, 8, 1, 8, 1, 8}, r[6] = {2, 2, 2, 2, 2, 2};
    costed c;
    /* no slower tier: revolve over the costs */
    env.cfg.disk.enabled = 0;
    ebb_run_options o = costed_options(&c, 48, &env.cfg, 6, 2, f, r);
    o.strategy = EBB_STRATEGY_AUTO;
    ebb_run_info info;
    double ran = run_cost(&c, &o, 6, 3, r, &info);
    cr_assert_eq(info.strategy, EBB_STRATEGY_REVOLVE);
    cr_assert(strstr(info.reason, "revolve over the steps' costs"), "%s", info.reason);
    cr_assert_eq(ran, wl_chain_cost(6, f, r, NULL, c.w.size, 2 * (uint64_t)c.w.size));
    /* a disk: the planner weighs every strategy with the steps' times */
    env.cfg.disk.enabled = 1;
    o = costed_options(&c, 48, &env.cfg, 6, 2, f, r);
    o.strategy = EBB_STRATEGY_AUTO;
    run_cost(&c, &o, 6, 3, r, &info);
    cr_assert(strstr(info.reason, "the planner predicts") &&
              strstr(info.reason, "their own times"), "%s", info.reason);
    o.strategy = EBB_STRATEGY_STORE_ALL;
    o.slots = 6;
    cr_assert_eq(run_cost(&c, &o, 6, 3, r, NULL), 27 + 12); /* each step once */
    wl_setup_close(&env);
}

/* Async told the costs reverses each interval between its disk states by
 * the chain program over them: bitwise the loop's, never dearer than
 * without them, cheaper where steps differ (one in five 16 times the
 * others; 3 host slots, a state in 12 on disk). Async stores a state when
 * it finds the disk free at a step boundary, so both runs must store the
 * same states: it asks 12 steps after its last write, each step takes
 * 0.5 ms and a write goes to the page cache (a few ms at most on a loaded
 * machine), so it finds the disk free every time. */
Test(step_costs, async_takes_them, .timeout = 60)
{
    wl_setup env;
    wl_setup_open(&env);
    env.cfg.disk.direct = 0;
    enum { N = 60 };
    double f[N], r[N];
    for (int i = 0; i < N; i++) {
        f[i] = i % 5 == 2 ? 16 : 1;
        r[i] = 1;
    }
    costed c;
    ebb_run_options o = costed_options(&c, 64, &env.cfg, N, 3, f, r);
    o.strategy = EBB_STRATEGY_ASYNC;
    o.slow_slots = 5;
    c.wait_s = 0.5e-3;
    ebb_run_info info;
    double told = run_cost(&c, &o, N, 9, r, &info);
    cr_assert_eq(info.strategy, EBB_STRATEGY_ASYNC, "%s", info.reason);
    o.forward_costs = o.reverse_costs = NULL;
    double plain = run_cost(&c, &o, N, 9, r, NULL);
    cr_log_info("async over %d steps: %g told the costs, %g not", N, told, plain);
    cr_assert_lt(told, plain, "%g told the costs, %g not", told, plain);
    wl_setup_close(&env);
}

/* The planner's revolve with each step's time: the chain program's
 * schedule, predicted at its cost (host slots: no transfer takes time). */
Test(step_costs, the_planner_predicts_them)
{
    wl_rng rng = {77};
    for (int k = 0; k < 30; k++) {
        int64_t n = wl_pick(&rng, 2, k % 5 == 0 ? 200 : 30);
        int32_t slots = (int32_t)wl_pick(&rng, 1, n < 8 ? n : 8);
        double *f = malloc(sizeof *f * (size_t)n), *r = malloc(sizeof *r * (size_t)n);
        cr_assert(f && r);
        for (int64_t i = 0; i < n; i++) {
            f[i] = 1e-3 * (double)wl_pick(&rng, 1, 9);
            r[i] = 1e-3 * (double)wl_pick(&rng, 1, 9);
        }
        ebb_plan_problem p;
        ebb_plan_problem_init(&p);
        p.steps = n;
        p.state_size = 64;
        p.slots[EBB_TIER_HOST] = slots;
        p.forward_step_s = f;
        p.reverse_step_s = r;
        ebb_plan_prediction got;
        cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_REVOLVE, &got), EBB_OK, "%s",
                     ebb_last_error());
        cr_assert(got.fits, "%s", got.why_not);
        double want = wl_chain_cost(n, f, r, NULL, 64, (uint64_t)slots * 64);
        cr_assert(fabs(got.predicted_s - want) <= 1e-9 * want,
                  "case %d (n %lld, %d slots): predicted %.12g, the chain program %.12g", k,
                  (long long)n, slots, got.predicted_s, want);
        free(f);
        free(r);
    }
    double f[2] = {1, -1}, r[2] = {1, 1};
    ebb_plan_problem p;
    ebb_plan_problem_init(&p);
    p.steps = 2;
    p.state_size = 64;
    p.slots[EBB_TIER_HOST] = 2;
    p.forward_step_s = f;
    ebb_plan_prediction got;
    wl_says(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_REVOLVE, &got), EBB_ERR_INVALID_ARG,
            "go together");
    p.reverse_step_s = r;
    wl_says(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_REVOLVE, &got), EBB_ERR_INVALID_ARG,
            "step 1: problem.forward_step_s");
}

Test(step_costs, bad_costs_are_refused_saying_why)
{
    wl_setup env;
    wl_setup_open(&env);
    double f[4] = {1, 2, 3, 4}, r[4] = {1, 1, 1, 1}, bad[4] = {1, -2, 1, 1};
    costed c;
    ebb_run *run = NULL;
    ebb_run_options o = costed_options(&c, 64, &env.cfg, 4, 2, f, NULL);
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG, "go together");
    o = costed_options(&c, 64, &env.cfg, 0, 2, f, r);
    o.strategy = EBB_STRATEGY_ONLINE;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG, "need n");
    o = costed_options(&c, 64, &env.cfg, 4, 2, f, r);
    o.strategy = EBB_STRATEGY_MULTISTAGE;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG,
            "strategy \"multistage\" does not take step costs");
    o = costed_options(&c, 64, &env.cfg, 4, 2, bad, r);
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG,
            "step 1: ebb_run_options.forward_costs and reverse_costs must be finite and >= 0, "
            "got -2 and 1");
    bad[1] = INFINITY;
    o = costed_options(&c, 64, &env.cfg, 4, 2, f, bad);
    o.strategy = EBB_STRATEGY_AUTO; /* whatever auto would choose */
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG, "got 2 and inf");
    /* more steps than a chain of costs may have */
    int64_t many = EBB_CHAIN_MAX_STEPS + 1;
    double *ones = malloc(sizeof *ones * (size_t)many);
    cr_assert_not_null(ones);
    for (int64_t i = 0; i < many; i++)
        ones[i] = 1;
    o = costed_options(&c, 64, &env.cfg, many, 2, ones, ones);
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG,
            "scheduled for up to 100000 steps, not 100001");
    free(ones);
    cr_assert_null(run);
    wl_setup_close(&env);
}
