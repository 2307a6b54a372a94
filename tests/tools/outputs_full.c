/* Every subcommand's standard output is flushed and checked: with it on
 * /dev/full each exits non-zero saying "cannot write standard output: No
 * space left on device" (they exited 0, the output lost). `ebb plan
 * --actions` stops at the first failed write instead of generating the
 * rest. */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>

#include "support/cli_run.h"

typedef struct {
    int status;
    char err[4096];
} full_result;

/* `ebb ARGS...` with stdout on /dev/full, stdin from in_path (NULL: /dev/null). */
static full_result run_full(const char *in_path, const char *const *args)
{
    char err_path[] = "/tmp/ebb-full-err-XXXXXX";
    int err_fd = mkstemp(err_path);
    cr_assert(err_fd >= 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a timed-out test leaves no ebb behind */
        int out = open("/dev/full", O_WRONLY);
        int in = open(in_path ? in_path : "/dev/null", O_RDONLY);
        if (out < 0 || in < 0)
            _exit(126);
        dup2(out, 1);
        dup2(in, 0);
        dup2(err_fd, 2);
        const char *argv[32] = {EBB_CLI_PATH};
        for (int i = 0; args[i] && i < 30; i++)
            argv[i + 1] = args[i];
        execv(EBB_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    full_result r = {0};
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    ssize_t n = pread(err_fd, r.err, sizeof r.err - 1, 0);
    r.err[n > 0 ? n : 0] = '\0';
    close(err_fd);
    unlink(err_path);
    return r;
}

static void expect_failed(const char *in_path, const char *const *args, const char *message)
{
    full_result r = run_full(in_path, args);
    cr_expect(r.status != 0 && r.status < 128, "ebb %s ... > /dev/full: exit %d, stderr: %s",
              args[0], r.status, r.err);
    cr_expect(strstr(r.err, message) != NULL, "ebb %s ... > /dev/full: stderr lacks '%s': %s",
              args[0], message, r.err);
}

static const char nospace[] = "standard output: No space left on device";

Test(outputs_full, plan)
{
    const char *actions[] = {"plan", "--steps", "100", "--slots", "3", "--actions", NULL};
    expect_failed(NULL, actions,
                  "ebb plan: cannot write the action stream to standard output: No space left");
    const char *json[] = {"plan", "--steps", "100", "--slots", "3", "--json", NULL};
    expect_failed(NULL, json, "ebb plan: cannot write standard output: No space left on device");
    const char *text[] = {"plan", "--steps", "100", "--slots", "3", NULL};
    expect_failed(NULL, text, nospace);
    const char *predict[] = {"plan", "--steps", "100", "--state-size", "1MiB", "--forward-ms",
                             "1", "--reverse-ms", "2", "--slots", "4", NULL};
    expect_failed(NULL, predict, nospace);
}

/* Stopping at the first failed write: 10^8 steps would print for minutes. */
Test(outputs_full, plan_actions_stop_early, .timeout = 30)
{
    const char *args[] = {"plan", "--steps", "100000000", "--slots", "3", "--actions", NULL};
    expect_failed(NULL, args, "cannot write the action stream");
}

Test(outputs_full, validate)
{
    char in[] = "/tmp/ebb-full-in-XXXXXX";
    int fd = mkstemp(in);
    const char s[] = "store 0 host[0]\nadvance 0 -> 1\nturn 1\nreverse 0\nfree 0 host[0]\nend\n";
    cr_assert(fd >= 0 && write(fd, s, sizeof s - 1) == (ssize_t)(sizeof s - 1));
    close(fd);
    const char *json[] = {"validate", "--steps", "1", "--slots", "1", "--json", NULL};
    expect_failed(in, json, "ebb validate: cannot write standard output: No space left");
    const char *text[] = {"validate", "--steps", "1", "--slots", "1", NULL};
    expect_failed(in, text, nospace);
    unlink(in);
}

Test(outputs_full, run)
{
    const char *json[] = {"run", "--steps", "3", "--state-size", "4KiB", "--json", NULL};
    expect_failed(NULL, json, "ebb run: cannot write standard output: No space left");
    const char *text[] = {"run", "--steps", "3", "--state-size", "4KiB", NULL};
    expect_failed(NULL, text, nospace);
}

Test(outputs_full, bench)
{
    const char *text[] = {"bench", "--tier", "host", "--size", "64KiB", "--total", "1MiB", NULL};
    expect_failed(NULL, text, "ebb bench: cannot write standard output: No space left");
    const char *json[] = {"bench", "--tier",  "host",   "--size", "64KiB",
                          "--total", "1MiB", "--json", NULL};
    expect_failed(NULL, json, nospace);
}

Test(outputs_full, help_and_demo)
{
    const char *help[] = {"--help", NULL};
    expect_failed(NULL, help, "ebb: cannot write standard output: No space left");
    const char *plan_help[] = {"plan", "--help", NULL};
    expect_failed(NULL, plan_help, nospace);
}

Test(outputs_full, config_show)
{
    const char *show[] = {"config", "show", NULL};
    expect_failed(NULL, show, "No space left on device");
}
