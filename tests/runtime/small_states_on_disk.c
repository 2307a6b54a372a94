/* States below a page (8 and 48 bytes, and one of 1000) take host slots of a
 * cache line, which share pages; the disk tier moves them through the page
 * cache. Under multistage and disk-revolve, with a host budget of a few
 * slots so that most checkpoints go to disk, and with the disk's
 * completions delayed at random, the adjoint is bitwise the store-all
 * loop's. */
#include "workload.h"

static void run_small(size_t size, ebb_config_strategy s, uint64_t seed)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    /* slot counts from the budgets: 4 host slots (the runtime's working and
     * staging ones come on top), 400 disk slots (disk-revolve asks ~n/5) */
    cfg.host.budget = 4 * ebb_slot_stride(EBB_TIER_HOST, size, 0);
    cfg.disk.budget = 400 * ebb_slot_stride(EBB_TIER_DISK, size, 0);
    int64_t n = 400;
    wl w;
    wl_init(&w, size);
    w.steps_known = n;
    w.check_buffers = 1;
    ebb_run_options o = wl_options(&w, &cfg, n);
    o.strategy = (int)s;
    ebb_storage_fault f = {0};
    f.delay_us_max = 200;
    f.delay_seed = seed;
    ebb_run_stats rs;
    ebb_status st = wl_run(&o, &f, &w, seed, &rs);
    cr_assert_eq(st, EBB_OK, "%zu-byte states, %s: %s", size, ebb_config_strategy_name(s),
                 ebb_last_error());
    cr_assert_gt(rs.stores[EBB_TIER_DISK], 0, "%zu-byte states, %s: nothing stored on disk", size,
                 ebb_config_strategy_name(s));
    uint64_t want = wl_reference_like(&w, n, seed);
    cr_assert_eq(w.adjoint, want, "%zu-byte states, %s: adjoint %016llx, store-all %016llx", size,
                 ebb_config_strategy_name(s), (unsigned long long)w.adjoint,
                 (unsigned long long)want);
    cr_assert(w.order_ok);
    cr_assert_eq(w.buffer_faults, 0, "%s", w.buffer_fault);
    cr_assert_eq(wl_dir_entries(dir), 0, "files left in %s", dir);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(small_states_on_disk, multistage)
{
    run_small(8, EBB_CONFIG_STRATEGY_MULTISTAGE, 1);
    run_small(48, EBB_CONFIG_STRATEGY_MULTISTAGE, 2);
    run_small(1000, EBB_CONFIG_STRATEGY_MULTISTAGE, 3);
}

Test(small_states_on_disk, disk_revolve)
{
    run_small(8, EBB_CONFIG_STRATEGY_DISK_REVOLVE, 4);
    run_small(48, EBB_CONFIG_STRATEGY_DISK_REVOLVE, 5);
    run_small(1000, EBB_CONFIG_STRATEGY_DISK_REVOLVE, 6);
}
