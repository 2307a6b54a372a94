/* Exactness: over many random (n, strategy, slots, tiers, forward form)
 * cases, the adjoint is bitwise the one the plain store-everything loop
 * gives, with random delays injected into the disk tier's completions so
 * that a missing wait shows up as a wrong adjoint. At every step the run's
 * free-buffer lists are checked against its buffers (buffers.c). */
#include "workload.h"


/* h-revolve's costs come from the step times and tier.disk.max_bandwidth
 * (run_setup.c): random ones, so that its schedule ranges from memory only
 * (a dear disk) to disk-heavy (a free one). The times are tiny so that the
 * paced disk stays fast: W = size / bandwidth / forward_seconds. Disk only:
 * h-revolve needs a tier slower than its fast one, so one host slot (x_0's)
 * and a free disk, where nearly every checkpoint goes. */
static void h_revolve_case(wl_rng *r, ebb_run_options *o, ebb_config *cfg, int disk_only)
{
    static const double per_step[] = {0.0, 0.01, 0.5, 2.0, 8.0}; /* W in forward steps */
    o->forward_seconds = (double)wl_pick(r, 0, 3) * 1e-6;
    o->reverse_seconds = (double)wl_pick(r, 0, 3) * 1e-6;
    double w = per_step[wl_pick(r, 0, 4)];
    if (disk_only) {
        o->slots = 1;
        w = 0.0;
    }
    double bw = o->forward_seconds > 0 && w > 0 ? (double)o->state_size / (w * o->forward_seconds)
                                                : 1e15;
    cfg->disk.max_bandwidth = (uint64_t)bw > 0 ? (uint64_t)bw : 1;
}

/* > 0: a run with n unknown makes its host pool ready from this many slots
 * (fault.ready_slots), so that it grows many times during the forward */
static int32_t ready_first;

/* only >= 0: every case runs that strategy */
/* compress: lossless compression on the disk tier (tier.disk.compression),
 * over states that compress (wl.sparse). */
