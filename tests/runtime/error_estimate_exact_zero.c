/* Without lossy compression the error estimate is exactly 0 (its self-check):
 * every sampled state the reverse sweep is handed, by the callback or pulled
 * (ebb_run_reverse_next), is bitwise its exact copy; the samples are all
 * compared, and their memory is reported. */
#include "estimate.h"

Test(error_estimate_exact_zero, callback_form)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    es e = {0};
    es_init(&e, 2048, 60);
    ebb_run_stats st;
    ebb_run_info info;
    es_run(&e, &cfg, EBB_CONFIG_STRATEGY_REVOLVE, 4, 0, 12, &st, &info);
    cr_assert_gt(st.recomputed_steps, 0, "the states were recomputed");
    cr_assert_eq(info.error_samples, 12);
    cr_assert_eq(info.error_sample_bytes, 12 * 2048 * sizeof(double));
    cr_assert_eq(st.error_samples, 12, "compared %lld of 12", (long long)st.error_samples);
    cr_assert_eq(st.error_samples_differ, 0);
    cr_assert_eq(st.state_rel_error_max, 0.0, "max %g", st.state_rel_error_max);
    cr_assert_eq(st.state_rel_error_rms, 0.0, "rms %g", st.state_rel_error_rms);
    cr_assert_eq(st.gradient_rel_error_estimate, 0.0);
    es_free(&e);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(error_estimate_exact_zero, pull_form)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.enabled = 0;
    es e = {0};
    es_init(&e, 1024, 40);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = e.values * sizeof(double);
    o.steps = e.n;
    o.config = &cfg;
    o.strategy = EBB_STRATEGY_REVOLVE;
    o.slots = 3;
    o.forward = es_forward;
    o.user = &e;
    o.element = EBB_ELEMENT_FLOAT64;
    o.error_samples = 40; /* every state */
    ebb_run *run = wl_create(&o);
    cr_assert_eq(ebb_run_forward(run, e.exact[0], NULL), EBB_OK, "%s", ebb_last_error());
    int64_t i;
    const void *x;
    while (ebb_run_reverse_next(run, &i, &x) == EBB_OK && i >= 0)
        ;
    ebb_run_stats st;
    cr_assert_eq(ebb_run_stats_get(run, &st), EBB_OK);
    cr_assert_eq(st.error_samples, 40);
    cr_assert_eq(st.error_samples_differ, 0);
    cr_assert_eq(st.state_rel_error_max, 0.0);
    ebb_run_destroy(run);
    es_free(&e);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
