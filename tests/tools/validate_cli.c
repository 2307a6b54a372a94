/* `ebb validate`: what `ebb plan --actions` prints is valid with the same
 * counts; hand-made bad streams exit 1 naming the line and the rule; bad
 * options exit 2 with one line. */
#include "support/cli_run.h"

static cli_result r;
static int have_result;

static void keep(cli_result res)
{
    if (have_result)
        cli_free(&r);
    r = res;
    have_result = 1;
}

/* Writes text to a new temporary file; returns its path (static buffer per call site). */
static void write_temp(const char *text, char *path, size_t len)
{
    snprintf(path, len, "/tmp/ebb-validate-test-XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0, "mkstemp failed");
    size_t n = strlen(text);
    cr_assert_eq(write(fd, text, n), (ssize_t)n);
    close(fd);
}

/* `ebb validate ARGS FILE` with FILE holding `stream`. */
static void validate_text(const char *args, const char *stream)
{
    char path[64], line[1024];
    write_temp(stream, path, sizeof path);
    snprintf(line, sizeof line, "validate %s %s", args, path);
    keep(cli_run_line(line));
    unlink(path);
}

/* `ebb validate ARGS` with `stream` on standard input. */
static void validate_stdin(const char *const *args, const char *stream)
{
    char in_path[64];
    write_temp(stream, in_path, sizeof in_path);
    const char *argv[16];
    int n = 0;
    argv[n++] = "validate";
    for (; *args && n < 15; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    keep(cli_runv_stdin(EBB_CLI_PATH, argv, in_path));
    unlink(in_path);
}

static long long json_number(const char *json, const char *key, const char *key2)
{
    const char *p = key2 ? json_find(json, key, key2, NULL) : json_find(json, key, NULL);
    cr_assert(p != NULL, "no \"%s\" in %s", key2 ? key2 : key, json);
    return strtoll(p, NULL, 10);
}

/* Plans with `plan_args`, validates what --actions printed with
 * `validate_args`, and compares the counts of both JSON outputs. */
static void plan_then_validate(const char *plan_args, const char *validate_args)
{
    char line[512];
    snprintf(line, sizeof line, "plan %s --json", plan_args);
    keep(cli_run_line(line));
    cr_assert_eq(r.status, 0, "%s: %s", line, r.err);
    char *plan_json = strdup(r.out);
    snprintf(line, sizeof line, "plan %s --actions", plan_args);
    keep(cli_run_line(line));
    cr_assert_eq(r.status, 0, "%s: %s", line, r.err);
    char *stream = strdup(r.out);

    validate_text(validate_args, stream);
    cr_assert_eq(r.status, 0, "validate %s rejected 'plan %s --actions': %s", validate_args,
                 plan_args, r.err);
    cr_assert_str_eq(r.err, "");
    cr_assert(strncmp(r.out, "valid: ", 7) == 0, "%s", r.out);
    char want[256];
    snprintf(want, sizeof want, "valid: %lld actions, %lld forward steps (%lld recomputed)",
             json_number(plan_json, "actions", NULL), json_number(plan_json, "forward_steps", NULL),
             json_number(plan_json, "recomputed_steps", NULL));
    cr_assert(strncmp(r.out, want, strlen(want)) == 0, "plan %s: got '%s', want '%s...'", plan_args,
              r.out, want);

    snprintf(line, sizeof line, "%s --json", validate_args);
    validate_text(line, stream);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(count_lines(r.out), 1, "one JSON object on one line: %s", r.out);
    cr_assert(strstr(r.out, "\"valid\": true") != NULL, "%s", r.out);
    const char *same[] = {"actions", "forward_steps", "reverse_steps", "recomputed_steps"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++)
        cr_assert_eq(json_number(r.out, same[i], NULL), json_number(plan_json, same[i], NULL),
                     "plan %s: %s differs: %s vs %s", plan_args, same[i], r.out, plan_json);
    const char *tiers[] = {"host", "disk"};
    for (size_t i = 0; i < 2; i++) {
        const char *p = json_find(plan_json, "peak_slots", tiers[i], NULL);
        long long plan_peak = p ? strtoll(p, NULL, 10) : 0;
        cr_assert_eq(json_number(r.out, "peak_slots", tiers[i]), plan_peak, "plan %s: %s peak",
                     plan_args, tiers[i]);
    }
    free(plan_json);
    free(stream);
}

Test(validate_cli, what_plan_prints_is_valid_with_the_same_counts)
{
    plan_then_validate("--steps 500 --slots 5 --strategy revolve", "--steps 500 --slots 5");
    plan_then_validate("--steps 300 --slots 3 --disk-slots 2 --strategy multistage",
                       "--steps 300 --slots 3 --disk-slots 2");
    plan_then_validate("--steps 200 --slots 3 --strategy disk-revolve --period 20",
                       "--steps 200 --slots 3 --disk-slots 9");
    /* Online: n is learnt at the turn. */
    plan_then_validate("--steps 400 --slots 4 --strategy online", "--steps 0 --slots 4");
    plan_then_validate("--steps 1 --slots 1", "--steps 1 --slots 1");
}

Test(validate_cli, reads_standard_input_and_skips_comments)
{
    const char *stream = "# n = 3, one slot\n"
                         "store 0 host[0]\n"
                         "advance 0 -> 3\n"
                         "\n"
                         "turn 3\nreverse 2\nrestore 0 host[0]\nadvance 0 -> 1\nreverse 1\n"
                         "   # restore for the last step\n"
                         "restore 0 host[0]\nreverse 0\nfree 0 host[0]\nend\n";
    const char *args[] = {"--steps", "3", "--slots", "1", NULL};
    validate_stdin(args, stream);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "valid: 11 actions, 4 forward steps (1 recomputed), peak slots host 1 disk 0\n");
    const char *dash[] = {"--steps", "3", "--slots", "1", "-", NULL};
    validate_stdin(dash, stream);
    cr_assert_eq(r.status, 0, "%s", r.err);
    /* Not enough slots: the same stream is refused. */
    const char *none[] = {"--steps", "3", "--slots", "0", "--gpu-slots", "1", NULL};
    validate_stdin(none, stream);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "line 2: invalid schedule: action 0 (store 0 host[0]): slot 0 is outside "
                            "the 0 host slots") != NULL,
              "%s", r.err);
}

