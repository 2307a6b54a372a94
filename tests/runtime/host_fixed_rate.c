/* The host tier compressed at a fixed rate (tier.host.compression): the
 * same host budget holds ratio times the slots and the schedule plans with
 * them, so a run recomputes fewer steps than without compression at that
 * budget (a property over random n and budgets, the strategies that
 * minimise recomputation: disk-revolve weighs the disk's time too, and may
 * recompute more to read less, and async decides by the clock; they are run
 * for their states only); each
 * restored state is within zfp's error of the exact one; a GPU state and a
 * missing element are refused at create, naming the key. */
#include <math.h>

#include "workload.h"

/* States of `values` float64 (a smooth field), stepped by a smooth map; the
 * reverse sweep checks that it is handed x_i, within `tol` of the exact
 * state (the plain loop's), in order. */
typedef struct fw {
    size_t values;
    double tol;
    double **exact; /* x_0 .. x_n, or NULL: not checked */
    int64_t expect;
    double worst;
    int order_ok;
} fw;

static void fw_step(size_t values, int64_t k, const double *in, double *out)
{
    for (size_t i = 0; i < values; i++)
        out[i] = 0.9 * in[i] + 0.1 * sin(0.001 * (double)i + 0.01 * (double)k);
}

static int fw_forward(void *user, int64_t k, const void *in, void *out)
{
    fw *f = user;
    fw_step(f->values, k, in, out);
    return EBB_STEP_OK;
}

static int fw_reverse(void *user, int64_t k, void *state)
{
    fw *f = user;
    if (k != f->expect--)
        f->order_ok = 0;
    const double *x = state;
    for (size_t i = 0; f->exact && i < f->values; i++) {
        double e = fabs(x[i] - f->exact[k][i]);
        f->worst = e > f->worst ? e : f->worst;
    }
    return EBB_STEP_OK;
}

