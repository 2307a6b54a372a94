/* Under the default disk budget ("auto": a share of the file system's free
 * space, tens of GiB on a large one) a run takes the disk it can use, not
 * the budget: with n known the tier holds at most n states; with n unknown
 * at most 1 GiB of slots, and its file space is reserved in extents: the
 * file is sized for the first 16 MiB of slots at creation and grows only as
 * slots above them are first written, so a short run of small states takes
 * 16 MiB, not 1 GiB. Every run's adjoint is the oracle's. The runs refuse
 * preallocation (a sparse file) so that, were one to take the whole budget,
 * it would take no space. */
#include <errno.h>
#include <sys/stat.h>

#include "storage/fault.h"
#include "workload.h"

enum { STEPS = 200, SIZE = 64, SLOT = 4096 };

/* What a run showed: its tiers, and its disk file's size at creation and
 * after the forward sweep, with the disk stores that sweep made. */
typedef struct seen {
    ebb_run_info info;
    int64_t file_at_create, file_after_forward, disk_stores;
} seen;

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

static void run(int known, seen *out)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.budget = EBB_BUDGET_AUTO; /* the default */
    cfg.disk.direct = 0;
    static wl w;
    wl_init(&w, SIZE);
    ebb_run_options o = wl_options(&w, &cfg, known ? STEPS : 0);
    o.strategy = EBB_STRATEGY_ASYNC;
    o.slots = 4; /* host: the disk tier holds the rest */
    if (known)
        w.steps_known = STEPS;
    else
        w.last_at = STEPS - 1;
    ebb_storage_fault f = {0};
    f.fallocate_errno = EOPNOTSUPP;
    unsigned char x0[SIZE];
    wl_x0(&w, x0, 5);
    ebb_run *r = NULL;
    cr_assert_eq(ebb_run_create_with_faults(&o, &f, &r), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_info_get(r, &out->info), EBB_OK);
    cr_assert_eq(out->info.slow_tier, EBB_TIER_DISK, "%s", out->info.reason);
    out->file_at_create = disk_file_size(r);
    cr_assert_eq(ebb_run_forward(r, x0, NULL), EBB_OK, "%s", ebb_last_error());
    out->file_after_forward = disk_file_size(r);
    ebb_run_stats s;
    cr_assert_eq(ebb_run_stats_get(r, &s), EBB_OK);
    out->disk_stores = s.stores[EBB_TIER_DISK];
    cr_assert_eq(ebb_run_reverse(r), EBB_OK, "%s", ebb_last_error());
    ebb_run_destroy(r);
    cr_assert_eq(w.reverse_calls, STEPS);
    cr_assert_eq(w.adjoint, wl_reference(SIZE, STEPS, 5));
    cr_assert_eq(wl_dir_entries(dir), 0, "the disk pool's files are removed");
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(unknown_n_disk_bounded, known_n_takes_n_states, .timeout = 60)
{
    seen s;
    run(1, &s);
    cr_log_info("n known: %d disk slots, %llu bytes", s.info.slots[EBB_TIER_DISK],
                (unsigned long long)s.info.bytes[EBB_TIER_DISK]);
    cr_expect_leq(s.info.slots[EBB_TIER_DISK], STEPS, "%d disk slots for n = %d",
                  s.info.slots[EBB_TIER_DISK], STEPS);
    cr_expect_leq(s.info.bytes[EBB_TIER_DISK], (uint64_t)STEPS * SLOT,
                  "the disk tier took %llu bytes for n = %d states of %d bytes",
                  (unsigned long long)s.info.bytes[EBB_TIER_DISK], STEPS, SIZE);
}

Test(unknown_n_disk_bounded, unknown_n_takes_at_most_1_gib, .timeout = 60)
{
    seen s;
    run(0, &s);
    cr_log_info("n unknown: %d disk slots, %llu bytes", s.info.slots[EBB_TIER_DISK],
                (unsigned long long)s.info.bytes[EBB_TIER_DISK]);
    cr_expect_leq(s.info.slots[EBB_TIER_DISK], (1 << 30) / SLOT, "%d disk slots",
                  s.info.slots[EBB_TIER_DISK]);
    cr_expect_leq(s.info.bytes[EBB_TIER_DISK], (uint64_t)1 << 30,
                  "the disk tier took %llu bytes with n unknown",
                  (unsigned long long)s.info.bytes[EBB_TIER_DISK]);
    cr_expect_gt(s.info.slots[EBB_TIER_DISK], STEPS, "%d disk slots: n unknown is given room",
                 s.info.slots[EBB_TIER_DISK]);
}

Test(unknown_n_disk_bounded, unknown_n_short_run_takes_first_extent, .timeout = 60)
{
    seen s;
    run(0, &s);
    cr_log_info("%d disk slots (%llu bytes) given; the file: %lld bytes at creation, %lld after "
                "the forward sweep (%lld disk stores)", s.info.slots[EBB_TIER_DISK],
                (unsigned long long)s.info.bytes[EBB_TIER_DISK], (long long)s.file_at_create,
                (long long)s.file_after_forward, (long long)s.disk_stores);
    cr_assert_gt(s.info.slots[EBB_TIER_DISK], 100000, "the disk tier is given many slots");
    cr_expect_leq(s.file_at_create, (int64_t)16 << 20, "%lld bytes at creation",
                  (long long)s.file_at_create);
    cr_expect_leq(s.file_after_forward, (int64_t)16 << 20, "%lld bytes after %d steps",
                  (long long)s.file_after_forward, STEPS);
}
