/* The library's timeline file (runtime/trace.h) is either what it was or a
 * complete timeline, both ways of creating its temporary file (unnamed
 * O_TMPFILE, and named as where a file system refuses it): a complete run
 * replaces it (mode as fopen("w") gives); a symbolic link there is refused
 * at creation and its target untouched (fopen("w") truncated it); a run
 * destroyed before its end, or stopped by a failed step, leaves it as it was
 * (fopen left the part written); a write that fails (a file size limit)
 * fails ebb_run_reverse with the path and the errno text, the file as it
 * was (fopen left truncated JSON and said nothing). No temporary file is
 * ever left beside it. */
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "support/scratch_dir.h"
#include "workload.h"

static char dir[64], file[128];

static void make_dir(void)
{
    scratch_dir_make(dir, sizeof dir, "ebb-trace-lib");
    snprintf(file, sizeof file, "%s/t.json", dir);
}

static void remove_dir(void) { scratch_dir_remove(dir); }

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    char *s = calloc(1, 1 << 20);
    cr_assert_not_null(s);
    size_t got = fread(s, 1, (1 << 20) - 1, f);
    cr_assert(!ferror(f), "%s: read failed after %zu bytes", path, got);
    fclose(f);
    return s;
}

static void expect_text(const char *path, const char *want)
{
    char *t = slurp(path);
    cr_expect_str_eq(t, want);
    free(t);
}

typedef enum { TO_END, DESTROY_AFTER_FORWARD, FAIL_IN_REVERSE } how;

/* A host-only revolve run traced into `path`: create's status, then the
 * sweeps' (the first that failed) in *swept. */
static ebb_status traced(const char *path, int named, how h, int64_t steps, ebb_status *swept)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.disk.enabled = 0;
    cfg.gpu.enabled = 0;
    wl w;
    wl_init(&w, 512);
    w.steps_known = steps;
    if (h == FAIL_IN_REVERSE)
        w.fail_reverse_at = steps / 2;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = w.size;
    o.steps = steps;
    o.config = &cfg;
    o.strategy = EBB_CONFIG_STRATEGY_REVOLVE;
    o.slots = 3;
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = &w;
    o.trace = path;
    rt_create_args args;
    cr_assert_eq(rt_args_from_config(&o, &cfg, &args), EBB_OK, "%s", ebb_last_error());
    args.trace_named = named;
    ebb_run *run = NULL;
    ebb_status st = rt_run_create(&args, &run);
    *swept = EBB_OK;
    if (st == EBB_OK) {
        unsigned char x0[512];
        wl_x0(&w, x0, 5);
        void *xn = NULL;
        *swept = ebb_run_forward(run, x0, &xn);
        if (*swept == EBB_OK && h != DESTROY_AFTER_FORWARD)
            *swept = ebb_run_reverse(run);
    }
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", ebb_last_error());
    ebb_run_destroy(run);
    ebb_config_dispose(&cfg);
    ebb_callback_fail("%s", msg); /* the message, kept for the caller */
    return st;
}

Test(trace_replace, complete_run_replaces_the_file, .init = make_dir, .fini = remove_dir)
{
    for (int named = 0; named < 2; named++) {
        scratch_put(file, "previous");
        ebb_status swept;
        cr_assert_eq(traced(file, named, TO_END, 30, &swept), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(swept, EBB_OK, "%s", ebb_last_error());
        char *t = slurp(file);
        size_t n = strlen(t);
        cr_expect(strncmp(t, "{\"displayTimeUnit\"", 18) == 0, "named %d: %.60s", named, t);
        cr_expect(n >= 4 && strcmp(t + n - 4, "\n]}\n") == 0, "named %d ends: %s", named,
                  n > 40 ? t + n - 40 : t);
        free(t);
        struct stat st;
        cr_assert_eq(stat(file, &st), 0);
        mode_t mask = umask(0);
        umask(mask);
        cr_expect_eq(st.st_mode & 0777, 0666 & ~mask, "named %d: mode %o, as fopen(\"w\"): %o",
                     named, st.st_mode & 0777, 0666 & ~mask);
        cr_expect_eq(wl_dir_entries(dir), 1, "named %d: a temporary file was left", named);
    }
}

Test(trace_replace, symlink_refused_its_target_untouched, .init = make_dir, .fini = remove_dir)
{
    char target[192];
    snprintf(target, sizeof target, "%s/target", dir);
    scratch_put(target, "precious");
    cr_assert_eq(symlink(target, file), 0);
    for (int named = 0; named < 2; named++) {
        ebb_status swept;
        cr_expect_eq(traced(file, named, TO_END, 30, &swept), EBB_ERR_IO);
        char want[256];
        snprintf(want, sizeof want, "trace file '%s' is a symbolic link", file);
        cr_expect(strstr(ebb_last_error(), want), "named %d: %s", named, ebb_last_error());
        expect_text(target, "precious");
        struct stat st;
        cr_expect(lstat(file, &st) == 0 && S_ISLNK(st.st_mode), "the link itself was changed");
        cr_expect_eq(wl_dir_entries(dir), 2, "named %d: a temporary file was left", named);
    }
}

Test(trace_replace, unfinished_run_leaves_the_file, .init = make_dir, .fini = remove_dir)
{
    for (int named = 0; named < 2; named++) {
        for (how h = DESTROY_AFTER_FORWARD; h <= FAIL_IN_REVERSE; h++) {
            scratch_put(file, "previous");
            ebb_status swept;
            cr_assert_eq(traced(file, named, h, 30, &swept), EBB_OK, "%s", ebb_last_error());
            cr_assert_eq(swept, h == FAIL_IN_REVERSE ? EBB_ERR_CALLBACK : EBB_OK, "%s",
                         ebb_last_error());
            expect_text(file, "previous");
            cr_expect_eq(wl_dir_entries(dir), 1, "named %d, how %d: a temporary file was left",
                         named, (int)h);
            unlink(file); /* none before: none after */
            cr_assert_eq(traced(file, named, h, 30, &swept), EBB_OK, "%s", ebb_last_error());
            cr_expect_eq(wl_dir_entries(dir), 0, "named %d, how %d: a file was left", named,
                         (int)h);
        }
    }
}

Test(trace_replace, failed_write_named_with_errno_text, .init = make_dir, .fini = remove_dir)
{
    /* a file size limit: the trace's writes fail with EFBIG (SIGXFSZ ignored) */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {4096, 4096};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    for (int named = 0; named < 2; named++) {
        scratch_put(file, "previous");
        ebb_status swept;
        cr_assert_eq(traced(file, named, TO_END, 200, &swept), EBB_OK, "%s", ebb_last_error());
        cr_expect_eq(swept, EBB_ERR_IO, "named %d: %s", named, ebb_last_error());
        char want[256];
        snprintf(want, sizeof want, "trace file '%s': %s", file, strerror(EFBIG));
        cr_expect(strstr(ebb_last_error(), want), "named %d: lacks \"%s\": %s", named, want,
                  ebb_last_error());
        expect_text(file, "previous");
        cr_expect_eq(wl_dir_entries(dir), 1, "named %d: a temporary file was left", named);
    }
}
