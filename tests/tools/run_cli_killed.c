/* `ebb run` killed with SIGKILL in the middle of a run whose states go to
 * disk: while it runs it has files open in the configured disk directory,
 * yet the directory lists none (ebb's files are anonymous), and none is left
 * after the kill. */
#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <time.h>

#include "support/cli_run.h"

extern char **environ;

static char dir[] = "/tmp/ebb-run-killed-XXXXXX";
static char config[128], errfile[160];

static void setup(void)
{
    cli_disk_config(dir, config, sizeof config, "");
    snprintf(errfile, sizeof errfile, "%s.err", dir);
}

static void teardown(void)
{
    unlink(config);
    unlink(errfile);
    rmdir(dir);
}

/* Open files of `pid` that live (or lived: "(deleted)") in `path`. */
static int open_files_in(pid_t pid, const char *path)
{
    char fddir[64];
    snprintf(fddir, sizeof fddir, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(fddir);
    cr_assert(d, "cannot read %s", fddir);
    int n = 0;
    size_t len = strlen(path);
    struct dirent *e;
    while ((e = readdir(d))) {
        char link[512], target[1024];
        snprintf(link, sizeof link, "%s/%s", fddir, e->d_name);
        ssize_t t = readlink(link, target, sizeof target - 1);
        if (t <= 0)
            continue;
        target[t] = '\0';
        n += strncmp(target, path, len) == 0 && target[len] == '/';
    }
    closedir(d);
    return n;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

Test(run_cli, killed_leaves_no_file, .init = setup, .fini = teardown, .timeout = 120)
{
    const char *argv[] = {EBB_CLI_PATH, "run", "--config", config, "--strategy", "multistage",
                          "--slots", "2", "--disk-slots", "8", "--steps", "2000",
                          "--state-size", "1MiB", "--forward-ms", "1", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int rc = posix_spawn(&pid, EBB_CLI_PATH, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(rc, 0, "cannot run %s: %s", EBB_CLI_PATH, strerror(rc));

    /* A file open in the disk directory says the disk tier exists (stderr
     * is a file: no progress line before 10 s). */
    int started = 0, ws = 0;
    for (int i = 0; i < 600 && !started; i++) {
        sleep_ms(50);
        started = open_files_in(pid, dir) > 0;
        if (!started && waitpid(pid, &ws, WNOHANG) == pid) {
            char *e = cli_slurp(errfile);
            cr_assert_fail("ebb run ended before it was killed (status %d): %s", ws, e);
        }
    }
    cr_assert(started, "no file open in %s in 30 s", dir);
    sleep_ms(300);
    int while_running = cli_dir_entries(dir), open_there = open_files_in(pid, dir);
    cr_assert_eq(kill(pid, SIGKILL), 0);
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    cr_assert(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL,
              "ebb run ended on its own before the kill (status %d)", ws);
    cr_assert_gt(open_there, 0, "the run had no file open in %s: its disk tier is elsewhere",
                 dir);
    cr_assert_eq(while_running, 0, "%d files in %s while ebb ran", while_running, dir);
    cr_assert_eq(cli_dir_entries(dir), 0, "files left in %s after SIGKILL", dir);
}
