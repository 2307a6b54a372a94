/* With n unknown the samples are every k-th step from x_0, k doubling (and
 * the kept set thinned) whenever the K copies are all taken: K = 8 over 100
 * steps keeps x_0, x_16, .., x_96 (k = 16), which the estimate compares,
 * spread over the whole sweep; K = 1 keeps x_0. */
#include "estimate.h"

Test(error_estimate_unknown_n, spread_by_doubling)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    es e = {.unknown = 1};
    es_init(&e, 4096, 100);
    ebb_run_stats st;
    ebb_run_info info;
    es_run(&e, &cfg, EBB_CONFIG_STRATEGY_ONLINE, 5, 16, 8, &st, &info);
    cr_assert_eq(st.steps, 100);
    const int64_t steps[] = {0, 16, 32, 48, 64, 80, 96};
    double max, rms, estimate;
    es_expect(&e, steps, 7, &max, &rms, &estimate);
    cr_assert_gt(max, 0);
    cr_assert_eq(st.error_samples, 7, "compared %lld", (long long)st.error_samples);
    cr_assert_lt(fabs(st.state_rel_error_max - max), 1e-9 * max, "max %.9g, expected %.9g",
                 st.state_rel_error_max, max);
    cr_assert_lt(fabs(st.state_rel_error_rms - rms), 1e-9 * rms, "rms %.9g, expected %.9g",
                 st.state_rel_error_rms, rms);
    cr_assert_lt(fabs(st.gradient_rel_error_estimate - estimate), 1e-9 * estimate,
                 "estimate %.9g, expected %.9g", st.gradient_rel_error_estimate, estimate);
    es_free(&e);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(error_estimate_unknown_n, one_sample_keeps_x0)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    es e = {.unknown = 1};
    es_init(&e, 1024, 37);
    ebb_run_stats st;
    ebb_run_info info;
    es_run(&e, &cfg, EBB_CONFIG_STRATEGY_ONLINE, 4, 16, 1, &st, &info);
    cr_assert_eq(info.error_samples, 1);
    cr_assert_eq(st.error_samples, 1, "compared %lld", (long long)st.error_samples);
    cr_assert_eq(st.state_rel_error_max, e.true_rel[0], "max %.9g, x_0's %.9g",
                 st.state_rel_error_max, e.true_rel[0]);
    es_free(&e);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
