/* TOML syntax errors name the file, the line and the column. */
#include "config/helpers.h"

Test(syntax_errors, unclosed_table_header)
{
    expect_load_error("[run]\nstrategy = \"auto\"\n[tier.host\nbudget = 5\n", EBB_ERR_CONFIG,
                      "t.toml:3:", "TOML syntax error", "expected ']'", NULL);
}

Test(syntax_errors, unterminated_string)
{
    expect_load_error("[tier.disk]\npath = \"/tmp\n", EBB_ERR_CONFIG, "t.toml:2:", "TOML syntax error",
                      NULL);
}

Test(syntax_errors, duplicate_key)
{
    expect_load_error("[tier.disk]\nqueue_depth = 4\nqueue_depth = 8\n", EBB_ERR_CONFIG, "t.toml:3:",
                      "TOML syntax error", "queue_depth", NULL);
}

Test(syntax_errors, value_missing)
{
    expect_load_error("\n\n[tier.host]\nbudget =\n", EBB_ERR_CONFIG, "t.toml:4:", "TOML syntax error",
                      NULL);
}

Test(syntax_errors, column_is_given)
{
    expect_load_error("[run]\nstrategy = auto\n", EBB_ERR_CONFIG, "t.toml:2:12: TOML syntax error",
                      NULL);
}

Test(syntax_errors, invalid_utf8)
{
    expect_load_error("[run]\nstrategy = \"\xff\"\n", EBB_ERR_CONFIG, "t.toml:2:", "TOML syntax error",
                      NULL);
}

Test(syntax_errors, nothing_is_changed_on_failure)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_assert_eq(ebb_config_load_string("run.strategy = \"revolve\"\n[tier.host\n", "t.toml", &cfg),
                 EBB_ERR_CONFIG);
    cr_expect_eq(cfg.strategy, EBB_CONFIG_STRATEGY_AUTO);
    cr_expect_null(cfg.source);
    ebb_config_dispose(&cfg);
}
