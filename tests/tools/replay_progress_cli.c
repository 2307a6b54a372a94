/* `ebb plan` on many steps and `ebb demo`'s online planning ran for
 * seconds (hours on 2^31 steps) saying nothing: on a terminal (a pty here)
 * a progress line, rewritten in place and erased at the end, says which
 * step and (in the reverse sweep) about how long is left; to a pipe there is
 * none, and never a carriage return. */
#include "support/cli_run.h"

/* about 2 s in a release build (60 M reverse steps at ~30 M/s) */
static const char *const plan_args[] = {"plan", "--steps", "60000000", "--slots", "10",
                                        "--strategy", "revolve", NULL};

Test(replay_progress_cli, plan_on_a_terminal, .timeout = 120)
{
    cli_result r = cli_runv_pty(plan_args);
    cr_assert_eq(r.status, 0, "%s", r.out);
    cr_expect(strstr(r.out, "\rebb plan: revolve: reverse step "), "no progress line: %s", r.out);
    cr_expect(strstr(r.out, " of 60000000, ") && strstr(r.out, " s left"), "%.400s", r.out);
    cr_expect(strstr(r.out, "valid           yes"), "%.400s", r.out);
    cli_free(&r);
}

Test(replay_progress_cli, plan_nothing_on_a_pipe, .timeout = 120)
{
    cli_result r = cli_runv(plan_args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_null(strchr(r.err, '\r'), "a carriage return on a pipe: %s", r.err);
    cr_expect_eq(r.err[0], '\0', "progress on a pipe: %s", r.err);
    cli_free(&r);
}

/* online over a million steps with 256 host slots: a few seconds */
Test(replay_progress_cli, demo_online_on_a_terminal, .timeout = 180)
{
    char path[] = "/tmp/ebb-demo-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    const char *text = "[tier.host]\nbudget = \"4 GiB\"\n[tier.disk]\nenabled = false\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    const char *const args[] = {"demo", "--config", path, "--steps", "1000000", "--state-size",
                                "16MiB", NULL};
    cli_result r = cli_runv_pty(args);
    unlink(path);
    cr_assert_eq(r.status, 0, "%s", r.out);
    cr_expect(strstr(r.out, "\rebb demo: online: "), "no progress line: %s", r.out);
    cli_free(&r);
}