/* One line on stderr, exit 1, and the text in it. */
static void expect_invalid(const char *stream, const char *text)
{
    validate_text("--steps 3 --slots 2", stream);
    cr_assert_eq(r.status, 1, "exit %d for:\n%s\nstderr: %s", r.status, stream, r.err);
    cr_assert_eq(count_lines(r.err), 1, "want one line, got: %s", r.err);
    cr_assert(strstr(r.err, text) != NULL, "'%s' lacks '%s'", r.err, text);
    cr_assert_str_eq(r.out, "");
}

#define HEAD "store 0 host[0]\nadvance 0 -> 3\nturn 3\nreverse 2\n"
#define TAIL "restore 0 host[0]\nadvance 0 -> 1\nreverse 1\nrestore 0 host[0]\nreverse 0\nfree 0 host[0]\nend\n"

Test(validate_cli, bad_streams_name_the_line_and_the_rule)
{
    expect_invalid(HEAD "xyz\n" TAIL, "ebb validate: line 5: cannot parse 'xyz': unknown action 'xyz'");
    expect_invalid(HEAD "restore 1 host[5]\n", "line 5: invalid schedule: action 4 (restore 1 host[5]): slot 5 "
                                               "is outside the 2 host slots");
    expect_invalid("# comment\n" HEAD "restore 1 host[0]\n",
                   "line 6: invalid schedule: action 4 (restore 1 host[0]): the slot holds x_0");
    expect_invalid(HEAD "free 0 host[1]\n" TAIL,
                   "line 5: invalid schedule: action 4 (free 0 host[1]): the slot is empty");
    expect_invalid(HEAD "free -1 host[1]\n" TAIL,
                   "line 5: invalid schedule: action 4 (free -1 host[1]): step -1 is outside 0 .. n = 3");
    expect_invalid(HEAD "advance -1 -> 1\n",
                   "line 5: invalid schedule: action 4 (advance -1 -> 1): step -1 is outside");
    expect_invalid(HEAD "restore 0 host[0]\nadvance 0 -> 1\nreverse 1\n",
                   "line 8 (end of input): invalid schedule: the stream stopped after 7 actions without "
                   "END (2 of 3 steps reversed)");
    expect_invalid(HEAD TAIL "reverse 0\n", "line 12: invalid schedule: action 11 (reverse 0): the "
                                            "stream already ended");
    expect_invalid("", "line 1 (end of input): invalid schedule: the stream stopped after 0 actions");
    /* The first error in line order wins: the bad action comes before the bad line. */
    expect_invalid(HEAD "free 0 host[1]\nxyz\n", "line 5: invalid schedule: action 4");
}

