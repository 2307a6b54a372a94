/* `ebb run`'s progress line: on a terminal (a pty here) it is rewritten in
 * place with carriage returns; to a file or a pipe a short run writes no
 * progress at all, and never a carriage return (a log stays readable). */
#include <errno.h>
#include <pty.h>

#include "support/cli_run.h"

static const char *const args[] = {"run", "--steps", "100", "--state-size", "4KiB",
                                   "--forward-ms", "5", "--strategy", "revolve", NULL};

Test(run_progress_cli, nothing_on_a_pipe)
{
    cli_result r = cli_runv(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_null(strchr(r.err, '\r'), "a carriage return on a pipe: %s", r.err);
    cr_assert_null(strstr(r.err, " of 100"), "a progress line from a short run: %s", r.err);
}

Test(run_progress_cli, rewritten_on_a_terminal, .timeout = 60)
{
    int master = -1;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    cr_assert_geq(pid, 0, "forkpty: %s", strerror(errno));
    if (pid == 0) {
        const char *argv[12] = {EBB_CLI_PATH};
        for (int i = 0; args[i]; i++)
            argv[i + 1] = args[i];
        execv(EBB_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    char out[1 << 16];
    size_t len = 0;
    ssize_t n;
    while (len + 1 < sizeof out && (n = read(master, out + len, sizeof out - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = '\0';
    int ws = 0;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    close(master);
    cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "status %d: %s", ws, out);
    cr_assert(strstr(out, "\rebb run: revolve"), "no progress line on a terminal: %s", out);
}
