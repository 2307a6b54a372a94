/* A run given a large disk budget writes its tables of disk slots (the
 * runtime's transfers and cached buffers, async's free slots) only for the
 * slots it uses: async, n unknown, a disk budget of 4,194,304 slots (16 GiB
 * of 4 KiB slots, preallocation refused so that no space is taken) and 50
 * steps raise the peak resident memory by less than 24 MiB from creation
 * to destruction (a table of transfers alone, written whole, is over 64
 * MiB). The adjoint is the oracle's. */
#include <errno.h>
#include <sys/statvfs.h>

#include "storage/fault.h"
#include "support/process_memory.h"
#include "workload.h"

enum { STEPS = 50, SIZE = 64 };
#define DISK_SLOTS (INT64_C(1) << 22)

Test(disk_tables_lazy, large_disk_budget_short_run, .timeout = 60)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    struct statvfs vfs;
    cr_assert_eq(statvfs(dir, &vfs), 0);
    if ((uint64_t)vfs.f_bavail * vfs.f_frsize < (uint64_t)DISK_SLOTS * 4096 * 2) {
        rmdir(dir);
        cr_skip_test("%s has less than 32 GiB free: the pool's space check would refuse 16 GiB",
                     dir);
    }
    cfg.disk.budget = (uint64_t)DISK_SLOTS * 4096;
    cfg.disk.direct = 0;
    wl w;
    wl_init(&w, SIZE);
    w.last_at = STEPS - 1;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = SIZE;
    o.config = &cfg;
    o.strategy = EBB_STRATEGY_ASYNC;
    o.slots = 4;
    o.steps = 0;
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = &w;
    ebb_storage_fault f = {0};
    f.fallocate_errno = EOPNOTSUPP; /* a sparse file */
    unsigned char x0[SIZE];
    wl_x0(&w, x0, 6);
    long before = ebb_test_peak_kib();
    ebb_run *r = NULL;
    cr_assert_eq(ebb_run_create_with_faults(&o, &f, &r), EBB_OK, "%s", ebb_last_error());
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(r, &info), EBB_OK);
    cr_assert_eq(info.slots[EBB_TIER_DISK], DISK_SLOTS, "%d disk slots",
                 info.slots[EBB_TIER_DISK]);
    cr_assert_eq(ebb_run_forward(r, x0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(r), EBB_OK, "%s", ebb_last_error());
    ebb_run_destroy(r);
    long rise = ebb_test_peak_kib() - before;
    cr_log_info("peak resident memory rose by %ld KiB", rise);
    if (!EBB_TEST_ASAN) /* its shadow is written at each allocation */
        cr_expect_lt(rise, 24 * 1024, "peak resident memory rose by %ld KiB for %lld disk slots "
                 "and %d steps", rise, (long long)DISK_SLOTS, STEPS);
    cr_assert_eq(w.reverse_calls, STEPS);
    cr_assert_eq(w.adjoint, wl_reference(SIZE, STEPS, 6));
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