Test(validate_cli, an_invalid_stream_in_json)
{
    validate_text("--steps 3 --slots 2 --json", HEAD "restore 1 host[0]\n");
    cr_assert_eq(r.status, 1);
    cr_assert_eq(count_lines(r.out), 1, "%s", r.out);
    cr_assert(strstr(r.out, "\"valid\": false") != NULL, "%s", r.out);
    cr_assert(strstr(r.out, "\"error\": \"invalid schedule: action 4 (restore 1 host[0]): the slot "
                            "holds x_0\"") != NULL,
              "%s", r.out);
    cr_assert_eq(json_number(r.out, "line", NULL), 5);
    cr_assert_eq(json_number(r.out, "actions", NULL), 5);
    cr_assert_eq(json_number(r.out, "peak_slots", "host"), 1);
    validate_text("--steps 3 --slots 2 --json", HEAD "restore 1 \"x\"\n");
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.out, "\"error\": \"cannot parse 'restore 1 \\\"x\\\"'") != NULL, "%s", r.out);
}

static void expect_usage(const char *args, const char *text)
{
    keep(cli_run_line(args));
    cr_assert_eq(r.status, 2, "'%s' exited %d", args, r.status);
    cr_assert_eq(count_lines(r.err), 1, "'%s': want one line, got: %s", args, r.err);
    cr_assert(strstr(r.err, text) != NULL, "'%s': '%s' lacks '%s'", args, r.err, text);
    cr_assert_str_eq(r.out, "");
}

Test(validate_cli, bad_options_exit_2)
{
    expect_usage("validate --steps 3", "--steps N and --slots C are required");
    expect_usage("validate --slots 3", "--steps N and --slots C are required");
    expect_usage("validate --steps -1 --slots 3", "--steps must be an integer in [0,");
    expect_usage("validate --steps 3 --slots many", "--slots must be an integer in [0, 2147483647], got 'many'");
    expect_usage("validate --steps 3 --slots 1 --disk-slots -2", "--disk-slots must be an integer");
    expect_usage("validate --steps 3 --slots 1 --gpu-slots x", "--gpu-slots must be an integer");
    expect_usage("validate --steps 3 --slots 1 --bogus", "unknown or incomplete option '--bogus'");
    expect_usage("validate --steps 3 --slots 1 a b", "unexpected argument 'b': give at most one FILE");
    expect_usage("validate --steps 3 --slots 1 /nonexistent/stream.txt",
                 "cannot open '/nonexistent/stream.txt': No such file or directory");
    keep(cli_run_line("validate --help"));
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "--gpu-slots G") != NULL, "%s", r.out);
}
