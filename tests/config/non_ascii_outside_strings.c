/* Non-ASCII text outside a string or a comment (a bare key typed with an
 * accent, a stray character between tokens) is refused with the file, line
 * and column before it reaches toml++, whose whitespace test reaches an
 * unreachable point for many such characters (U+00E9, U+3001, U+FEFD:
 * undefined behaviour, found by fuzz/fuzz_config; the fuzz build's UBSan
 * reports it), also where a quote stands but no string can start. Non-ASCII
 * text inside strings and comments still loads. */
#include "config/helpers.h"

Test(non_ascii_outside_strings, refused_with_line_and_column)
{
    expect_load_error("[run]\nstrat\xc3\xa9gy = \"revolve\"\n", EBB_ERR_CONFIG, "t.toml:2:6:",
                      "the byte 0xC3 (non-ASCII text) outside a string or a comment", NULL);
    expect_load_error("run.str\xef\xbb\xbdgy = \"online\"\n", EBB_ERR_CONFIG, "t.toml:1:8:",
                      "0xEF", NULL);
    expect_load_error("[run]\nstrategy = \"revolve\" \xe3\x80\x81\n", EBB_ERR_CONFIG,
                      "t.toml:2:22:", "TOML allows it only in quoted values and after '#'", NULL);
    /* a quote where no string can start (after a value) opens none: toml++
     * reads on through what follows as part of the value (fuzz_config's
     * second finding) */
    expect_load_error("\nq= 0'\xef\xba\xbfz\n", EBB_ERR_CONFIG, "t.toml:2:6:", "0xEF", NULL);
    expect_load_error("a = \"x\"'\xc3\xa9'\n", EBB_ERR_CONFIG, "t.toml:1:9:", "0xC3", NULL);
}

/* toml++ tests each character of a quoted key for whitespace, and in a
 * multi-line basic string the one after a backslash (and after a line-ending
 * backslash the first that is not blank): fuzz_config's third finding. */
Test(non_ascii_outside_strings, quoted_keys_and_backslashes)
{
    expect_load_error("\"caf\xc3\xa9\" = 1\n", EBB_ERR_CONFIG, "t.toml:1:5:", "in a quoted key",
                      NULL);
    expect_load_error("[run]\nstrategy.'\xe3\x80\x81' = 1\n", EBB_ERR_CONFIG, "t.toml:2:11:",
                      "in a quoted key", NULL);
    expect_load_error("[ \"\xef\xbb\xbd\" ]\n", EBB_ERR_CONFIG, "t.toml:1:4:", "in a quoted key",
                      NULL);
    expect_load_error("a = { b = 1, \"\xc3\xa9\" = 2 }\n", EBB_ERR_CONFIG, "t.toml:1:15:",
                      "in a quoted key", NULL);
    expect_load_error("a = \"\"\"x\\\xc3\xa9\"\"\"\n", EBB_ERR_CONFIG, "t.toml:1:10:",
                      "after a backslash in a multi-line string", NULL);
    expect_load_error("p = [\"a\", \"\"\"_b\\\\\\\nh\\\t\t\xef\xbb\xbd\t10\n", EBB_ERR_CONFIG,
                      "t.toml:2:5:", "after a backslash in a multi-line string", NULL);
    /* a value of one token (a number, a date, a word) up to a blank, ',',
     * ']', '}', '#' or a line end: no quote in it opens a string
     * (fuzz_config's fourth finding) */
    expect_load_error("ed =3-------['''\xef\xbb\xaf'\n", EBB_ERR_CONFIG, "t.toml:1:17:", "in a value",
                      NULL);
    expect_load_error("a = [1, 2x\"\xc3\xa9\"]\n", EBB_ERR_CONFIG, "t.toml:1:12:", "in a value",
                      NULL);
    /* values keep it: a string in an array on its own line, after ',' */
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_assert_neq(ebb_config_load_string("[tier.disk]\npath = [\n  \"/nonexistent/\xc3\xa9\",\n"
                                         "  \"/nonexistent/\xe3\x80\x81\" ]\n",
                                         "t.toml", &cfg),
                  EBB_OK);
    cr_assert_null(strstr(ebb_last_error(), "non-ASCII"), "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
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
