/* The API's contract: bad options are refused with a message naming the
 * field, calls in the wrong order say so, the forward sweep can be driven
 * step by step (n known or not), and "auto" picks what the docs say. */
#include "workload.h"

static void refused(const ebb_run_options *o, ebb_status want, const char *text)
{
    ebb_run *run = (ebb_run *)0x1;
    cr_assert_eq(ebb_run_create(o, &run), want, "%s", ebb_last_error());
    cr_assert_null(run);
    cr_assert(strstr(ebb_last_error(), text), "'%s' lacks '%s'", ebb_last_error(), text);
}

Test(api_contract, bad_options_name_the_field)
{
    wl_setup env;
    wl_setup_open(&env);
    wl w;
    wl_init(&w, 100);
    ebb_run_options o = wl_options(&w, &env.cfg, 10);
    o.state_size = 0;
    refused(&o, EBB_ERR_INVALID_ARG, "state_size must be > 0");
    o = wl_options(&w, &env.cfg, 10);
    o.forward_inplace = wl_forward_inplace_cb;
    refused(&o, EBB_ERR_INVALID_ARG, "exactly one of ebb_run_options.forward");
    o = wl_options(&w, &env.cfg, 10);
    o.forward = NULL;
    refused(&o, EBB_ERR_INVALID_ARG, "exactly one of ebb_run_options.forward");
    o = wl_options(&w, &env.cfg, -3);
    refused(&o, EBB_ERR_INVALID_ARG, "steps must be >= 1, or 0 when n is unknown; got -3");
    o = wl_options(&w, &env.cfg, 0);
    o.strategy = EBB_CONFIG_STRATEGY_REVOLVE;
    refused(&o, EBB_ERR_INVALID_ARG,
            "needs strategy \"online\", \"async\" or \"auto\", not \"revolve\"");
    /* the strategy from the configuration: the same refusal, naming run.strategy and
       where it was set (not the budget) */
    ebb_config file;
    cr_assert_eq(ebb_config_init_default(&file), EBB_OK);
    cr_assert_eq(ebb_config_load_string("[run]\nstrategy = \"revolve\"\n", "t.toml", &file),
                 EBB_OK, "%s", ebb_last_error());
    o = wl_options(&w, &file, 0);
    refused(&o, EBB_ERR_INVALID_ARG,
            "n unknown (steps = 0) needs strategy \"online\", \"async\" or \"auto\", not "
            "\"revolve\" (run.strategy of the configuration, t.toml:2); give the number of "
            "steps (ebb_run_options.steps) or one of those strategies");
    ebb_config_dispose(&file);
    o = wl_options(&w, &env.cfg, 10);
    o.state_tier = EBB_TIER_DISK;
    refused(&o, EBB_ERR_INVALID_ARG, "state_tier must be EBB_TIER_HOST or EBB_TIER_GPU");
    o = wl_options(&w, &env.cfg, 10);
    o.audit = 7;
    refused(&o, EBB_ERR_INVALID_ARG, "audit must be an ebb_audit");
    o = wl_options(&w, &env.cfg, 10);
    o.slots = -1;
    refused(&o, EBB_ERR_INVALID_ARG, "must be >= 0");
    wl big;
    wl_init(&big, 3 * 4096);
    o = wl_options(&big, &env.cfg, 10);
    o.strategy = EBB_CONFIG_STRATEGY_ASYNC;
    o.slots = 1;
    env.cfg.disk.budget = 2 * 4096; /* less than one state */
    refused(&o, EBB_ERR_NO_MEMORY, "'tier.disk.budget' (default or set by the program): 8 KiB "
                                "holds no state of 12 KiB");
    env.cfg.disk.budget = 64ull << 20;
    o = wl_options(&w, &env.cfg, 10);
    o.strategy = EBB_CONFIG_STRATEGY_MULTISTAGE;
    o.fast_tier = EBB_TIER_DISK;
    o.slots = 3;
    refused(&o, EBB_ERR_CONFIG, "multistage needs a slower tier than disk");
    o = wl_options(&w, &env.cfg, 10);
    o.fast_tier = EBB_TIER_GPU;
    refused(&o, EBB_ERR_INVALID_ARG, "fast_tier gpu cannot hold slots for a host state");
    env.cfg.disk.enabled = 0;
    o = wl_options(&w, &env.cfg, 10);
    o.fast_tier = EBB_TIER_DISK;
    o.slots = 3;
    refused(&o, EBB_ERR_CONFIG, "tier.disk.enabled");
    cr_assert_eq(ebb_run_create(NULL, NULL), EBB_ERR_INVALID_ARG);
    wl_setup_close(&env);
}

