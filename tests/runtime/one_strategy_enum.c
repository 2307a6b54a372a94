/* One strategy enum (ebb_strategy) for users: an async run says
 * EBB_STRATEGY_ASYNC and "async", a planned auto run what it picked (never
 * auto); async and auto are refused as schedules, and a value outside the
 * enum is refused by ebb_run_create naming it. */
#include "workload.h"

static ebb_run *create(ebb_strategy s, const ebb_config *cfg, wl *w, ebb_status *st)
{
    ebb_run_options o;
    ebb_run_options_init(&o);
    cr_assert_eq(o.strategy, EBB_STRATEGY_FROM_CONFIG);
    o.state_size = w->size;
    o.steps = 40;
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = w;
    o.config = cfg;
    o.strategy = s;
    o.slots = 4;
    ebb_run *run = NULL;
    *st = ebb_run_create(&o, &run);
    return run;
}

Test(one_strategy_enum, a_run_reports_what_runs)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    wl w;
    wl_init(&w, 4096);
    static const struct {
        ebb_strategy asked, runs;
    } cases[] = {{EBB_STRATEGY_ASYNC, EBB_STRATEGY_ASYNC},
                 {EBB_STRATEGY_REVOLVE, EBB_STRATEGY_REVOLVE},
                 {EBB_STRATEGY_MULTISTAGE, EBB_STRATEGY_MULTISTAGE}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ebb_status st;
        ebb_run *run = create(cases[i].asked, &cfg, &w, &st);
        cr_assert_eq(st, EBB_OK, "%s", ebb_last_error());
        ebb_run_info info;
        cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
        cr_expect_eq(info.strategy, cases[i].runs, "%s", ebb_strategy_name(cases[i].asked));
        cr_expect_str_eq(info.strategy_name, ebb_strategy_name(cases[i].runs));
        ebb_run_destroy(run);
    }
    ebb_config_dispose(&cfg);
    rmdir(dir);
}

Test(one_strategy_enum, runtime_strategies_are_not_schedules)
{
    const ebb_strategy runtime_only[] = {EBB_STRATEGY_ASYNC, EBB_STRATEGY_AUTO};
    for (size_t i = 0; i < 2; i++) {
        ebb_schedule_options so;
        ebb_schedule_options_init(&so);
        so.strategy = runtime_only[i];
        so.steps = 10;
        so.slots = 3;
        ebb_schedule *s = NULL;
        cr_assert_eq(ebb_schedule_create(&so, &s), EBB_ERR_INVALID_ARG);
        cr_assert_null(s);
        cr_expect(strstr(ebb_last_error(), "not a schedule") &&
                      strstr(ebb_last_error(), ebb_strategy_name(runtime_only[i])),
                  "%s", ebb_last_error());
        ebb_strategy parsed;
        cr_assert_eq(ebb_strategy_from_name(ebb_strategy_name(runtime_only[i]), &parsed), EBB_OK);
        cr_expect_eq(parsed, runtime_only[i]);
    }
}

Test(one_strategy_enum, a_value_outside_the_enum_is_refused)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    wl w;
    wl_init(&w, 4096);
    ebb_status st;
    cr_assert_null(create((ebb_strategy)EBB_STRATEGY_ALL, &cfg, &w, &st));
    cr_expect_eq(st, EBB_ERR_INVALID_ARG);
    cr_expect(strstr(ebb_last_error(), "ebb_run_options.strategy 9"), "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
    rmdir(dir);
}
