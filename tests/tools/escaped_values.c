/* A value from the command line that holds control bytes (a terminal escape
 * sequence) is echoed in an error as \xNN, never raw, as configuration
 * errors and `ebb validate` (tests/tools/validate_bounds.c) do. */
#include "support/cli_run.h"

Test(escaped_values, option_values_and_names)
{
    cli_result r = cli_run("plan", "--steps", "1\033[31m", "--slots", "2", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strchr(r.err, '\033') == NULL, "%s", r.err);
    cr_expect(strstr(r.err, "got '1\\x1B[31m'") != NULL, "%s", r.err);
    cli_free(&r);
    r = cli_run("run", "--st\033[2Jx", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strchr(r.err, '\033') == NULL && strstr(r.err, "'--st\\x1B[2Jx'"), "%s", r.err);
    cli_free(&r);
    r = cli_run("bench", "--size", "1\rMiB", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strchr(r.err, '\r') == NULL && strstr(r.err, "1\\x0DMiB"), "%s", r.err);
    cli_free(&r);
}