Test(api_contract, calls_out_of_order_say_so)
{
    wl_setup env;
    wl_setup_open(&env);
    wl w;
    wl_init(&w, 100);
    w.steps_known = 10;
    ebb_run_options o = wl_options(&w, &env.cfg, 10);
    o.slots = 3;
    unsigned char x0[100];
    wl_x0(&w, x0, 1);
    ebb_run *run = wl_create(&o);
    cr_assert_eq(ebb_run_reverse(run), EBB_ERR_STATE);
    cr_assert(strstr(ebb_last_error(), "ebb_run_reverse cannot be called before the forward sweep"),
              "%s", ebb_last_error());
    cr_assert_eq(ebb_run_advance(run, 1, NULL), EBB_ERR_STATE);
    cr_assert_eq(ebb_run_begin(run, NULL), EBB_ERR_INVALID_ARG);
    cr_assert_eq(ebb_run_begin(run, x0), EBB_OK);
    cr_assert_eq(ebb_run_begin(run, x0), EBB_ERR_STATE);
    int64_t done = 0;
    cr_assert_eq(ebb_run_advance(run, 4, &done), EBB_OK);
    cr_assert_eq(done, 4);
    cr_assert_eq(ebb_run_advance(run, -1, &done), EBB_ERR_INVALID_ARG);
    cr_assert_eq(ebb_run_finish_forward(run, NULL), EBB_ERR_STATE);
    cr_assert(strstr(ebb_last_error(), "only 4 of the 10 steps ran"), "%s", ebb_last_error());
    cr_assert_eq(ebb_run_advance(run, 100, &done), EBB_OK);
    cr_assert_eq(done, 6);
    void *xn = NULL;
    cr_assert_eq(ebb_run_finish_forward(run, &xn), EBB_OK, "%s", ebb_last_error());
    cr_assert_not_null(xn);
    cr_assert_eq(ebb_run_advance(run, 1, NULL), EBB_ERR_STATE);
    cr_assert(strstr(ebb_last_error(), "after the forward sweep"), "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_ERR_STATE);
    cr_assert(strstr(ebb_last_error(), "after the reverse sweep"), "%s", ebb_last_error());
    cr_assert_eq(w.adjoint, wl_reference(100, 10, 1));
    ebb_run_stats st;
    cr_assert_eq(ebb_run_stats_get(run, &st), EBB_OK);
    cr_assert_eq(st.steps, 10);
    ebb_run_destroy(run);
    ebb_run_destroy(NULL);
    cr_assert_eq(ebb_run_stats_get(NULL, &st), EBB_ERR_INVALID_ARG);
    wl_setup_close(&env);
}

Test(api_contract, unknown_n_driven_step_by_step)
{
    wl_setup env;
    wl_setup_open(&env);
    wl w;
    wl_init(&w, 333);
    w.steps_known = 1; /* never return EBB_STEP_LAST: the caller ends the sweep */
    ebb_run_options o = wl_options(&w, &env.cfg, 0);
    o.slots = 4;
    unsigned char x0[333];
    wl_x0(&w, x0, 2);
    ebb_run *run = wl_create(&o);
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
    cr_assert_str_eq(info.strategy_name, "async", "auto with n unknown and a disk is async");
    cr_assert_eq(info.steps, 0);
    cr_assert_eq(ebb_run_begin(run, x0), EBB_OK);
    cr_assert_eq(ebb_run_finish_forward(run, NULL), EBB_ERR_STATE, "n = 0 is refused");
    for (int k = 0; k < 25; k++) {
        int64_t done = 0;
        cr_assert_eq(ebb_run_advance(run, 1, &done), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(done, 1);
    }
    cr_assert_eq(ebb_run_finish_forward(run, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
    cr_assert_eq(info.steps, 25);
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(w.adjoint, wl_reference(333, 25, 2));
    ebb_run_destroy(run);
    wl_setup_close(&env);
}

Test(api_contract, step_last_with_known_n_is_a_failure)
{
    wl_setup env;
    wl_setup_open(&env);
    wl w;
    wl_init(&w, 64);
    w.steps_known = 0;
    w.last_at = 3; /* says "last" at step 3 although n = 10 */
    ebb_run_options o = wl_options(&w, &env.cfg, 10);
    o.slots = 3;
    cr_assert_eq(wl_run(&o, NULL, &w, 1, NULL), EBB_ERR_CALLBACK);
    cr_assert(strstr(ebb_last_error(), "forward step 3 returned EBB_STEP_LAST, but the run was "
                                       "created with steps = 10"),
              "%s", ebb_last_error());
    wl_setup_close(&env);
}

Test(api_contract, auto_picks_as_documented)
{
    wl_setup env;
    wl_setup_open(&env);
    env.cfg.host.budget = 20 * 4096; /* 20 host slots of a 4 KiB state */
    env.cfg.disk.budget = 50 * 4096;
    wl w;
    wl_init(&w, 4096);
    struct {
        int64_t n;
        int disk;
        const char *want;
    } cases[] = {{21, 1, "store-all"}, {22, 1, "async"},  {22, 0, "revolve"},
                 {0, 1, "async"},      {0, 0, "online"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        env.cfg.disk.enabled = cases[i].disk;
        ebb_run_options o = wl_options(&w, &env.cfg, cases[i].n);
        ebb_run *run = wl_create(&o);
        ebb_run_info info;
        cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
        cr_assert_str_eq(info.strategy_name, cases[i].want, "case %zu", i);
        cr_assert(strncmp(info.reason, "auto: ", 6) == 0, "case %zu: reason '%s'", i,
                  info.reason);
        cr_assert_eq(info.fast_tier, EBB_TIER_HOST);
        ebb_run_destroy(run);
    }
    wl_setup_close(&env);
}
