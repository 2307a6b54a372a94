/* `ebb run` with wrong arguments: exit 2, nothing on stdout, one line on
 * stderr that starts with "ebb run: " and names the option and the value. */
#include "support/cli_run.h"

static void check_bad(const char *option, const char *value, const char *must_mention)
{
    cli_result r = value ? cli_run("run", option, value, "--steps", "4", "--state-size", "4KiB", NULL)
                         : cli_run("run", option, "--steps", "4", "--state-size", "4KiB", NULL);
    cr_assert_eq(r.status, 2, "%s %s: bad usage is exit 2, got %d (%s)", option,
                 value ? value : "", r.status, r.err);
    cr_assert_eq(r.out[0], '\0', "stdout not empty: %s", r.out);
    cr_assert_eq(count_lines(r.err), 1, "not one line: %s", r.err);
    cr_assert(strncmp(r.err, "ebb run: ", 9) == 0, "%s", r.err);
    cr_assert(strstr(r.err, must_mention), "'%s' not in: %s", must_mention, r.err);
    if (value)
        cr_assert(strstr(r.err, value), "the value '%s' not quoted: %s", value, r.err);
    cli_free(&r);
}

Test(run_cli, unknown_option) { check_bad("--frobnicate", NULL, "--frobnicate"); }
Test(run_cli, negative_steps) { check_bad("--steps", "-1", "--steps"); }
Test(run_cli, zero_steps) { check_bad("--steps", "0", "--steps"); }
Test(run_cli, bad_size_unit) { check_bad("--state-size", "12XB", "--state-size"); }
Test(run_cli, zero_size) { check_bad("--state-size", "0", "--state-size"); }
Test(run_cli, unknown_strategy) { check_bad("--strategy", "nope", "--strategy"); }
Test(run_cli, zero_slots) { check_bad("--slots", "0", "--slots"); }
Test(run_cli, negative_forward_ms) { check_bad("--forward-ms", "-3", "--forward-ms"); }
Test(run_cli, bad_io_ratio) { check_bad("--io-ratio", "fast", "--io-ratio"); }

Test(run_cli, missing_value)
{
    cli_result r = cli_run("run", "--steps", NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert_eq(count_lines(r.err), 1, "%s", r.err);
    cr_assert(strstr(r.err, "--steps"), "%s", r.err);
    cli_free(&r);
}

Test(run_cli, stray_argument)
{
    cli_result r = cli_run("run", "revolve", NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert_eq(count_lines(r.err), 1, "%s", r.err);
    cr_assert(strstr(r.err, "'revolve'"), "%s", r.err);
    cli_free(&r);
}