static void run_compressed_cases(uint64_t seed, int cases, int disk_only, int inplace,
                                 uint32_t delay_us, int only, int compress)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    if (compress) {
        cfg.disk.compression.mode = EBB_COMPRESSION_LOSSLESS;
        cfg.disk.compression.codec = (ebb_codec_name)(seed % EBB_CODEC_COUNT);
        cfg.disk.codec_threads = 1 + (int32_t)(seed % 3);
    }
    wl_rng r = {seed};
    int ran = 0, refused = 0;
    int64_t disk_stores = 0;
    uint64_t before = 0, after = 0;
    int32_t most_extents = 0;
    for (int c = 0; c < cases; c++) {
        size_t size = (size_t)wl_pick(&r, 1, 600);
        int64_t n = wl_pick(&r, 1, (c % 10 == 0) ? 3000 : (c % 5 == 0) ? 800 : 120);
        if (compress) { /* a compressed state shrinks only once over a 4 KiB block */
            size = (size_t)wl_pick(&r, 8192, 40000);
            n = wl_pick(&r, 1, (c % 5 == 0) ? 300 : 60);
        }
        ebb_config_strategy s = wl_pick_strategy(&r);
        if (only >= 0)
            s = (ebb_config_strategy)only;
        ebb_run_options o;
        wl_random_options(&r, c, size, n, s, &cfg, &o);
        if (disk_only && s != EBB_CONFIG_STRATEGY_H_REVOLVE) {
            o.fast_tier = EBB_TIER_DISK;
            if (s == EBB_CONFIG_STRATEGY_MULTISTAGE || s == EBB_CONFIG_STRATEGY_DISK_REVOLVE)
                s = o.strategy = EBB_CONFIG_STRATEGY_REVOLVE;
        }
        if (s == EBB_CONFIG_STRATEGY_STORE_ALL)
            o.slots = (int32_t)(n > 1 ? n - 1 : 1);
        cfg.disk.max_bandwidth = 0;
        if (compress) /* a budget sized for an earlier case's state may hold none of these */
            cfg.host.budget = cfg.disk.budget = UINT64_C(1) << 30;
        if (s == EBB_CONFIG_STRATEGY_H_REVOLVE)
            h_revolve_case(&r, &o, &cfg, disk_only);
        if (c % 4 == 3) {
            /* slot counts from the budgets, as a configuration gives them:
             * host and disk slots as ebb_slot_stride rounds them */
            uint64_t page = ((uint64_t)size + 4095) / 4096 * 4096;
            cfg.host.budget = (uint64_t)o.slots * ebb_slot_stride(EBB_TIER_HOST, size, 0);
            cfg.disk.budget = (uint64_t)o.slow_slots * page;
            o.slots = 0;
            o.slow_slots = 0;
        }
        wl w;
        wl_init(&w, size);
        w.steps_known = n;
        w.check_buffers = 1;
        w.sparse = compress;
        if ((s == EBB_CONFIG_STRATEGY_ONLINE || s == EBB_CONFIG_STRATEGY_ASYNC) && (c & 1)) {
            o.steps = 0; /* n unknown: the forward says which step is the last */
            w.steps_known = 0;
            w.last_at = n - 1;
        }
        if (inplace) {
            o.forward = NULL;
            o.forward_inplace = wl_forward_inplace_cb;
        } else {
            o.forward = wl_forward_cb;
        }
        o.reverse = wl_reverse_cb;
        o.user = &w;
        ebb_storage_fault f = {0};
        f.delay_us_max = delay_us;
        f.delay_seed = seed + (uint64_t)c;
        f.ready_slots = ready_first;
        f.codec_always_pays = compress; /* every state that shrinks compressed */
        ebb_run_stats rs;
        ebb_status st = wl_run(&o, &f, &w, seed + (uint64_t)c, &rs);
        if (st == EBB_ERR_INVALID_ARG || st == EBB_ERR_NO_MEMORY) {
            refused++; /* a slot count the strategy cannot use, e.g. periodic with too few */
            continue;
        }
        cr_assert_eq(st, EBB_OK, "case %d: n %lld, %s, %d slots, %d slow: %s", c, (long long)n,
                     ebb_config_strategy_name(s), o.slots, o.slow_slots, ebb_last_error());
        uint64_t want = wl_reference_like(&w, n, seed + (uint64_t)c);
        cr_assert_eq(w.adjoint, want,
                     "case %d: n %lld, size %zu, %s, %d slots, %d slow, %s, %s: adjoint %016llx, "
                     "store-all %016llx",
                     c, (long long)n, size, ebb_config_strategy_name(s), o.slots, o.slow_slots,
                     disk_only ? "disk only" : "host+disk", inplace ? "in place" : "out of place",
                     (unsigned long long)w.adjoint, (unsigned long long)want);
        cr_assert(w.order_ok, "case %d: reverse steps out of order", c);
        cr_assert_eq(w.buffer_faults, 0, "case %d: %s: %lld steps found the buffer lists wrong, "
                     "first: %s", c, ebb_config_strategy_name(s), (long long)w.buffer_faults,
                     w.buffer_fault);
        cr_assert_eq(w.reverse_calls, n);
        cr_assert_eq(rs.reverse_steps, n);
        cr_assert_eq(rs.forward_steps, w.forward_calls);
        cr_assert_eq(rs.forward_steps, n + rs.recomputed_steps);
        disk_stores += rs.stores[EBB_TIER_DISK];
        if (w.host_extents > most_extents)
            most_extents = w.host_extents;
        before += rs.bytes_before_compression;
        after += rs.bytes_after_compression;
        if (disk_only && s == EBB_CONFIG_STRATEGY_H_REVOLVE && n >= 3)
            cr_assert_gt(rs.stores[EBB_TIER_DISK], 0, "case %d: n %lld, h-revolve, one host "
                         "slot and a free disk stored nothing on disk", c, (long long)n);
        ran++;
    }
    cr_assert_gt(ran, cases * 2 / 3, "only %d of %d cases ran (%d refused)", ran, cases, refused);
    if (ready_first > 0)
        cr_log_info("the host pool made ready in up to %d extents in a run", most_extents);
    if (ready_first > 0) /* grown many times in a run */
        cr_assert_geq(most_extents, 8, "at most %d extents in a run", most_extents);
    if (only == EBB_CONFIG_STRATEGY_H_REVOLVE)
        cr_assert_gt(disk_stores, 0, "h-revolve never stored on disk");
    if (compress) /* the codec ran, and shrank the states */
        cr_assert(before > 0 && after < before, "compressed %llu bytes to %llu",
                  (unsigned long long)before, (unsigned long long)after);
    else
        cr_assert_eq(before, 0);
    cr_assert_eq(wl_dir_entries(dir), 0, "files left in %s", dir);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

