/* `ebb run --trace FILE` leaves FILE either as it was or a complete
 * timeline (the library's trace file, runtime/trace.h; its named way is
 * tested in tests/runtime/trace_replace.c): a symbolic link at FILE is
 * refused and its target untouched (fopen("w") truncated it); a run
 * interrupted by SIGINT leaves the previous file and no temporary file; a
 * write that fails (a full file system, a file size limit) exits 1 naming
 * FILE and the errno text, FILE as it was (it left truncated JSON and exited
 * 0). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

#include "support/cli_run.h"
#include "support/scratch_dir.h"

static char dir[64];
static char file[128];

static void make_dir(void)
{
    scratch_dir_make(dir, sizeof dir, "ebb-trace");
    snprintf(file, sizeof file, "%s/t.json", dir);
}

static void remove_dir(void) { scratch_dir_remove(dir); }

/* A complete timeline: the JSON object the runtime writes, closed. */
static void expect_timeline(const char *path)
{
    char *t = cli_slurp(path);
    size_t n = strlen(t);
    cr_expect(strncmp(t, "{\"displayTimeUnit\"", 18) == 0, "%s starts: %.60s", path, t);
    cr_expect(n >= 4 && strcmp(t + n - 4, "\n]}\n") == 0, "%s ends: %s", path,
              n > 40 ? t + n - 40 : t);
    free(t);
}

typedef struct {
    long fsize;         /* RLIMIT_FSIZE, or 0 */
} child_env;

