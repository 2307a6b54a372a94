/* ebb_run_options.measure_costs: an online or async run times its first
 * sweep's steps and reverses each interval between its checkpoints by the
 * chain program over those times. The steps busy-wait known times (one in six 20
 * times the others), so the recomputed time falls against the same run
 * without measuring; adjoints stay bitwise the plain loop's; the times of a
 * run whose n was unknown are given once its forward ended, the array grown
 * past its first size; bad options are refused saying why. */
#include "workload.h"

enum { N = 48 };

static double wait_s(int64_t k) { return k % 6 == 0 ? 2e-3 : 0.1e-3; }

typedef struct costed {
    wl w;
    int runs[N];
    double recomputed_s; /* the waits of every run of a step after its first */
} costed;

static int costed_forward(void *user, int64_t k, const void *in, void *out)
{
    costed *c = user;
    if (c->runs[k]++)
        c->recomputed_s += wait_s(k);
    wl_wait_s(wait_s(k));
    return wl_forward_cb(&c->w, k, in, out);
}

static int costed_reverse(void *user, int64_t k, void *state)
{
    return wl_reverse_cb(&((costed *)user)->w, k, state);
}

static ebb_run_options costed_options(costed *c, ebb_config *cfg, int64_t steps, int measure,
                                      ebb_strategy strategy)
{
    memset(c, 0, sizeof *c);
    wl_init(&c->w, 64);
    c->w.steps_known = steps;
    c->w.last_at = N - 1;
    ebb_run_options o = wl_options(&c->w, cfg, steps);
    o.forward = costed_forward;
    o.reverse = costed_reverse;
    o.user = c;
    o.strategy = strategy;
    /* online: 4 slots leave its last intervals slots to choose with (with 3
     * measuring saves 3 %, which a loaded machine's noise in the times can
     * undo); async: 3, and a state in 12 goes to disk */
    o.slots = strategy == EBB_STRATEGY_ONLINE ? 4 : 3;
    o.slow_slots = 4;
    o.measure_costs = measure;
    return o;
}

