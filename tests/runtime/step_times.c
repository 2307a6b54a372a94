/* ebb_run_step_times: each step's first-sweep forward time and reverse time,
 * measured. The callbacks busy-wait a known time on the clock the run reads
 * (CLOCK_MONOTONIC), so each measured time is at least that; recomputations
 * wait far longer, and a time that counted one would exceed a loose upper
 * bound. A pushed step's time is the caller's, from one push to the next; a
 * pulled reverse step's is from handing x_i out to the next call. Runs that
 * keep no times say why. */
#include "workload.h"

enum { N = 12 };

/* step k's first forward run, and its reverse step, wait these */
static double first_s(int64_t k) { return 1e-3 * (double)(k % 3); }
static double reverse_s(int64_t k) { return 1e-3 * (double)((k + 1) % 3); }
static const double recompute_s = 30e-3;

typedef struct timed {
    wl w;
    int runs[N];
} timed;

static int timed_forward(void *user, int64_t k, const void *in, void *out)
{
    timed *t = user;
    wl_wait_s(t->runs[k]++ == 0 ? first_s(k) : recompute_s);
    return wl_forward_cb(&t->w, k, in, out);
}

static int timed_reverse(void *user, int64_t k, void *state)
{
    wl_wait_s(reverse_s(k));
    return wl_reverse_cb(&((timed *)user)->w, k, state);
}

static ebb_run_options timed_options(timed *t, ebb_config *cfg, int64_t n)
{
    memset(t, 0, sizeof *t);
    wl_init(&t->w, 64);
    ebb_run_options o = wl_options(&t->w, cfg, n);
    o.forward = timed_forward;
    o.reverse = timed_reverse;
    o.user = t;
    o.strategy = EBB_STRATEGY_REVOLVE;
    o.slots = 3;
    return o;
}

/* every time at least its wait, and below a bound no recomputation fits */
static void check_times(const double *f, const double *r)
{
    for (int64_t k = 0; k < N; k++) {
        cr_assert_geq(f[k], first_s(k), "step %lld: %g", (long long)k, f[k]);
        cr_assert_lt(f[k], recompute_s / 2, "step %lld counted a recomputation: %g",
                     (long long)k, f[k]);
        cr_assert_geq(r[k], reverse_s(k), "reverse %lld: %g", (long long)k, r[k]);
    }
}

Test(step_times, the_first_sweep_and_the_reverse_steps)
{
    wl_setup env;
    wl_setup_open(&env);
    timed t;
    ebb_run_options o = timed_options(&t, &env.cfg, N);
    ebb_run *run = wl_create(&o);
    double f[N], r[N];
    unsigned char x0[64] = {1};
    void *xn;
    cr_assert_eq(ebb_run_forward(run, x0, &xn), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    int recomputed = 0;
    for (int k = 0; k < N; k++)
        recomputed += t.runs[k] > 1;
    cr_assert_gt(recomputed, 2, "revolve in 3 slots recomputes");
    cr_assert_eq(ebb_run_step_times(run, f, r, N), EBB_OK, "%s", ebb_last_error());
    check_times(f, r);
    /* the times as the next run's costs */
    double again[N];
    cr_assert_eq(ebb_run_step_times(run, again, NULL, 5), EBB_OK);
    cr_assert_eq(memcmp(again, f, 5 * sizeof *f), 0);
    ebb_run_destroy(run);
    o = timed_options(&t, &env.cfg, N);
    o.forward_costs = f;
    o.reverse_costs = r;
    run = wl_create(&o);
    ebb_run_destroy(run);
    wl_setup_close(&env);
}

Test(step_times, pushed_and_pulled)
{
    wl_setup env;
    wl_setup_open(&env);
    timed t;
    ebb_run_options o = timed_options(&t, &env.cfg, N);
    o.reverse = NULL;
    ebb_run *run = wl_create(&o);
    unsigned char x[64] = {2}, y[64];
    cr_assert_eq(ebb_run_begin(run, x), EBB_OK);
    for (int64_t k = 0; k < N; k++) {
        t.runs[k] = 1; /* ebb's own runs of it are recomputations */
        wl_wait_s(first_s(k)); /* the caller's step */
        wl_step(&t.w, k, x, y);
        memcpy(x, y, sizeof x);
        cr_assert_eq(ebb_run_push(run, x), EBB_OK, "%s", ebb_last_error());
    }
    void *xn;
    cr_assert_eq(ebb_run_finish_forward(run, &xn), EBB_OK, "%s", ebb_last_error());
    int64_t i;
    const void *xi;
    while (ebb_run_reverse_next(run, &i, &xi) == EBB_OK && i >= 0)
        wl_wait_s(reverse_s(i));
    cr_assert_lt(i, 0, "%s", ebb_last_error());
    double f[N], r[N];
    cr_assert_eq(ebb_run_step_times(run, f, r, N), EBB_OK, "%s", ebb_last_error());
    check_times(f, r);
    ebb_run_destroy(run);
    wl_setup_close(&env);
}

Test(step_times, runs_that_keep_none_say_why)
{
    wl_setup env;
    wl_setup_open(&env);
    timed t;
    ebb_run_options o = timed_options(&t, &env.cfg, 0);
    o.strategy = EBB_STRATEGY_ONLINE;
    ebb_run *run = wl_create(&o);
    double f[N];
    wl_says(ebb_run_step_times(run, f, NULL, 1), EBB_ERR_UNSUPPORTED, "n unknown");
    ebb_run_destroy(run);
    o = timed_options(&t, &env.cfg, N);
    run = wl_create(&o);
    wl_says(ebb_run_step_times(run, f, NULL, N + 1), EBB_ERR_INVALID_ARG,
            "count 13 is outside 0 .. 12");
    cr_assert_eq(ebb_run_step_times(run, f, NULL, 0), EBB_OK);
    ebb_run_destroy(run);
    wl_says(ebb_run_step_times(NULL, f, NULL, 1), EBB_ERR_INVALID_ARG, "NULL run");
    wl_setup_close(&env);
}