/* Runs n steps under cfg with `strategy`; the recomputed steps. */
static int64_t fw_run(ebb_config *cfg, ebb_config_strategy strategy, fw *f, int64_t n,
                      ebb_run_info *info)
{
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = f->values * sizeof(double);
    o.steps = n;
    o.config = cfg;
    o.strategy = strategy;
    o.forward = fw_forward;
    o.reverse = fw_reverse;
    o.user = f;
    o.element = EBB_ELEMENT_FLOAT64;
    double *x0 = malloc(o.state_size);
    for (size_t i = 0; i < f->values; i++)
        x0[i] = cos(0.002 * (double)i);
    f->expect = n - 1;
    f->worst = 0;
    f->order_ok = 1;
    ebb_run *run = wl_create(&o);
    if (info)
        ebb_run_info_get(run, info);
    void *xn;
    cr_assert_eq(ebb_run_forward(run, x0, &xn), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    ebb_run_stats st;
    ebb_run_stats_get(run, &st);
    ebb_run_destroy(run);
    free(x0);
    cr_assert(f->order_ok && f->expect == -1, "the reverse sweep saw its states out of order");
    return st.forward_steps - n;
}

static double **exact_states(size_t values, int64_t n)
{
    double **x = malloc((size_t)(n + 1) * sizeof *x);
    for (int64_t k = 0; k <= n; k++) {
        x[k] = malloc(values * sizeof(double));
        if (k == 0)
            for (size_t i = 0; i < values; i++)
                x[0][i] = cos(0.002 * (double)i);
        else
            fw_step(values, k - 1, x[k - 1], x[k]);
    }
    return x;
}

Test(host_fixed_rate, more_slots_fewer_recomputations)
{
    const ebb_config_strategy strategies[] = {EBB_CONFIG_STRATEGY_REVOLVE,
                                              EBB_CONFIG_STRATEGY_MULTISTAGE,
                                              EBB_CONFIG_STRATEGY_ONLINE};
    wl_rng r = {0xc0ffee};
    for (int trial = 0; trial < 12; trial++) {
        char dir[256];
        ebb_config cfg;
        wl_config(&cfg, dir, sizeof dir);
        fw f = {.values = 4096 * (size_t)wl_pick(&r, 1, 4), .tol = 0};
        size_t state = f.values * sizeof(double);
        int64_t slots = wl_pick(&r, 2, 6);
        int64_t n = wl_pick(&r, 8 * slots, 60 * slots);
        ebb_config_strategy s = strategies[trial % 3];
        cfg.host.budget = (uint64_t)slots * state;
        if (s == EBB_CONFIG_STRATEGY_MULTISTAGE) /* a disk that holds every state recomputes none */
            cfg.disk.budget = (uint64_t)slots * state;
        f.exact = exact_states(f.values, n);
        ebb_run_info info;
        int64_t plain = fw_run(&cfg, s, &f, n, &info);
        cr_assert_eq(f.worst, 0, "uncompressed: exact");
        int32_t plain_slots = info.slots[EBB_TIER_HOST];
        cfg.host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
        cfg.host.compression.rate = 16;
        int64_t packed = fw_run(&cfg, s, &f, n, &info);
        cr_assert_eq(info.slots[EBB_TIER_HOST], 4 * plain_slots,
                     "trial %d (%s): %d host slots compressed, %d without", trial,
                     ebb_config_strategy_name(s), info.slots[EBB_TIER_HOST], plain_slots);
        cr_assert_lt(packed, plain, "trial %d (%s, n %lld, %lld slots): %lld recomputed "
                     "compressed, %lld without", trial, ebb_config_strategy_name(s),
                     (long long)n, (long long)slots, (long long)packed, (long long)plain);
        cr_assert_gt(f.worst, 0, "lossy: the restored states are not exact");
        cr_assert_lt(f.worst, 1e-3, "trial %d: a restored state is %g from the exact one", trial,
                     f.worst);
        for (int64_t k = 0; k <= n; k++)
            free(f.exact[k]);
        free(f.exact);
        rmdir(dir);
        ebb_config_dispose(&cfg);
    }
}

Test(host_fixed_rate, every_strategy_restores_within_the_error)
{
    const ebb_config_strategy strategies[] = {
        EBB_CONFIG_STRATEGY_REVOLVE,
        EBB_CONFIG_STRATEGY_ONLINE, EBB_CONFIG_STRATEGY_MULTISTAGE,
        EBB_CONFIG_STRATEGY_DISK_REVOLVE, EBB_CONFIG_STRATEGY_H_REVOLVE,
        EBB_CONFIG_STRATEGY_ASYNC, EBB_CONFIG_STRATEGY_AUTO};
    for (size_t i = 0; i < sizeof strategies / sizeof *strategies; i++) {
        char dir[256];
        ebb_config cfg;
        wl_config(&cfg, dir, sizeof dir);
        fw f = {.values = 8192};
        int64_t n = 90;
        cfg.host.budget = 3 * f.values * sizeof(double);
        cfg.disk.budget = 8 * f.values * sizeof(double);
        cfg.host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
        cfg.host.compression.rate = 20;
        f.exact = exact_states(f.values, n);
        (void)fw_run(&cfg, strategies[i], &f, n, NULL);
        cr_assert_lt(f.worst, 1e-3, "%s: a restored state is %g from the exact one",
                     ebb_config_strategy_name(strategies[i]), f.worst);
        for (int64_t k = 0; k <= n; k++)
            free(f.exact[k]);
        free(f.exact);
        rmdir(dir);
        ebb_config_dispose(&cfg);
    }
}

Test(host_fixed_rate, refusals_name_the_key)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
    fw f = {.values = 1024};
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = f.values * sizeof(double);
    o.steps = 40;
    o.config = &cfg;
    o.strategy = EBB_STRATEGY_REVOLVE;
    o.forward = fw_forward;
    o.reverse = fw_reverse;
    o.user = &f;
    ebb_run *run = NULL;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_CONFIG,
            "tier.host.compression = \"fixed-rate\" (zfp) needs the states' element type: set "
            "tier.host.element");
    o.element = EBB_ELEMENT_FLOAT64;
    o.audit = EBB_AUDIT_HASH; /* taken (tests/runtime/audit_lossy.c) */
    run = wl_create(&o);
    ebb_run_destroy(run);
    o.state_tier = EBB_TIER_GPU;
    o.audit = -1;
    ebb_status st = ebb_run_create(&o, &run);
    cr_assert_neq(st, EBB_OK);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
