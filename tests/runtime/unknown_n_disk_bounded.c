/* Under the default disk budget ("auto": a share of the file system's free
 * space, tens of GiB on a large one) a run takes the disk it can use, not
 * the budget: with n known the tier holds at most n states; with n unknown
 * at most 1 GiB of slots. Both runs' adjoints are the oracle's. The runs
 * refuse preallocation (a sparse file) so that, were one to take the whole
 * budget, it would take no space. */
#include <errno.h>

#include "storage/fault.h"
#include "workload.h"

enum { STEPS = 200, SIZE = 64, SLOT = 4096 };

static void run(int known, ebb_run_info *info)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.budget = EBB_BUDGET_AUTO; /* the default */
    cfg.disk.direct = 0;
    wl w;
    wl_init(&w, SIZE);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = SIZE;
    o.config = &cfg;
    o.strategy = EBB_STRATEGY_ASYNC;
    o.slots = 4; /* host: the disk tier holds the rest */
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = &w;
    if (known) {
        o.steps = STEPS;
        w.steps_known = STEPS;
    } else {
        o.steps = 0;
        w.last_at = STEPS - 1;
    }
    ebb_storage_fault f = {0};
    f.fallocate_errno = EOPNOTSUPP;
    unsigned char x0[SIZE];
    wl_x0(&w, x0, 5);
    ebb_run *r = NULL;
    cr_assert_eq(ebb_run_create_with_faults(&o, &f, &r), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_info_get(r, info), EBB_OK);
    cr_assert_eq(info->slow_tier, EBB_TIER_DISK, "%s", info->reason);
    cr_assert_eq(ebb_run_forward(r, x0, NULL), EBB_OK, "%s", ebb_last_error());
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
    ebb_run_info info;
    run(1, &info);
    cr_log_info("n known: %d disk slots, %llu bytes", info.slots[EBB_TIER_DISK],
                (unsigned long long)info.bytes[EBB_TIER_DISK]);
    cr_expect_leq(info.slots[EBB_TIER_DISK], STEPS, "%d disk slots for n = %d",
                  info.slots[EBB_TIER_DISK], STEPS);
    cr_expect_leq(info.bytes[EBB_TIER_DISK], (uint64_t)STEPS * SLOT,
                  "the disk tier took %llu bytes for n = %d states of %d bytes",
                  (unsigned long long)info.bytes[EBB_TIER_DISK], STEPS, SIZE);
}

Test(unknown_n_disk_bounded, unknown_n_takes_at_most_1_gib, .timeout = 60)
{
    ebb_run_info info;
    run(0, &info);
    cr_log_info("n unknown: %d disk slots, %llu bytes", info.slots[EBB_TIER_DISK],
                (unsigned long long)info.bytes[EBB_TIER_DISK]);
    cr_expect_leq(info.slots[EBB_TIER_DISK], (1 << 30) / SLOT, "%d disk slots",
                  info.slots[EBB_TIER_DISK]);
    cr_expect_leq(info.bytes[EBB_TIER_DISK], (uint64_t)1 << 30,
                  "the disk tier took %llu bytes with n unknown",
                  (unsigned long long)info.bytes[EBB_TIER_DISK]);
    cr_expect_gt(info.slots[EBB_TIER_DISK], STEPS, "%d disk slots: n unknown is given room",
                 info.slots[EBB_TIER_DISK]);
}
