/* `ebb plan`: JSON output, action listing, and one-line errors. */
#include "support/cli_run.h"

static cli_result r;

/* Runs `ebb` with a space-separated line, keeping the result in r. */
static void run_cli(const char *line, cli_result *out)
{
    static int have;
    if (have)
        cli_free(out);
    *out = cli_run_line(line);
    have = 1;
}

Test(plan_cli, json_has_the_documented_keys)
{
    run_cli("plan --steps 1000 --slots 10 --strategy revolve --json", &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(count_lines(r.out), 1, "one JSON object on one line: %s", r.out);
    const char *keys[] = {"\"strategy\": \"revolve\"", "\"steps\": 1000", "\"slots\": 10",
                          "\"forward_steps\": 3637", "\"reverse_steps\": 1000", "\"actions\": ",
                          "\"peak_slots\": {\"host\": 10}", "\"valid\": true", "\"seconds\": "};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        cr_assert(strstr(r.out, keys[i]) != NULL, "missing %s in %s", keys[i], r.out);
}

Test(plan_cli, every_strategy_plans)
{
    const char *args[] = {
        "plan --steps 50 --slots 49 --strategy store-all --json",
        "plan --steps 50 --slots 20 --strategy periodic --json",
        "plan --steps 50 --slots 20 --strategy periodic --period 5 --json",
        "plan --steps 50 --slots 4 --strategy online --json",
        "plan --steps 50 --slots 4 --disk-slots 3 --strategy multistage --json",
        "plan --steps 50 --slots 4 --strategy disk-revolve --io-ratio 12 --json",
        "plan --steps 1 --slots 1 --json",
    };
    for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
        run_cli(args[i], &r);
        cr_assert_eq(r.status, 0, "%s: %s", args[i], r.err);
        cr_assert(strstr(r.out, "\"valid\": true") != NULL, "%s: %s", args[i], r.out);
    }
    run_cli("plan --steps 50 --slots 4 --disk-slots 3 --strategy multistage --json", &r);
    cr_assert(strstr(r.out, "\"peak_slots\": {\"host\": 4, \"disk\": 3}") != NULL, "%s", r.out);
}

Test(plan_cli, actions_prints_the_stream)
{
    run_cli("plan --steps 3 --slots 1 --actions", &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *expect = "store 0 host[0]\nadvance 0 -> 3\nturn 3\nreverse 2\nrestore 0 host[0]\n"
                         "advance 0 -> 1\nreverse 1\nrestore 0 host[0]\nreverse 0\nfree 0 host[0]\nend\n";
    cr_assert(strncmp(r.out, expect, strlen(expect)) == 0, "got:\n%s", r.out);
}

static void expect_error(const char *args, const char *text)
{
    run_cli(args, &r);
    cr_assert_neq(r.status, 0, "'%s' succeeded", args);
    cr_assert_eq(count_lines(r.err), 1, "'%s': want one line, got: %s", args, r.err);
    cr_assert(strstr(r.err, text) != NULL, "'%s': '%s' lacks '%s'", args, r.err, text);
    cr_assert_str_eq(r.out, "");
}

Test(plan_cli, bad_arguments_say_what_is_wrong)
{
    expect_error("plan --steps 0 --slots 3", "--steps must be an integer in [1,");
    expect_error("plan --steps -5 --slots 3", "--steps must be an integer");
    expect_error("plan --steps 10 --slots 0", "--slots must be an integer in [1,");
    expect_error("plan --steps ten --slots 3", "got 'ten'");
    expect_error("plan --steps 10", "--steps N and --slots C are required");
    expect_error("plan --steps 10 --slots 3 --strategy best", "unknown strategy 'best'");
    expect_error("plan --steps 10 --slots 3 --strategy store-all", "store-all needs 9 slots for 10 steps, got 3");
    expect_error("plan --steps 10000 --slots 3 --strategy periodic", "periodic needs at least");
    expect_error("plan --steps 10 --slots 3 --strategy disk-revolve", "needs the io ratio");
    expect_error("plan --steps 10 --slots 3 --strategy async",
                 "--strategy async decides while it runs, from the step and transfer times: give "
                 "them to predict it (--state-size BYTES --forward-ms F --reverse-ms B)");
    expect_error("plan --steps 10 --slots 3 --strategy auto", "or run it (ebb run --strategy auto)");
    expect_error("plan --steps 10 --slots 3 --io-ratio -1", "--io-ratio must be a number >= 0");
    expect_error("plan --steps 10 --slots 3 --bogus", "unknown or incomplete option '--bogus'");
    expect_error("plan --steps 10 --slots 3 extra", "unexpected argument 'extra'");
    expect_error("frobnicate", "unknown command 'frobnicate'");
}

Test(plan_cli, help_and_version)
{
    run_cli("plan --help", &r);
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "--strategy S") != NULL);
    run_cli("--version", &r);
    cr_assert_eq(r.status, 0);
    cr_assert(strncmp(r.out, "ebb ", 4) == 0);
}

Test(plan_cli, demo_runs)
{
    run_cli("demo", &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *rows[] = {"periodic", "revolve", "online", "multistage", "disk-revolve"};
    for (size_t i = 0; i < 5; i++)
        cr_assert(strstr(r.out, rows[i]) != NULL, "demo lacks %s", rows[i]);
    cr_assert(strstr(r.out, "failed") == NULL, "%s", r.out);
}
