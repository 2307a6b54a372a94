/* A run with n unknown reserves its disk tier's file space in extents: under
 * the default disk budget ("auto": up to 1 GiB of slots with n unknown) the
 * file is sized for the first 16 MiB of slots at creation and grows only as
 * slots above them are first written, so a short run of small states takes
 * 16 MiB, not 1 GiB. The run refuses preallocation (the file is sized
 * sparse instead) so that the test takes no space. The adjoint is the
 * oracle's. */
#include <errno.h>
#include <sys/stat.h>

#include "storage/fault.h"
#include "workload.h"

enum { STEPS = 200, SIZE = 64 };

static int64_t disk_file_size(ebb_run *r)
{
    ebb_pool *disk = ebb_run_debug_pool(r, EBB_TIER_DISK);
    cr_assert_not_null(disk);
    int fd = -1;
    cr_assert_eq(ebb_disk_debug_locate(disk, 0, 0, &fd, NULL, NULL), EBB_OK, "%s",
                 ebb_last_error());
    struct stat st;
    cr_assert_eq(fstat(fd, &st), 0);
    return (int64_t)st.st_size;
}

Test(unknown_n_disk_extents, short_run_takes_first_extent, .timeout = 60)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.budget = EBB_BUDGET_AUTO; /* the default */
    cfg.disk.direct = 0;
    static wl w;
    wl_init(&w, SIZE);
    ebb_run_options o = wl_options(&w, &cfg, 0);
    o.strategy = EBB_STRATEGY_ASYNC;
    o.slots = 4; /* host: the disk tier holds the rest */
    w.last_at = STEPS - 1;
    ebb_storage_fault f = {0};
    f.fallocate_errno = EOPNOTSUPP;
    unsigned char x0[SIZE];
    wl_x0(&w, x0, 5);
    ebb_run *r = NULL;
    cr_assert_eq(ebb_run_create_with_faults(&o, &f, &r), EBB_OK, "%s", ebb_last_error());
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(r, &info), EBB_OK);
    cr_assert_eq(info.slow_tier, EBB_TIER_DISK, "%s", info.reason);
    int64_t at_create = disk_file_size(r);
    cr_assert_eq(ebb_run_forward(r, x0, NULL), EBB_OK, "%s", ebb_last_error());
    int64_t after_forward = disk_file_size(r);
    ebb_run_stats s;
    cr_assert_eq(ebb_run_stats_get(r, &s), EBB_OK);
    cr_assert_eq(ebb_run_reverse(r), EBB_OK, "%s", ebb_last_error());
    ebb_run_destroy(r);
    cr_log_info("%d disk slots (%llu bytes) given; the file: %lld bytes at creation, %lld after "
                "the forward sweep (%lld disk stores)", info.slots[EBB_TIER_DISK],
                (unsigned long long)info.bytes[EBB_TIER_DISK], (long long)at_create,
                (long long)after_forward, (long long)s.stores[EBB_TIER_DISK]);
    cr_assert_gt(info.slots[EBB_TIER_DISK], 100000, "the disk tier is given many slots");
    cr_expect_leq(at_create, (int64_t)16 << 20, "%lld bytes at creation", (long long)at_create);
    cr_expect_leq(after_forward, (int64_t)16 << 20, "%lld bytes after %d steps",
                  (long long)after_forward, STEPS);
    cr_assert_eq(w.reverse_calls, STEPS);
    cr_assert_eq(w.adjoint, wl_reference(SIZE, STEPS, 5));
    cr_assert_eq(wl_dir_entries(dir), 0, "the disk pool's files are removed");
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