/* Starts `ebb run ... --trace FILE` (stdout, stderr into dir/out); its pid. */
static pid_t start(child_env env, const char *const *args)
{
    char out[128];
    snprintf(out, sizeof out, "%s.out", dir);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 1);
        dup2(fd, 2);
        signal(SIGINT, SIG_DFL);
        if (env.fsize) {
            struct rlimit lim = {(rlim_t)env.fsize, (rlim_t)env.fsize};
            setrlimit(RLIMIT_FSIZE, &lim);
            signal(SIGXFSZ, SIG_IGN); /* the write fails with EFBIG instead */
        }
        const char *argv[32] = {EBB_CLI_PATH, "run"};
        int n = 2;
        for (; args[n - 2] && n < 28; n++)
            argv[n] = args[n - 2];
        argv[n++] = "--trace";
        argv[n++] = file;
        argv[n] = NULL;
        execv(EBB_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Waits for pid: its exit status, or 128 + signal; its output in *text. */
static int finish(pid_t pid, char **text)
{
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    char out[128];
    snprintf(out, sizeof out, "%s.out", dir);
    *text = cli_slurp(out);
    unlink(out);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const char *const quick[] = {"--steps", "20", "--state-size", "4KiB", NULL};

Test(trace_file, replaces_the_previous_file_whole, .init = make_dir, .fini = remove_dir)
{
    {
        scratch_put(file, "old");
        char *text;
        int rc = finish(start((child_env){0}, quick), &text);
        cr_expect_eq(rc, 0, "%s", text);
        expect_timeline(file);
        cr_expect_eq(cli_dir_entries(dir), 1, "a temporary file was left beside FILE");
        struct stat st;
        cr_assert_eq(stat(file, &st), 0);
        mode_t mask = umask(0);
        umask(mask);
        cr_expect_eq(st.st_mode & 0777, 0666 & ~mask, "mode %o, as fopen(\"w\") would: %o",
                     st.st_mode & 0777, 0666 & ~mask);
        free(text);
    }
}

Test(trace_file, symlink_not_followed, .init = make_dir, .fini = remove_dir)
{
    char target[192];
    snprintf(target, sizeof target, "%s/target", dir);
    scratch_put(target, "precious");
    cr_assert_eq(symlink(target, file), 0);
    char *text;
    int rc = finish(start((child_env){0}, quick), &text);
    cr_expect_eq(rc, 1, "%s", text);
    cr_expect(strstr(text, "is a symbolic link") && strstr(text, file), "%s", text);
    char *t = cli_slurp(target);
    cr_expect_str_eq(t, "precious");
    free(t);
    struct stat st;
    cr_expect(lstat(file, &st) == 0 && S_ISLNK(st.st_mode), "the link itself was changed");
    free(text);
}

/* SIGINT once the run is under way (its temporary file exists). */
static void interrupt(int previous)
{
    if (previous)
        scratch_put(file, "previous");
    else
        unlink(file);
    const char *const slow[] = {"--steps", "100000", "--state-size", "4KiB", "--forward-ms",
                                "2", "--strategy", "revolve", "--slots", "20", NULL};
    pid_t pid = start((child_env){0}, slow);
    struct timespec tick = {0, 50 * 1000 * 1000};
    for (int i = 0; i < 40; i++) /* 2 s: the calibration is done, the run started */
        nanosleep(&tick, NULL);
    cr_assert_eq(kill(pid, SIGINT), 0);
    char *text;
    int rc = finish(pid, &text);
    cr_expect_eq(rc, 128 + SIGINT, "it was not interrupted (exit %d): %s", rc, text);
    if (previous) {
        char *t = cli_slurp(file);
        cr_expect(strcmp(t, "previous") == 0 || strncmp(t, "{\"displayTimeUnit\"", 18) == 0,
                  "FILE holds neither the previous file nor a timeline: %.80s", t);
        if (strcmp(t, "previous") != 0)
            expect_timeline(file);
        free(t);
    } else {
        cr_expect(access(file, F_OK) != 0, "FILE was created by an interrupted run");
    }
    cr_expect_eq(cli_dir_entries(dir), previous ? 1 : 0, "a temporary file was left beside FILE");
    free(text);
}

Test(trace_file, sigint_keeps_the_previous_file, .init = make_dir, .fini = remove_dir,
     .timeout = 60)
{
    interrupt(1);
    interrupt(0);
}

static void expect_write_refused(child_env env, const char *why)
{
    scratch_put(file, "previous");
    const char *const longer[] = {"--steps", "3000", "--state-size", "4KiB", NULL};
    char *text;
    int rc = finish(start(env, longer), &text);
    cr_expect_eq(rc, 1, "exit %d: %s", rc, text);
    char want[256];
    snprintf(want, sizeof want, "trace file '%s': %s", file, why);
    cr_expect(strstr(text, want) != NULL, "output lacks \"%s\": %s", want, text);
    char *t = cli_slurp(file);
    cr_expect_str_eq(t, "previous");
    free(t);
    cr_expect_eq(cli_dir_entries(dir), 1, "a temporary file was left beside FILE");
    free(text);
}

Test(trace_file, write_error_keeps_the_previous_file, .init = make_dir, .fini = remove_dir)
{
    expect_write_refused((child_env){4096}, "File too large");
}

Test(trace_file, full_file_system, .init = make_dir, .fini = remove_dir)
{
    /* A private mount namespace: the 64 KiB tmpfs is seen by this test alone. */
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        cr_skip_test("cannot make a mount namespace here (%s): needs root and "
                     "unshare(CLONE_NEWNS)", strerror(errno));
    if (mount("tmpfs", dir, "tmpfs", 0, "size=64k") != 0)
        cr_skip_test("cannot mount a 64 KiB tmpfs on %s: %s", dir, strerror(errno));
    expect_write_refused((child_env){0}, "No space left on device");
}

/* A directory that does not exist: the path and the errno text, and no
 * key or field that the command line does not have (it said "set
 * run.trace", a key that does not exist). */
Test(trace_file, missing_directory_named, .init = make_dir, .fini = remove_dir)
{
    snprintf(file, sizeof file, "%s/none/t.json", dir);
    char *text;
    int rc = finish(start((child_env){0}, quick), &text);
    cr_expect_eq(rc, 1, "%s", text);
    char want[256];
    snprintf(want, sizeof want, "trace file '%s': cannot create a file in '%s/none'", file, dir);
    cr_expect(strstr(text, want) && strstr(text, "No such file or directory"), "%s", text);
    static const char *const not_here[] = {"run.trace", "ebb_run_options", "EBB_TRACE"};
    for (size_t i = 0; i < sizeof not_here / sizeof *not_here; i++)
        cr_expect_null(strstr(text, not_here[i]), "names '%s': %s", not_here[i], text);
    free(text);
}
