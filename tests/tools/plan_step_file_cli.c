/* `ebb plan --step-file FILE`: the planner over each step's own times (in
 * milliseconds) and its input state's size, read from a chain file:
 * revolve's predicted time is the chain program's cost within the host
 * slots of the largest state, states of one size keep every strategy, and
 * a file or options that cannot be taken say why. */
#include <math.h>

#include "support/chain_support.h"
#include "support/cli_run.h"

static void step_file(char *path, const char *text)
{
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cli_write_file(path, text);
}

Test(plan_step_file_cli, revolve_is_the_chain_programs_cost)
{
    char path[] = "/tmp/ebb_steps_XXXXXX";
    step_file(path, "# a stem, six blocks in two sizes, a head: ms, ms, bytes\n"
                    "1 2 48KiB\n"
                    "3 x 2 5 16KiB\n"
                    "3 x 5 9 64KiB\n"
                    "1 1 4KiB\n");
    cli_result r = cli_run("plan", "--step-file", path, "--slots", "2", "--disk-slots", "0",
                           "--strategy", "revolve", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    test_chain c = {.n = 8, .fwd = {1, 2, 2, 2, 5, 5, 5, 1}, .rev = {2, 5, 5, 5, 9, 9, 9, 1},
                    .bytes = {48 << 10, 16 << 10, 16 << 10, 16 << 10, 64 << 10, 64 << 10,
                              64 << 10, 4 << 10},
                    .budget = 2 * (64 << 10)};
    chain_replay want = chain_replayed(&c);
    double got_ms = 1e3 * json_figure(r.out, "predicted_s");
    cr_assert(fabs(got_ms - want.cost) <= 1e-9 * want.cost, "predicted %.9f ms, the chain's %g",
              got_ms, want.cost);
    cr_assert_eq(json_figure(r.out, "steps"), 8);
    cr_assert_eq(json_figure(r.out, "state_size"), 64 << 10, "the largest state: %s", r.out);
    cr_assert(strstr(r.out, "\"state_sizes\": true"), "%s", r.out);
    /* n (F + B) is the steps' own total: 23 + 45 ms */
    cr_assert(fabs(json_figure(r.out, "ideal_s") - 0.068) < 1e-12, "%s", r.out);
    cli_free(&r);
    /* the table names the file; a strategy of one size does not fit */
    r = cli_run("plan", "--step-file", path, "--slots", "2", "--disk-slots", "0", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "states of different sizes") && strstr(r.out, path), "%s", r.out);
    cr_assert(strstr(r.out, "online       does not fit") &&
                  strstr(r.out, "keeps states of one size"),
              "%s", r.out);
    cli_free(&r);
    remove(path);
}

/* States of one size: every strategy over the steps' times. */
Test(plan_step_file_cli, states_of_one_size_keep_every_strategy)
{
    char path[] = "/tmp/ebb_steps_XXXXXX";
    step_file(path, "10 x 1 2 1MiB\n10 x 4 8 1MiB\n");
    cli_result r = cli_run("plan", "--step-file", path, "--slots", "4", "--disk-slots", "0",
                           "--strategy", "online", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\"fits\": true") && strstr(r.out, "\"state_sizes\": false"), "%s",
              r.out);
    cr_assert(fabs(json_figure(r.out, "forward_s") - 2.5e-3) < 1e-12, "the mean: %s", r.out);
    cli_free(&r);
    remove(path);
}

Test(plan_step_file_cli, what_cannot_be_taken_says_why)
{
    char path[] = "/tmp/ebb_steps_XXXXXX";
    step_file(path, "1 2 4KiB\n3 4 8KiB\n");
    static const struct {
        const char *args[4];
        const char *says;
    } cases[] = {
        {{"--steps", "3"}, "--steps 3, but"},
        {{"--state-size", "4KiB"}, "below the largest state"},
        {{"--forward-ms", "2"}, "drop --forward-ms"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cli_result r = cli_run("plan", "--step-file", path, "--slots", "2", "--disk-slots", "0",
                               cases[i].args[0], cases[i].args[1], NULL);
        cr_assert_neq(r.status, 0, "%s accepted", cases[i].args[0]);
        cr_assert(strstr(r.err, cases[i].says), "%s: %s", cases[i].args[0], r.err);
        cli_free(&r);
    }
    cli_write_file(path, "1 2 4KiB 1 0\n");
    cli_result r = cli_run("plan", "--step-file", path, "--slots", "2", "--disk-slots", "0",
                           NULL);
    cr_assert_neq(r.status, 0);
    cr_assert(strstr(r.err, "takes no tapes"), "%s", r.err);
    cli_free(&r);
    cli_write_file(path, "1 2 4KiB\n1 -2 4KiB\n");
    r = cli_run("plan", "--step-file", path, "--slots", "2", "--disk-slots", "0", NULL);
    cr_assert_neq(r.status, 0);
    cr_assert(strstr(r.err, "line 2") && strstr(r.err, "'-2'"), "%s", r.err);
    cli_free(&r);
    remove(path);
    r = cli_run("plan", "--step-file", path, "--slots", "2", NULL);
    cr_assert_neq(r.status, 0);
    cr_assert(strstr(r.err, "cannot open") && strstr(r.err, path), "%s", r.err);
    cli_free(&r);
}
