/* run.audit: "off", "replay" or "hash" into cfg.audit (an ebb_audit), with
 * the messages of the other names keys, written back and read again. */
#include "config/helpers.h"

Test(audit, default_is_off)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect_eq(cfg.audit, EBB_AUDIT_OFF);
    cr_expect_str_eq(ebb_config_key_name(EBB_KEY_RUN_AUDIT), "run.audit");
    cr_expect_eq(EBB_KEY_RUN_AUDIT, EBB_KEY_RUN_STRATEGY + 1);
    ebb_config_dispose(&cfg);
}

Test(audit, every_name_loads)
{
    const char *names[] = {"off", "replay", "hash"};
    const int values[] = {EBB_AUDIT_OFF, EBB_AUDIT_REPLAY, EBB_AUDIT_HASH};
    for (int i = 0; i < 3; i++) {
        char text[128];
        snprintf(text, sizeof text, "[run]\nstrategy = \"revolve\"\naudit = \"%s\"\n", names[i]);
        ebb_config cfg;
        load_ok(text, &cfg);
        cr_expect_eq(cfg.audit, values[i], "%s", names[i]);
        cr_expect_eq(cfg.line[EBB_KEY_RUN_AUDIT], 3);
        cr_expect_eq(cfg.strategy, EBB_CONFIG_STRATEGY_REVOLVE);
        ebb_config_dispose(&cfg);
    }
    ebb_config cfg;
    load_ok("run.audit = \"hash\"\n", &cfg);
    cr_expect_eq(cfg.audit, EBB_AUDIT_HASH);
    cr_expect_eq(cfg.line[EBB_KEY_RUN_AUDIT], 1);
    ebb_config_dispose(&cfg);
}

Test(audit, keys_not_in_the_file_keep_their_values)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.audit = EBB_AUDIT_REPLAY; /* set by the program */
    cr_assert_eq(ebb_config_load_string("[run]\nstrategy = \"online\"\n", "a.toml", &cfg), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_eq(cfg.audit, EBB_AUDIT_REPLAY);
    cr_expect_eq(cfg.line[EBB_KEY_RUN_AUDIT], 0);
    ebb_config_dispose(&cfg);
}

/* As a bad run.strategy: file, line, key, the names expected, the closest. */
Test(audit, bad_value)
{
    expect_load_error("[run]\naudit = \"hsah\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'run.audit': expected one of \"off\", \"replay\" or \"hash\", got "
                      "the string \"hsah\" (did you mean \"hash\"?)", NULL);
    expect_load_error("[run]\n\naudit = \"on\"\n", EBB_ERR_CONFIG,
                      "t.toml:3: key 'run.audit': expected one of \"off\", \"replay\" or \"hash\", got "
                      "the string \"on\"", NULL);
    expect_load_error("[run]\naudit = true\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'run.audit': expected one of \"off\", \"replay\" or \"hash\", got "
                      "the boolean true", NULL);
    expect_load_error("[run]\naudit = 2\n", EBB_ERR_CONFIG, "t.toml:2: key 'run.audit'",
                      "got the integer 2", NULL);
}

Test(audit, typo_in_the_key)
{
    expect_load_error("[run]\naudti = \"hash\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: unknown key 'run.audti'; did you mean 'run.audit'? (the keys of [run] "
                      "are strategy, audit, error_samples)", NULL);
    expect_load_error("audit = \"hash\"\n", EBB_ERR_CONFIG,
                      "t.toml:1: unknown key 'audit'; did you mean 'run.audit'?", NULL);
}

/* A program's value out of range is refused by the check, naming the key. */
Test(audit, set_out_of_range_by_the_program)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.audit = 3;
    cr_assert_eq(ebb_config_check(&cfg, 0), EBB_ERR_CONFIG);
    cr_expect_str_eq(ebb_last_error(),
                     "key 'run.audit' (default or set by the program): 3 is not an ebb_audit");
    cfg.audit = -1;
    cr_assert_eq(ebb_config_check(&cfg, 0), EBB_ERR_CONFIG);
    cr_expect(strstr(ebb_last_error(), "-1 is not an ebb_audit") != NULL, "%s", ebb_last_error());
    cfg.audit = EBB_AUDIT_HASH;
    cr_expect_eq(ebb_config_check(&cfg, 0), EBB_OK, "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}

Test(audit, round_trip)
{
    for (int mode = EBB_AUDIT_OFF; mode <= EBB_AUDIT_HASH; mode++) {
        ebb_config a, b;
        cr_assert_eq(ebb_config_init_default(&a), EBB_OK);
        a.audit = mode;
        a.strategy = EBB_CONFIG_STRATEGY_REVOLVE;
        size_t len = 0;
        cr_assert_eq(ebb_config_format(&a, NULL, 0, &len), EBB_OK);
        char *text = malloc(len + 1);
        cr_assert_eq(ebb_config_format(&a, text, len + 1, NULL), EBB_OK);
        const char *want[] = {
            "[run]\nstrategy = \"revolve\"\naudit = \"off\"\nerror_samples = 0\n\n[tier.gpu]\n",
            "[run]\nstrategy = \"revolve\"\naudit = \"replay\"\nerror_samples = 0\n\n[tier.gpu]\n",
            "[run]\nstrategy = \"revolve\"\naudit = \"hash\"\nerror_samples = 0\n\n[tier.gpu]\n"};
        cr_expect(strstr(text, want[mode]) != NULL, "%s", text);
        cr_assert_eq(ebb_config_init_default(&b), EBB_OK);
        b.audit = (mode + 1) % 3; /* so the value must come from the text */
        cr_assert_eq(ebb_config_load_string(text, "shown.toml", &b), EBB_OK, "%s\n%s",
                     ebb_last_error(), text);
        cr_expect_eq(b.audit, mode);
        cr_expect_eq(b.line[EBB_KEY_RUN_AUDIT], 4); /* after the comment, [run], strategy */
        free(text);
        ebb_config_dispose(&a);
        ebb_config_dispose(&b);
    }
}
