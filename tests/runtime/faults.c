/* Faults end the run with the error and its message: a callback failing in
 * the first sweep, in a recomputation and in the reverse sweep, a disk write
 * error, a read error and a checksum mismatch. Every pool is released at the
 * failure (no file, no descriptor left), and later calls say why the run
 * stopped. */
#include <errno.h>
#include <fcntl.h>

#include "storage/fault.h"
#include "support/settle.h"
#include "workload.h"

static int open_fds(void)
{
    return wl_dir_entries("/proc/self/fd");
}

typedef struct {
    wl w;
    ebb_run *run;
    int64_t corrupt_at; /* reverse step at which disk slot 0's file is overwritten */
} ctx;

static int corrupting_reverse(void *user, int64_t k, void *state)
{
    ctx *c = user;
    if (k == c->corrupt_at) {
        int fd;
        int64_t off;
        const char *name;
        ebb_pool *disk = ebb_run_debug_pool(c->run, EBB_TIER_DISK);
        cr_assert_eq(ebb_disk_debug_locate(disk, 0, 0, &fd, &off, &name), EBB_OK);
        void *junk = NULL; /* aligned: the file is open with O_DIRECT */
        cr_assert_eq(posix_memalign(&junk, 4096, 4096), 0);
        cr_assert_eq(pread(fd, junk, 4096, off), 4096);
        ((unsigned char *)junk)[100] ^= 0xff;
        cr_assert_eq(pwrite(fd, junk, 4096, off), 4096);
        free(junk);
    }
    return wl_reverse_cb(&c->w, k, state);
}

/* Runs multistage (2 host, 6 disk slots) or revolve over n steps and expects
 * `want` with `text` in the message. */
static void expect_failure(ctx *c, ebb_config_strategy s, int checksum,
                           const ebb_storage_fault *fault, ebb_status want, const char *text)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.checksum = checksum;
    test_settle_process();
    int fds = open_fds();
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = 5000;
    o.steps = 60;
    o.config = &cfg;
    o.strategy = (int)s;
    o.slots = s == EBB_CONFIG_STRATEGY_MULTISTAGE ? 2 : 3;
    o.slow_slots = 6;
    /* two host buffers for the disk (the default is what the budget leaves,
     * up to the disk slots: every state would stay cached in host memory and
     * no read would reach the disk) */
    o.staging = 2;
    o.forward = wl_forward_cb;
    o.reverse = c->corrupt_at >= 0 ? corrupting_reverse : wl_reverse_cb;
    o.user = c->corrupt_at >= 0 ? (void *)c : (void *)&c->w;
    unsigned char x0[5000];
    wl_x0(&c->w, x0, 9);
    cr_assert_eq(ebb_run_create_with_faults(&o, fault, &c->run), EBB_OK, "%s", ebb_last_error());
    ebb_status st = ebb_run_forward(c->run, x0, NULL);
    if (st == EBB_OK)
        st = ebb_run_reverse(c->run);
    cr_assert_eq(st, want, "got %s: %s", ebb_status_name(st), ebb_last_error());
    cr_assert(strstr(ebb_last_error(), text), "message '%s' lacks '%s'", ebb_last_error(), text);
    /* stopped: every pool released at once, before destroy */
    cr_assert_null(ebb_run_debug_pool(c->run, EBB_TIER_DISK));
    cr_assert_null(ebb_run_debug_pool(c->run, EBB_TIER_HOST));
    cr_assert_eq(open_fds(), fds, "descriptors left open after the failure");
    cr_assert_eq(ebb_run_reverse(c->run), EBB_ERR_STATE);
    cr_assert(strstr(ebb_last_error(), text), "later call: '%s'", ebb_last_error());
    ebb_run_destroy(c->run);
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

static void init(ctx *c)
{
    wl_init(&c->w, 5000);
    c->w.steps_known = 60;
    c->corrupt_at = -1;
}

Test(faults, forward_fails_in_first_sweep)
{
    ctx c;
    init(&c);
    c.w.fail_forward_at = 17;
    c.w.fail_forward_call = 1;
    expect_failure(&c, EBB_CONFIG_STRATEGY_MULTISTAGE, 0, NULL, EBB_ERR_CALLBACK,
                   "forward step 17 failed: synthetic failure in forward step 17");
}

Test(faults, forward_fails_in_recomputation)
{
    ctx c;
    init(&c);
    c.w.fail_forward_at = 5;
    c.w.fail_forward_call = 2;
    expect_failure(&c, EBB_CONFIG_STRATEGY_REVOLVE, 0, NULL, EBB_ERR_CALLBACK,
                   "forward step 5 (recomputation) failed: synthetic failure");
}

Test(faults, reverse_fails)
{
    ctx c;
    init(&c);
    c.w.fail_reverse_at = 41;
    expect_failure(&c, EBB_CONFIG_STRATEGY_MULTISTAGE, 0, NULL, EBB_ERR_CALLBACK,
                   "reverse step 41 failed: the callback returned 7");
}

Test(faults, disk_write_error)
{
    ctx c;
    init(&c);
    ebb_storage_fault f = {0};
    f.io_nth = 2;
    f.io_errno = EIO;
    expect_failure(&c, EBB_CONFIG_STRATEGY_MULTISTAGE, 0, &f, EBB_ERR_IO, "writing disk slot");
}

Test(faults, disk_read_error)
{
    /* the second read of the run fails, wherever the writes fall */
    ctx c;
    init(&c);
    ebb_storage_fault f = {0};
    f.io_nth = 2;
    f.io_reads_only = 1;
    f.io_errno = EIO;
    expect_failure(&c, EBB_CONFIG_STRATEGY_MULTISTAGE, 0, &f, EBB_ERR_IO, "reading disk slot");
}

Test(faults, checksum_mismatch)
{
    ctx c;
    init(&c);
    c.corrupt_at = 50;
    expect_failure(&c, EBB_CONFIG_STRATEGY_MULTISTAGE, 1, NULL, EBB_ERR_CHECKSUM,
                   "checksum mismatch reading disk slot 0");
}

Test(faults, budget_too_small_says_what_fits)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.host.budget = 4 * 4096; /* 4 states of 4 KiB */
    wl w;
    wl_init(&w, 4096);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = 4096;
    o.steps = 300;
    o.config = &cfg;
    o.strategy = EBB_CONFIG_STRATEGY_STORE_ALL;
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = &w;
    ebb_run *run = NULL;
    cr_assert_eq(ebb_run_create(&o, &run), EBB_ERR_NO_MEMORY);
    cr_assert_null(run);
    cr_assert(strstr(ebb_last_error(), "store-all needs 299 slots"), "%s", ebb_last_error());
    cr_assert(strstr(ebb_last_error(), "holds 4 states of 4096 bytes"), "%s", ebb_last_error());
    cr_assert_eq(w.forward_calls, 0);
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
