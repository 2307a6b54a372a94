/* auto's disk measurement (ebb_plan_channels_measure) stays within the
 * budgets: it measured 8 states whatever tier.disk.budget and
 * tier.host.budget said, so 4 MiB states on a 20 MiB file system with a
 * 16 MiB disk budget failed ("lower tier.disk.budget"), and it wrote and
 * allocated 32 MiB beyond budgets of 16 and 8 MiB. */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "ebb/ebb.h"
#include "support/process_memory.h"

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/ebb-measure-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    umount2(dir, MNT_DETACH);
    rmdir(dir);
}

static ebb_status measure(uint64_t host_budget, uint64_t disk_budget, ebb_plan_problem *p)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    const char *paths[] = {dir};
    cr_assert_eq(ebb_config_set_disk_paths(&cfg, paths, 1), EBB_OK);
    cfg.gpu.enabled = 0;
    cfg.disk.enabled = 1;
    cfg.host.budget = host_budget;
    cfg.disk.budget = disk_budget;
    ebb_plan_problem_init(p);
    p->steps = 100;
    p->state_size = (size_t)4 << 20;
    p->forward_s = 0.01;
    p->reverse_s = 0.01;
    ebb_status st = ebb_plan_channels_measure(p, &cfg);
    ebb_config_dispose(&cfg);
    return st;
}

Test(planner_measure_budgets, small_file_system, .init = make_dir, .fini = remove_dir)
{
    /* a private mount namespace: the 20 MiB tmpfs is this test's alone */
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        cr_skip_test("cannot make a mount namespace here (%s): needs root and "
                     "unshare(CLONE_NEWNS)", strerror(errno));
    if (mount("tmpfs", dir, "tmpfs", 0, "size=20m") != 0)
        cr_skip_test("cannot mount a 20 MiB tmpfs on %s: %s", dir, strerror(errno));
    ebb_plan_problem p;
    cr_assert_eq(measure(UINT64_C(64) << 20, UINT64_C(16) << 20, &p), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_gt(p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth, 0);
    cr_expect_gt(p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth, 0);
}

Test(planner_measure_budgets, host_budget, .init = make_dir, .fini = remove_dir)
{
    long before = ebb_test_peak_kib();
    ebb_plan_problem p;
    cr_assert_eq(measure(UINT64_C(8) << 20, UINT64_C(64) << 20, &p), EBB_OK, "%s",
                 ebb_last_error());
    long grew = ebb_test_peak_kib() - before;
    /* 8 MiB of host slots and the 4 MiB probe (with 8 slots: 36 MiB) */
    cr_expect_lt(grew, 20 << 10, "the measurement's memory grew by %ld KiB, beyond the host "
                 "budget of 8 MiB and its 4 MiB probe", grew);
}