static void run_cases(uint64_t seed, int cases, int disk_only, int inplace, uint32_t delay_us,
                      int only)
{
    run_compressed_cases(seed, cases, disk_only, inplace, delay_us, only, 0);
}

Test(exact_property, host_and_disk_out_of_place) { run_cases(1, 120, 0, 0, 0, -1); }
/* n unknown (every other case) with the host pool made ready from one slot:
 * it grows, doubling, as the forward stores states */
Test(exact_property, unknown_n_online_growing)
{
    ready_first = 1;
    run_cases(13, 80, 0, 0, 0, EBB_CONFIG_STRATEGY_ONLINE);
}
Test(exact_property, unknown_n_async_growing)
{
    ready_first = 1;
    run_cases(14, 60, 0, 1, 200, EBB_CONFIG_STRATEGY_ASYNC);
}
Test(exact_property, host_and_disk_in_place) { run_cases(2, 80, 0, 1, 0, -1); }
Test(exact_property, disk_only) { run_cases(3, 60, 1, 0, 0, -1); }
Test(exact_property, delayed_disk_completions) { run_cases(4, 60, 0, 0, 300, -1); }
Test(exact_property, delayed_disk_in_place) { run_cases(5, 40, 0, 1, 300, -1); }
/* async: its store decisions follow the disk's completions, so the delays
 * give each case a different stream */
Test(exact_property, async_delayed) { run_cases(6, 80, 0, 0, 300, EBB_CONFIG_STRATEGY_ASYNC); }
Test(exact_property, async_in_place) { run_cases(7, 50, 0, 1, 200, EBB_CONFIG_STRATEGY_ASYNC); }
/* h-revolve: random costs, host+disk (delayed completions, both forward
 * forms) and one host slot with the rest on disk */
Test(exact_property, h_revolve_host_and_disk)
{
    run_cases(8, 60, 0, 0, 300, EBB_CONFIG_STRATEGY_H_REVOLVE);
    run_cases(9, 40, 0, 1, 0, EBB_CONFIG_STRATEGY_H_REVOLVE);
}
Test(exact_property, h_revolve_disk_heavy)
{
    run_cases(10, 60, 1, 0, 300, EBB_CONFIG_STRATEGY_H_REVOLVE);
}

/* Lossless compression on the disk tier: bitwise the same gradient under
 * every strategy, out of place and in place, with delayed completions. */
Test(exact_property, lossless_compression) { run_compressed_cases(11, 80, 0, 0, 0, -1, 1); }
Test(exact_property, lossless_compression_disk_only) { run_compressed_cases(12, 40, 1, 0, 0, -1, 1); }
Test(exact_property, lossless_compression_delayed_in_place)
{
    run_compressed_cases(13, 40, 0, 1, 300, -1, 1);
}
Test(exact_property, lossless_compression_async)
{
    run_compressed_cases(14, 40, 0, 0, 200, EBB_CONFIG_STRATEGY_ASYNC, 1);
}
