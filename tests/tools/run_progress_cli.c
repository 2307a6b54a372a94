/* `ebb run`'s progress line: on a terminal (a pty here) it is rewritten in
 * place with carriage returns; to a file or a pipe a short run writes no
 * progress at all, and never a carriage return (a log stays readable). */
#include "support/cli_run.h"

static const char *const args[] = {"run", "--steps", "100", "--state-size", "4KiB",
                                   "--forward-ms", "5", "--strategy", "revolve", NULL};

Test(run_progress_cli, nothing_on_a_pipe)
{
    cli_result r = cli_runv(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_null(strchr(r.err, '\r'), "a carriage return on a pipe: %s", r.err);
    cr_assert_null(strstr(r.err, " of 100"), "a progress line from a short run: %s", r.err);
    cli_free(&r);
}

Test(run_progress_cli, rewritten_on_a_terminal, .timeout = 60)
{
    cli_result r = cli_runv_pty(args);
    cr_assert_eq(r.status, 0, "%s", r.out);
    cr_assert(strstr(r.out, "\rebb run: revolve"), "no progress line on a terminal: %s", r.out);
    cli_free(&r);
}
