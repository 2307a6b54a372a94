/* Statistics: what a run counts (forward steps, stores and restores per
 * tier, peak slots, bytes moved) equals what the replay validator counts for
 * the same schedule, and the sweeps' times add up. */
#include "workload.h"

static void check(ebb_config_strategy s, int32_t slots, int32_t slow, int64_t n, int inplace)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    const size_t size = 3000;
    wl w;
    wl_init(&w, size);
    w.steps_known = n;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = size;
    o.steps = n;
    o.config = &cfg;
    o.strategy = (int)s;
    o.slots = slots;
    o.slow_slots = slow;
    o.io_ratio = 3;
    if (inplace)
        o.forward_inplace = wl_forward_inplace_cb;
    else
        o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = &w;
    unsigned char x0[3000];
    wl_x0(&w, x0, 5);
    ebb_run *run;
    cr_assert_eq(ebb_run_create(&o, &run), EBB_OK, "%s", ebb_last_error());
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
    cr_assert_eq(ebb_run_forward(run, x0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    ebb_run_stats rs;
    cr_assert_eq(ebb_run_stats_get(run, &rs), EBB_OK);
    ebb_run_destroy(run);

    ebb_schedule_options so;
    ebb_schedule_options_init(&so);
    so.strategy = info.strategy;
    so.steps = n;
    so.slots = info.slots[info.fast_tier];
    so.fast_tier = info.fast_tier;
    so.slow_tier = info.slow_tier;
    so.io_ratio = 3;
    /* h-revolve: no step times given, so its costs are 1 each, the defaults */
    so.disk_slots = s == EBB_CONFIG_STRATEGY_MULTISTAGE || s == EBB_CONFIG_STRATEGY_H_REVOLVE
                        ? info.slots[info.slow_tier]
                    : s == EBB_CONFIG_STRATEGY_DISK_REVOLVE ? slow
                                                           : 0;
    ebb_schedule_stats vs;
    cr_assert_eq(ebb_schedule_validate(&so, &vs), EBB_OK, "%s", ebb_last_error());
    const char *name = ebb_config_strategy_name(s);
    cr_assert_eq(rs.steps, n, "%s", name);
    cr_assert_eq(rs.forward_steps, vs.forward_steps, "%s", name);
    cr_assert_eq(rs.recomputed_steps, vs.forward_steps - n, "%s", name);
    cr_assert_eq(rs.reverse_steps, n, "%s", name);
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        cr_assert_eq(rs.stores[t], vs.stores[t], "%s %s stores", name, ebb_tier_name(t));
        cr_assert_eq(rs.restores[t], vs.restores[t], "%s %s restores", name, ebb_tier_name(t));
        cr_assert_eq(rs.peak_slots[t], vs.peak_slots[t], "%s %s peak", name, ebb_tier_name(t));
    }
    uint64_t disk_in = (uint64_t)(vs.stores[EBB_TIER_DISK] + vs.transfers_in[EBB_TIER_DISK]);
    uint64_t disk_out = (uint64_t)(vs.restores[EBB_TIER_DISK] + vs.transfers_out[EBB_TIER_DISK]);
    cr_assert_eq(rs.bytes_written[EBB_TIER_DISK], disk_in * size, "%s", name);
    cr_assert_eq(rs.bytes_read[EBB_TIER_DISK], disk_out * size, "%s", name);
    /* host slots hold host states without a copy: only transfers count */
    cr_assert_eq(rs.bytes_written[EBB_TIER_HOST],
                 (uint64_t)vs.transfers_in[EBB_TIER_HOST] * size, "%s", name);
    /* out of place: never a copy on the compute thread; in place: some */
    if (inplace)
        cr_assert_gt(rs.copies, 0, "%s", name);
    else
        cr_assert_eq(rs.copies, 0, "%s: %lld copies", name, (long long)rs.copies);
    cr_assert_geq(rs.wall_s, rs.forward_callback_s + rs.reverse_callback_s, "%s", name);
    cr_assert_leq(rs.stall_total_s, rs.wall_s, "%s", name);
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(stats_match_plan, every_strategy_out_of_place)
{
    check(EBB_CONFIG_STRATEGY_STORE_ALL, 99, 0, 100, 0);
    check(EBB_CONFIG_STRATEGY_PERIODIC, 20, 0, 100, 0);
    check(EBB_CONFIG_STRATEGY_REVOLVE, 4, 0, 100, 0);
    check(EBB_CONFIG_STRATEGY_ONLINE, 4, 0, 100, 0);
    check(EBB_CONFIG_STRATEGY_MULTISTAGE, 3, 5, 100, 0);
    check(EBB_CONFIG_STRATEGY_DISK_REVOLVE, 3, 40, 100, 0);
    check(EBB_CONFIG_STRATEGY_H_REVOLVE, 3, 5, 100, 0);
}

Test(stats_match_plan, every_strategy_in_place)
{
    check(EBB_CONFIG_STRATEGY_REVOLVE, 4, 0, 100, 1);
    check(EBB_CONFIG_STRATEGY_MULTISTAGE, 3, 5, 100, 1);
    check(EBB_CONFIG_STRATEGY_DISK_REVOLVE, 3, 40, 100, 1);
    check(EBB_CONFIG_STRATEGY_H_REVOLVE, 3, 5, 100, 1);
}