static double recomputed(wl_setup *env, int64_t steps, int measure, ebb_strategy strategy)
{
    costed c;
    ebb_run_options o = costed_options(&c, &env->cfg, steps, measure, strategy);
    ebb_run *run = wl_create(&o);
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
    cr_assert_eq(info.strategy, strategy, "%s", info.reason);
    ebb_run_destroy(run);
    cr_assert_eq(wl_run(&o, NULL, &c.w, 5, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(c.w.adjoint, wl_reference(64, N, 5), "n %s, measure_costs %d: adjoint differs",
                 steps ? "known" : "unknown", measure);
    return c.recomputed_s;
}

static void reverses_by_the_forward_times(ebb_strategy strategy)
{
    wl_setup env;
    wl_setup_open(&env);
    env.cfg.disk.direct = 0; /* async: the page cache, not the device, times a write */
    for (int64_t steps = 0; steps <= N; steps += N) {
        double measured = recomputed(&env, steps, 1, strategy),
               plain = recomputed(&env, steps, 0, strategy);
        cr_log_info("%s, n %s: %.4f s recomputed measuring, %.4f s not",
                    ebb_strategy_name(strategy), steps ? "known" : "unknown", measured, plain);
        cr_assert_lt(measured, plain, "%s, n %s: %.4f s recomputed measuring, %.4f s not",
                     ebb_strategy_name(strategy), steps ? "known" : "unknown", measured, plain);
    }
    wl_setup_close(&env);
}

Test(measured_costs, online_reverses_by_the_forward_times, .timeout = 60)
{
    reverses_by_the_forward_times(EBB_STRATEGY_ONLINE);
}

Test(measured_costs, async_reverses_by_the_forward_times, .timeout = 60)
{
    reverses_by_the_forward_times(EBB_STRATEGY_ASYNC);
}

/* n unknown: the times are there once the forward ended, past the array's
 * first size (1,024 steps): every 700th step waits 50 us. */
static int sparse_waits(void *user, int64_t k, const void *in, void *out)
{
    if (k % 700 == 699)
        wl_wait_s(50e-6);
    return wl_forward_cb(user, k, in, out);
}

Test(measured_costs, times_of_an_unknown_n_after_the_forward)
{
    enum { M = 3000 };
    wl_setup env;
    wl_setup_open(&env);
    wl w;
    wl_init(&w, 64);
    w.steps_known = 0;
    w.last_at = M - 1;
    ebb_run_options o = wl_options(&w, &env.cfg, 0);
    o.forward = sparse_waits;
    o.strategy = EBB_STRATEGY_ONLINE;
    o.slots = 8;
    o.measure_costs = 1;
    ebb_run *run = wl_create(&o);
    static double f[M], r[M];
    wl_says(ebb_run_step_times(run, f, r, 1), EBB_ERR_INVALID_ARG,
            "n is not known before the forward sweep ends");
    unsigned char x0[64];
    wl_x0(&w, x0, 3);
    void *xn;
    cr_assert_eq(ebb_run_forward(run, x0, &xn), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_step_times(run, f, NULL, M), EBB_OK, "%s", ebb_last_error());
    for (int64_t k = 699; k < M; k += 700)
        cr_assert_geq(f[k], 50e-6, "step %lld: %g", (long long)k, f[k]);
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(w.adjoint, wl_reference(64, M, 3));
    cr_assert_eq(ebb_run_step_times(run, f, r, M), EBB_OK, "%s", ebb_last_error());
    wl_says(ebb_run_step_times(run, f, r, M + 1), EBB_ERR_INVALID_ARG,
            "count 3001 is outside 0 .. 3000");
    ebb_run_destroy(run);
    wl_setup_close(&env);
}

/* What auto and async resolve to takes the times: online where there is no
 * slower tier (not revolve), store-all where every state fits (nothing to
 * plan, the times kept). */
Test(measured_costs, auto_and_async_pick_a_strategy_that_takes_them)
{
    wl_setup env;
    wl_setup_open(&env);
    env.cfg.disk.enabled = 0;
    static const struct {
        ebb_strategy asked;
        int32_t slots;
        ebb_strategy runs;
        const char *why;
    } cases[] = {
        {EBB_STRATEGY_AUTO, 3, EBB_STRATEGY_ONLINE, "online over the steps' measured times"},
        {EBB_STRATEGY_ASYNC, 3, EBB_STRATEGY_ONLINE, "no slower tier is enabled, so online"},
        {EBB_STRATEGY_AUTO, N, EBB_STRATEGY_STORE_ALL, "holds all 48 states"},
        {EBB_STRATEGY_ASYNC, N, EBB_STRATEGY_STORE_ALL, "so store-all"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        costed c;
        ebb_run_options o = costed_options(&c, &env.cfg, N, 1, cases[i].asked);
        o.slots = cases[i].slots;
        ebb_run *run = wl_create(&o);
        ebb_run_info info;
        cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
        cr_assert_eq(info.strategy, cases[i].runs, "case %zu: %s", i, info.reason);
        cr_assert(strstr(info.reason, cases[i].why), "case %zu: %s", i, info.reason);
        unsigned char x0[64];
        wl_x0(&c.w, x0, 5);
        cr_assert_eq(ebb_run_forward(run, x0, NULL), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(c.w.adjoint, wl_reference(64, N, 5), "case %zu", i);
        double f[N];
        cr_assert_eq(ebb_run_step_times(run, f, NULL, N), EBB_OK, "%s", ebb_last_error());
        cr_assert_geq(f[0], 2e-3, "case %zu: step 0 measured %g s", i, f[0]);
        ebb_run_destroy(run);
    }
    wl_setup_close(&env);
}

Test(measured_costs, bad_options_are_refused_saying_why)
{
    wl_setup env;
    wl_setup_open(&env);
    costed c;
    ebb_run *run = NULL;
    ebb_run_options o = costed_options(&c, &env.cfg, N, 2, EBB_STRATEGY_ONLINE);
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG,
            "ebb_run_options.measure_costs is 2: expected 0 or 1");
    double costs[N] = {0};
    o = costed_options(&c, &env.cfg, N, 1, EBB_STRATEGY_ONLINE);
    o.forward_costs = costs;
    o.reverse_costs = costs;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG, "either given or measured");
    o = costed_options(&c, &env.cfg, N, 1, EBB_STRATEGY_REVOLVE);
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG,
            "strategy \"revolve\" does not plan its reverse sweep from measured times");
    cr_assert_null(run);
    wl_setup_close(&env);
}
