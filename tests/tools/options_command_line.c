/* The option parser (tools/options.c) reads a command line as getopt_long
 * does (--opt VALUE, --opt=VALUE, an unambiguous prefix, operands anywhere)
 * and refuses what is not an option of the table, a missing value and extra
 * operands, naming them; --help prints the command's help. */
#include "support/options_harness.h"

Test(options_command_line, unknown_option_is_named)
{
    toy_refused("ebb toy: unknown or incomplete option '--bogus' (see 'ebb toy --help')\n",
                "--count", "3", "--bogus");
    toy_refused("ebb toy: unknown or incomplete option '-c' (see 'ebb toy --help')\n", "-c", "3");
}

Test(options_command_line, missing_value_is_named)
{
    toy_refused("ebb toy: unknown or incomplete option '--count' (see 'ebb toy --help')\n",
                "--count");
}

Test(options_command_line, ambiguous_prefix_is_refused)
{
    /* --co: count or color */
    toy_refused("ebb toy: unknown or incomplete option '--co' (see 'ebb toy --help')\n", "--co",
                "3");
}

Test(options_command_line, extra_operand_is_named)
{
    toy_refused("ebb toy: unexpected argument 'b': give at most one FILE (see 'ebb toy --help')\n",
                "a", "--count", "3", "b");
    toy_result r = toy_parse("--count", "3", "file");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_assert_str_eq(toy_parse_v((const char *const[]){"file", NULL}).err, "");
}

Test(options_command_line, forms_of_a_value)
{
    toy_result r = toy_parse("FILE", "--count=7", "--wid", "2", "--name", "--json");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_assert_eq(r.args.count, 7);
    cr_assert_eq(r.args.width, 2);
    cr_assert_str_eq(r.args.name, "--json", "a value may look like an option");
}

Test(options_command_line, operands_come_after_the_options)
{
    const char *words[] = {"toy", "FILE", "--count", "4", NULL};
    char *argv[5];
    memcpy(argv, words, sizeof argv);
    toy_args a;
    memset(&a, 0, sizeof a);
    cli_parsed parsed;
    cr_assert_eq(cli_parse(&toy_command, 4, argv, &a, &parsed), CLI_OK);
    cr_assert_eq(parsed.first_operand, 3);
    cr_assert_str_eq(argv[parsed.first_operand], "FILE");
}

Test(options_command_line, flags_and_given)
{
    toy_result r = toy_parse("--verbose", "--loud", "--count", "2");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_assert_eq(r.args.verbose, 1);
    cr_assert_eq(r.args.level, 7, "a flag stores its value");
    cr_assert(cli_given(&toy_command, &r.parsed, "count"));
    cr_assert(cli_given(&toy_command, &r.parsed, "loud"));
    cr_assert(!cli_given(&toy_command, &r.parsed, "width"));
    cr_assert(!cli_given(&toy_command, &r.parsed, "no-such-option"));
    toy_result bad = toy_parse("--verbose=1");
    cr_assert_eq(bad.rc, CLI_USAGE, "a flag takes no value");
}

Test(options_command_line, help_prints_the_help)
{
    toy_result r = toy_parse("--count", "3", "--help", "--bogus");
    cr_assert_eq(r.rc, CLI_HELP);
    cr_assert_str_eq(r.out, "usage: ebb toy [options]\n");
    cr_assert_str_eq(r.err, "");
    r = toy_parse("--count", "0", "--help");
    cr_assert_eq(r.rc, CLI_USAGE, "an error before --help is reported");
}

Test(options_command_line, first_error_wins_and_nothing_else_is_read)
{
    toy_result r = toy_parse("--width", "9", "--count", "500");
    cr_assert_eq(r.rc, CLI_USAGE);
    cr_assert_str_eq(r.err, "ebb toy: --width must be an integer in [-5, 5], got '9'\n");
    cr_assert_eq(r.args.width, 0, "a refused value is not stored");
    cr_assert_eq(r.args.count, 0);
}
