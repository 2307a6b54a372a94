/* async with n unknown uses every slow slot its budget gives (no
 * hidden caps: a cap of 4,096 slots that thinned would take 618,732
 * forward steps here against 224,999 with n known). A disk budget of 100,000
 * slots, n = 150,000:
 * with n unknown the generator is given all 100,000 disk slots, fills them,
 * thins once to every other state, and ends with the states n known spaces
 * from the start (every second one), so both recompute the same; the
 * adjoint is the oracle's in both.
 *
 * The store decisions follow the disk channel (async.c asks whether the last
 * write completed). So that the two runs see the same channel, whatever the
 * machine's load, the run's io here waits for a transfer whenever the engine
 * tests it: the channel is then free at every decision, as for a disk that
 * keeps up with the steps. Everything else is the real io (io_storage.c,
 * which holds nothing, so its operations are called with this io). */
#include <time.h>

#include "workload.h"

typedef struct waiting_io {
    rt_io base;
    rt_io_ops ops;
    rt_io *real;
} waiting_io;

static waiting_io wio;

static ebb_status test_waits(rt_io *io, const rt_ticket *t, int *done)
{
    (void)io;
    ebb_status st = wio.real->ops->test(wio.real, t, done);
    if (st == EBB_OK && !*done) {
        st = wio.real->ops->wait(wio.real, t);
        *done = st == EBB_OK;
    }
    return st;
}

static rt_io *waiting(void)
{
    wio.real = rt_io_storage();
    wio.ops = *wio.real->ops;
    wio.ops.test = test_waits;
    wio.base.ops = &wio.ops;
    return &wio.base;
}

enum { SLOW_SLOTS = 100000, STEPS = 150000, SIZE = 64 };

typedef struct outcome {
    ebb_run_stats stats;
    int32_t disk_slots; /* ebb_run_info.slots[disk]: what the generator may use */
    double seconds;
} outcome;

static void run(int known, outcome *out)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.budget = (uint64_t)SLOW_SLOTS * 4096; /* a disk slot is 4 KiB */
    cfg.disk.direct = 0; /* buffered: the test's writes stay in the page cache */
    wl w;
    wl_init(&w, SIZE);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = SIZE;
    o.config = &cfg;
    o.strategy = EBB_STRATEGY_ASYNC;
    o.slots = 4; /* host: the fast tier, for the reverse sweep's Revolve */
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = &w;
    if (known) {
        o.steps = STEPS;
        w.steps_known = STEPS;
    } else {
        o.steps = 0; /* the forward says which step is the last */
        w.last_at = STEPS - 1;
    }
    rt_create_args args;
    cr_assert_eq(rt_args_from_config(&o, &cfg, &args), EBB_OK, "%s", ebb_last_error());
    args.io = waiting();
    unsigned char x0[SIZE];
    wl_x0(&w, x0, 19);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ebb_run *r = NULL;
    cr_assert_eq(rt_run_create(&args, &r), EBB_OK, "%s", ebb_last_error());
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(r, &info), EBB_OK);
    cr_assert_eq(info.strategy, EBB_STRATEGY_ASYNC, "%s", info.reason);
    cr_assert_eq(info.slow_tier, EBB_TIER_DISK);
    out->disk_slots = info.slots[EBB_TIER_DISK];
    void *xn = NULL;
    cr_assert_eq(ebb_run_forward(r, x0, &xn), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(r), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_stats_get(r, &out->stats), EBB_OK);
    ebb_run_destroy(r);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_assert_eq(out->stats.steps, STEPS);
    cr_assert_eq(out->stats.reverse_steps, STEPS);
    cr_assert_eq(w.reverse_calls, STEPS);
    cr_assert(w.order_ok, "reverse steps out of order");
    uint64_t want = wl_reference(SIZE, STEPS, 19);
    cr_assert_eq(w.adjoint, want, "n %s: adjoint %016llx, store-all %016llx",
                 known ? "known" : "unknown", (unsigned long long)w.adjoint,
                 (unsigned long long)want);
    cr_assert_eq(wl_dir_entries(dir), 0, "the disk pool's files are removed");
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(async_unknown_n_budget, whole_slow_budget_used, .timeout = 120)
{
    outcome unknown, known;
    run(0, &unknown);
    run(1, &known);
    cr_log_info("disk slots given: n unknown %d, n known %d; peak: %d / %d; forward steps "
                "%lld / %lld; %.2f s / %.2f s",
                unknown.disk_slots, known.disk_slots, unknown.stats.peak_slots[EBB_TIER_DISK],
                known.stats.peak_slots[EBB_TIER_DISK], (long long)unknown.stats.forward_steps,
                (long long)known.stats.forward_steps, unknown.seconds, known.seconds);
    fprintf(stderr,
            "async_unknown_n_budget: disk slots given: n unknown %d, n known %d; peak: %d / %d; "
            "forward steps %lld / %lld; %.2f s / %.2f s\n",
            unknown.disk_slots, known.disk_slots, unknown.stats.peak_slots[EBB_TIER_DISK],
            known.stats.peak_slots[EBB_TIER_DISK], (long long)unknown.stats.forward_steps,
            (long long)known.stats.forward_steps, unknown.seconds, known.seconds);
    /* n unknown: the whole budget, no cap */
    cr_assert_eq(unknown.disk_slots, SLOW_SLOTS, "%d disk slots given of %d", unknown.disk_slots,
                 SLOW_SLOTS);
    cr_assert_gt(unknown.stats.peak_slots[EBB_TIER_DISK], 4096, "peak %d disk slots",
                 unknown.stats.peak_slots[EBB_TIER_DISK]);
    cr_assert_eq(unknown.stats.peak_slots[EBB_TIER_DISK], SLOW_SLOTS, "peak %d disk slots",
                 unknown.stats.peak_slots[EBB_TIER_DISK]);
    /* n known: spacing 2 from the start, 75,000 states */
    cr_assert_eq(known.stats.peak_slots[EBB_TIER_DISK], STEPS / 2);
    /* within 5 % of n known (here the same states in the end) */
    cr_assert_leq(unknown.stats.forward_steps * 100, known.stats.forward_steps * 105,
                  "forward steps: %lld with n unknown, %lld with n known",
                  (long long)unknown.stats.forward_steps, (long long)known.stats.forward_steps);
}
