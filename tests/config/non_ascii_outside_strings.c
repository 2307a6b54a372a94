/* Non-ASCII text outside a string or a comment (a bare key typed with an
 * accent, a stray character between tokens) is refused with the file, line
 * and column before it reaches toml++, whose whitespace test reaches an
 * unreachable point for many such characters (U+00E9, U+3001, U+FEFD:
 * undefined behaviour, found by fuzz/fuzz_config; the fuzz build's UBSan
 * reports it). Non-ASCII text inside strings and comments still loads. */
#include "config/helpers.h"

Test(non_ascii_outside_strings, refused_with_line_and_column)
{
    expect_load_error("[run]\nstrat\xc3\xa9gy = \"revolve\"\n", EBB_ERR_CONFIG, "t.toml:2:6:",
                      "the byte 0xC3 (non-ASCII text) outside a string or a comment", NULL);
    expect_load_error("run.str\xef\xbb\xbdgy = \"online\"\n", EBB_ERR_CONFIG, "t.toml:1:8:",
                      "0xEF", NULL);
    expect_load_error("[run]\nstrategy = \"revolve\" \xe3\x80\x81\n", EBB_ERR_CONFIG,
                      "t.toml:2:22:", "TOML allows it only in quoted strings and after '#'", NULL);
}

Test(non_ascii_outside_strings, inside_strings_and_comments_it_loads)
{
    ebb_config cfg;
    load_ok("# caf\xc3\xa9 \xef\xbb\xbd \xe3\x80\x81\n[run] # r\xc3\xa9sum\xc3\xa9\n"
            "strategy = 'revolve' # \xef\xbb\xbd\n",
            &cfg);
    cr_assert_eq(cfg.strategy, EBB_CONFIG_STRATEGY_REVOLVE);
    ebb_config_dispose(&cfg);
    /* in a string: the value's own check speaks, not the byte's */
    expect_load_error("[run]\nstrategy = \"r\xc3\xa9volve\"\n", EBB_ERR_CONFIG, "strategy", NULL);
    ebb_config c2;
    cr_assert_eq(ebb_config_init_default(&c2), EBB_OK);
    cr_assert_neq(ebb_config_load_string("[run]\nstrategy = \"r\xc3\xa9volve\"\n", "t.toml", &c2),
                  EBB_OK);
    cr_assert_null(strstr(ebb_last_error(), "non-ASCII"), "%s", ebb_last_error());
    ebb_config_dispose(&c2);
}
