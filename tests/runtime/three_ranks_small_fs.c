/* Three processes of one node, each with the default disk tier ("auto": a
 * quarter of the free space divided by the launcher's count of the node's
 * processes, OMPI_COMM_WORLD_LOCAL_SIZE), share one small file system (a
 * 48 MiB tmpfs in a mount namespace of the test's own): all three create
 * their runs, hold their disk tiers at once (preallocated: n is known, and
 * each could use 25 MiB of disk slots), and run async to the oracle's
 * adjoint. When each took half of the free space for itself, the third
 * found none. Needs root and unshare(CLONE_NEWNS): skips
 * otherwise. */
#include <errno.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "workload.h"

enum { RANKS = 3, STEPS = 400, SIZE = 64 << 10 };

/* One rank: creates its run, says so on `created`, waits for `go` (all
 * three hold their tiers), runs both sweeps; exits 0, or 1 saying why. */
static void rank(const char *dir, int created, int go, int r)
{
    ebb_config cfg;
    if (ebb_config_init_default(&cfg) != EBB_OK)
        _exit(1);
    const char *paths[] = {dir};
    ebb_config_set_disk_paths(&cfg, paths, 1);
    cfg.gpu.enabled = 0;
    cfg.disk.enabled = 1;
    cfg.disk.budget = EBB_BUDGET_AUTO;
    cfg.disk.direct = 0;
    cfg.host.budget = (uint64_t)4 * SIZE;
    static wl w;
    wl_init(&w, SIZE);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = SIZE;
    o.config = &cfg;
    o.strategy = EBB_STRATEGY_ASYNC;
    o.steps = STEPS; /* each could use 25 MiB of disk slots: the budget bounds them */
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = &w;
    w.steps_known = STEPS;
    static unsigned char x0[SIZE];
    wl_x0(&w, x0, (uint64_t)r + 11);
    ebb_run *run = NULL;
    ebb_status st = ebb_run_create(&o, &run);
    char c = st == EBB_OK ? 'y' : 'n';
    if (write(created, &c, 1) != 1 || st != EBB_OK) {
        fprintf(stderr, "rank %d: %s\n", r, ebb_last_error());
        _exit(1);
    }
    if (read(go, &c, 1) != 1)
        _exit(1);
    w.run = run;
    if ((st = ebb_run_forward(run, x0, NULL)) != EBB_OK || (st = ebb_run_reverse(run)) != EBB_OK) {
        fprintf(stderr, "rank %d: %s\n", r, ebb_last_error());
        _exit(1);
    }
    ebb_run_destroy(run);
    ebb_config_dispose(&cfg);
    if (w.reverse_calls != STEPS || w.adjoint != wl_reference(SIZE, STEPS, (uint64_t)r + 11)) {
        fprintf(stderr, "rank %d: adjoint differs from the oracle's\n", r);
        _exit(1);
    }
    _exit(0);
}

Test(three_ranks_small_fs, all_run, .timeout = 120)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/ebb-3ranks-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    /* a private mount namespace: the tmpfs is this test's alone */
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        rmdir(dir);
        cr_skip_test("cannot make a mount namespace here (%s): needs root and "
                     "unshare(CLONE_NEWNS)", strerror(errno));
    }
    if (mount("tmpfs", dir, "tmpfs", 0, "size=48m") != 0) {
        rmdir(dir);
        cr_skip_test("cannot mount a 48 MiB tmpfs on %s: %s", dir, strerror(errno));
    }
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "3", 1);
    int created[2], go[2];
    cr_assert_eq(pipe(created), 0);
    cr_assert_eq(pipe(go), 0);
    pid_t pid[RANKS];
    for (int r = 0; r < RANKS; r++) {
        pid[r] = fork();
        cr_assert_geq(pid[r], 0);
        if (pid[r] == 0)
            rank(dir, created[1], go[0], r);
    }
    close(created[1]); /* a rank that dies unheard ends the reads below */
    close(go[0]);
    int made = 0;
    for (int r = 0; r < RANKS; r++) {
        char c;
        if (read(created[0], &c, 1) == 1 && c == 'y')
            made++;
    }
    char gos[RANKS] = {'g', 'g', 'g'};
    cr_assert_eq(write(go[1], gos, RANKS), RANKS);
    int ok = 0;
    for (int r = 0; r < RANKS; r++) {
        int status = 0;
        cr_assert_eq(waitpid(pid[r], &status, 0), pid[r]);
        ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    int left = wl_dir_entries(dir);
    umount2(dir, MNT_DETACH);
    rmdir(dir);
    cr_expect_eq(made, RANKS, "%d of %d ranks created their runs on one 48 MiB file system",
                 made, RANKS);
    cr_expect_eq(ok, RANKS, "%d of %d ranks ran to the oracle's adjoint", ok, RANKS);
    cr_expect_eq(left, 0, "%d files left on the file system", left);
}
