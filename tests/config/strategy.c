/* [run] strategy: names, mapping to schedules, and tiers it needs. */
#include "config/helpers.h"

Test(strategy, names_round_trip)
{
    for (int i = 0; i < EBB_CONFIG_STRATEGY_COUNT; i++) {
        ebb_config_strategy s;
        const char *name = ebb_config_strategy_name((ebb_config_strategy)i);
        cr_assert_eq(ebb_config_strategy_from_name(name, &s), EBB_OK, "%s", name);
        cr_expect_eq((int)s, i);
    }
    cr_expect_str_eq(ebb_config_strategy_name((ebb_config_strategy)99), "?");
    ebb_config_strategy s;
    cr_expect_eq(ebb_config_strategy_from_name("Revolve", &s), EBB_ERR_INVALID_ARG);
    cr_expect(strstr(ebb_last_error(), "unknown strategy \"Revolve\" (did you mean \"revolve\"?)") != NULL,
              "%s", ebb_last_error());
}

Test(strategy, schedule_strategies)
{
    ebb_strategy s;
    cr_expect_eq(ebb_config_strategy_schedule(EBB_CONFIG_STRATEGY_REVOLVE, &s), EBB_OK);
    cr_expect_eq(s, EBB_STRATEGY_REVOLVE);
    cr_expect_eq(ebb_config_strategy_schedule(EBB_CONFIG_STRATEGY_DISK_REVOLVE, &s), EBB_OK);
    cr_expect_eq(s, EBB_STRATEGY_DISK_REVOLVE);
    cr_expect_eq(ebb_config_strategy_schedule(EBB_CONFIG_STRATEGY_H_REVOLVE, &s), EBB_OK);
    cr_expect_eq(s, EBB_STRATEGY_H_REVOLVE);
    cr_expect_eq(ebb_config_strategy_schedule(EBB_CONFIG_STRATEGY_STORE_ALL, &s), EBB_OK);
    cr_expect_eq(s, EBB_STRATEGY_STORE_ALL);
    cr_expect_eq(ebb_config_strategy_schedule(EBB_CONFIG_STRATEGY_AUTO, &s), EBB_ERR_UNSUPPORTED);
    cr_expect_eq(ebb_config_strategy_schedule(EBB_CONFIG_STRATEGY_ASYNC, &s), EBB_ERR_UNSUPPORTED);
}

Test(strategy, every_name_loads)
{
    /* one enum (ebb_strategy): run.strategy's names load as its values */
    const char *names[] = {"store-all",    "periodic",  "revolve", "online", "multistage",
                           "disk-revolve", "h-revolve", "async",   "auto"};
    cr_assert_eq(sizeof names / sizeof *names, EBB_CONFIG_STRATEGY_COUNT);
    for (int i = 0; i < EBB_CONFIG_STRATEGY_COUNT; i++) {
        char text[128];
        snprintf(text, sizeof text, "[run]\nstrategy = \"%s\"\n", names[i]);
        ebb_config cfg;
        load_ok(text, &cfg);
        cr_expect_eq((int)cfg.strategy, i, "%s", names[i]);
        cr_expect_str_eq(ebb_strategy_name(cfg.strategy), names[i]);
        ebb_config_dispose(&cfg);
    }
}

Test(strategy, every_schedule_is_a_run_strategy)
{
    /* the runtime runs every schedule: each ebb_strategy name is a
     * run.strategy that maps back to it */
    for (int i = 0; i < EBB_STRATEGY_COUNT; i++) {
        const char *name = ebb_strategy_name((ebb_strategy)i);
        ebb_config_strategy cs;
        cr_assert_eq(ebb_config_strategy_from_name(name, &cs), EBB_OK, "%s: %s", name,
                     ebb_last_error());
        ebb_strategy back;
        cr_assert_eq(ebb_config_strategy_schedule(cs, &back), EBB_OK, "%s", name);
        cr_expect_eq((int)back, i, "%s", name);
    }
}

Test(strategy, disk_strategies_need_the_disk_tier)
{
    expect_load_error("[run]\nstrategy = \"multistage\"\n[tier.disk]\nenabled = false\n", EBB_ERR_CONFIG,
                      "t.toml:4: key 'tier.disk.enabled': strategy \"multistage\" keeps states on disk "
                      "but the disk tier is disabled", NULL);
    expect_load_error("[tier.disk]\nenabled = false\n[run]\nstrategy = \"disk-revolve\"\n", EBB_ERR_CONFIG,
                      "t.toml:4: key 'run.strategy': strategy \"disk-revolve\"", NULL);
    expect_load_error("[run]\nstrategy = \"h-revolve\"\n[tier.disk]\nenabled = false\n", EBB_ERR_CONFIG,
                      "t.toml:4: key 'tier.disk.enabled': strategy \"h-revolve\" keeps states on disk",
                      NULL);
}
