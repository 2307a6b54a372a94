/* Bad error_samples are refused with what was wrong and what to do: the
 * option out of range, EBB_ERROR_SAMPLES not an integer in range, the key
 * out of range in a file, and a GPU state (the estimate is for host states). */
#include "estimate.h"

static ebb_run_options options(es *e, ebb_config *cfg)
{
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = e->values * sizeof(double);
    o.steps = 20;
    o.config = cfg;
    o.forward = es_forward;
    o.reverse = es_reverse;
    o.user = e;
    return o;
}

Test(error_samples_refused, bad_values)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    es e = {.values = 64};
    ebb_run_options o = options(&e, &cfg);
    ebb_run *run = NULL;
    o.error_samples = -2;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG,
            "ebb_run_options.error_samples is -2: expected 0 (off) .. 65536");
    o.error_samples = EBB_ERROR_SAMPLES_MAX + 1;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG, "error_samples is 65537");
    o.error_samples = -1;
    setenv("EBB_ERROR_SAMPLES", "many", 1);
    wl_says(ebb_run_create(&o, &run), EBB_ERR_CONFIG,
            "environment variable EBB_ERROR_SAMPLES='many': expected an integer from 0");
    setenv("EBB_ERROR_SAMPLES", "4", 1); /* wins over the option */
    o.error_samples = 0;
    run = wl_create(&o);
    ebb_run_info info;
    ebb_run_info_get(run, &info);
    cr_assert_eq(info.error_samples, 4);
    ebb_run_destroy(run);
    unsetenv("EBB_ERROR_SAMPLES");
    cr_assert_eq(ebb_config_load_string("[run]\nerror_samples = -3\n", "t.toml", &cfg),
                 EBB_ERR_CONFIG);
    cr_assert(strstr(ebb_last_error(), "run.error_samples"), "%s", ebb_last_error());
    cr_assert_eq(ebb_config_load_string("[run]\nerror_samples = 5\n", "t.toml", &cfg), EBB_OK,
                 "%s", ebb_last_error());
    o.error_samples = -1; /* the key */
    run = wl_create(&o);
    ebb_run_info_get(run, &info);
    cr_assert_eq(info.error_samples, 5);
    ebb_run_destroy(run);
    o.state_tier = EBB_TIER_GPU;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_UNSUPPORTED,
            "error_samples = 5: the lossy error estimate is for a host state only");
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
