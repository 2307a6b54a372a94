/* The option parser (tools/options.c) refuses a bad value of every kind with
 * one line that names the command, the option, what it must be and the
 * value given; the option's own rule runs after its kind's. */
#include "support/options_harness.h"

Test(options_bad_values, integers_name_their_range)
{
    toy_refused("ebb toy: --count must be an integer in [1, 100], got '0'\n", "--count", "0");
    toy_refused("ebb toy: --count must be an integer in [1, 100], got '101'\n", "--count", "101");
    toy_refused("ebb toy: --count must be an integer in [1, 100], got '5x'\n", "--count", "5x");
    toy_refused("ebb toy: --count must be an integer in [1, 100], got ''\n", "--count", "");
    toy_refused("ebb toy: --count must be an integer in [1, 100], got '99999999999999999999'\n",
                "--count", "99999999999999999999");
    toy_refused("ebb toy: --width must be an integer in [-5, 5], got '-6'\n", "--width", "-6");
    toy_result r = toy_parse("--width", "-5", "--count", "100");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_assert_eq(r.args.width, -5);
    cr_assert_eq(r.args.count, 100);
}

Test(options_bad_values, numbers_name_their_least)
{
    toy_refused("ebb toy: --scale must be a number >= 0.5, got '0.25'\n", "--scale", "0.25");
    toy_refused("ebb toy: --scale must be a number >= 0.5, got 'nan'\n", "--scale", "nan");
    toy_refused("ebb toy: --scale must be a number >= 0.5, got 'inf'\n", "--scale", "inf");
    toy_refused("ebb toy: --scale must be a number >= 0.5, got '1,5'\n", "--scale", "1,5");
    toy_result r = toy_parse("--scale", "0.5");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_assert_eq(r.args.scale, 0.5);
}

Test(options_bad_values, sizes_say_why_or_their_least)
{
    toy_refused("ebb toy: --bytes must be at least 4096 bytes, got '4095'\n", "--bytes", "4095");
    toy_result r = toy_parse("--bytes", "12XB");
    cr_assert_eq(r.rc, CLI_USAGE);
    cr_assert(strncmp(r.err, "ebb toy: --bytes: '12XB' is not a size", 38) == 0, "%s", r.err);
    r = toy_parse("--bytes", "4 KiB");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_assert_eq(r.args.bytes, 4096);
}

Test(options_bad_values, rates_say_why)
{
    toy_result r = toy_parse("--pace", "100 MB");
    cr_assert_eq(r.rc, CLI_USAGE);
    cr_assert(strncmp(r.err, "ebb toy: --pace: '100 MB' is not a rate", 39) == 0, "%s", r.err);
    r = toy_parse("--pace", "none");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_assert_eq(r.args.pace, 0);
    r = toy_parse("--pace", "2 GB/s");
    cr_assert_eq(r.args.pace, UINT64_C(2000000000));
}

Test(options_bad_values, names_list_every_choice)
{
    toy_refused("ebb toy: --color must be red, green or blue, got 'pink'\n", "--color", "pink");
    toy_result r = toy_parse("--color", "blue");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_assert_eq(r.args.color, 3);
}

Test(options_bad_values, strategies_take_all_or_a_name)
{
    toy_result r = toy_parse("--strategy", "fastest");
    cr_assert_eq(r.rc, CLI_USAGE);
    cr_assert(strncmp(r.err, "ebb toy: --strategy: ", 21) == 0, "%s", r.err);
    cr_assert(strstr(r.err, "\"fastest\"") && strstr(r.err, " (or \"all\")\n"), "%s", r.err);
    r = toy_parse("--strategy", "all");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_assert_eq(r.args.pick.all, 1);
    r = toy_parse("--strategy", "all", "--strategy", "revolve");
    cr_assert_eq(r.args.pick.all, 0, "the last one given counts");
    cr_assert_eq(r.args.pick.strategy, EBB_CONFIG_STRATEGY_REVOLVE);
}

Test(options_bad_values, own_rules_run_and_refuse)
{
    toy_refused("ebb toy: --odd must be odd, got '4'\n", "--odd", "4");
    toy_result r = toy_parse("--odd", "5");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_assert_eq(r.args.odd, 5);
}
