/* h-revolve's costs in the planner and the runtime (runtime/h_costs.c):
 * W = one state's write time to the slow tier over the forward step time,
 * R the same for a read, B = reverse / forward. The planner's prediction is
 * the schedule built with the costs computed here from the channels, over
 * random problems with unequal write and read figures; the runtime's with
 * the step times and tier.disk.max_bandwidth, or 1 each where they are not
 * known, as ebb_run_info.reason says. */
#include <math.h>

#include "support/schedule_support.h"
#include "workload.h"

static double hop(double size, const ebb_plan_channel *ch, double pace)
{
    double t = ch->bandwidth > 0 ? size / ch->bandwidth : 0.0;
    if (pace > 0 && size / pace > t)
        t = size / pace;
    return t + ch->latency;
}

static int same_counts(const ebb_schedule_stats *a, const ebb_schedule_stats *b)
{
    if (a->forward_steps != b->forward_steps)
        return 0;
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        if (a->stores[t] != b->stores[t] || a->restores[t] != b->restores[t])
            return 0;
    return 1;
}

Test(h_revolve_costs, planner_predicts_the_schedule_of_its_channels_costs)
{
    uint64_t rng = 0x2545f4914f6cdd1du;
    int checked = 0, swap_differs = 0;
    for (int i = 0; i < 300; i++) {
        int gpu = i % 4 == 3; /* gpu state: fast gpu, slow host over the pcie channels */
        int64_t n = rng_range(&rng, 1, 250);
        int32_t c = (int32_t)rng_range(&rng, 1, 8);
        int32_t d = (int32_t)rng_range(&rng, 0, (int32_t)n + 3);
        ebb_plan_problem p;
        ebb_plan_problem_init(&p);
        p.steps = n;
        p.state_size = (size_t)rng_range(&rng, 1, 1 << 20);
        p.state_tier = gpu ? EBB_TIER_GPU : EBB_TIER_HOST;
        p.forward_s = (double)rng_range(&rng, 1, 1000) * 1e-5;
        p.reverse_s = (double)rng_range(&rng, 0, 1000) * 1e-5;
        p.disk_fallback = 0;
        int wc = gpu ? EBB_PLAN_GPU_TO_HOST : EBB_PLAN_HOST_TO_DISK;
        int rc = gpu ? EBB_PLAN_HOST_TO_GPU : EBB_PLAN_DISK_TO_HOST;
        /* 0 = infinite; otherwise a state moves in 0.01 .. 10 forward steps */
        for (int k = 0; k < 2; k++) {
            ebb_plan_channel *ch = &p.channel[k ? rc : wc];
            int64_t r = rng_range(&rng, 0, 1000);
            ch->bandwidth = r == 0 ? 0.0 : (double)p.state_size / (p.forward_s * (double)r * 1e-2);
            ch->latency = rng_range(&rng, 0, 3) == 0 ? (double)rng_range(&rng, 1, 100) * 1e-6 : 0.0;
        }
        if (!gpu && rng_range(&rng, 0, 3) == 0)
            p.disk_pace =
                (double)p.state_size / (p.forward_s * (double)rng_range(&rng, 1, 500) * 1e-2);
        p.slots[gpu ? EBB_TIER_GPU : EBB_TIER_HOST] = c;
        p.slots[gpu ? EBB_TIER_HOST : EBB_TIER_DISK] = d;

        ebb_plan_prediction pr;
        cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_H_REVOLVE, &pr), EBB_OK, "%s",
                     ebb_last_error());
        if (d == 0) { /* no slow tier: h-revolve does not fit */
            cr_assert(!pr.fits, "case %d: fits with no slow slots", i);
            continue;
        }
        cr_assert(pr.fits, "case %d: %s", i, pr.why_not);
        double size = (double)p.state_size, pace = gpu ? 0.0 : p.disk_pace;
        ebb_schedule_options o = opts(EBB_STRATEGY_H_REVOLVE, n, c > n ? (int32_t)n : c);
        o.fast_tier = gpu ? EBB_TIER_GPU : EBB_TIER_HOST;
        o.slow_tier = gpu ? EBB_TIER_HOST : EBB_TIER_DISK;
        o.disk_slots = d > n ? (int32_t)n : d;
        o.write_cost = hop(size, &p.channel[wc], pace) / p.forward_s;
        o.read_cost = hop(size, &p.channel[rc], pace) / p.forward_s;
        o.reverse_cost = p.reverse_s / p.forward_s;
        ebb_schedule_stats st = validated(&o);
        const char *what = gpu ? "gpu/host" : "host/disk";
        cr_assert_eq(pr.forward_steps, st.forward_steps,
                     "case %d %s n=%lld C=%d D=%d W=%g R=%g: forward %lld, want %lld", i, what,
                     (long long)n, c, d, o.write_cost, o.read_cost, (long long)pr.forward_steps,
                     (long long)st.forward_steps);
        for (int t = 0; t < EBB_TIER_COUNT; t++) {
            cr_assert_eq(pr.stores[t], st.stores[t], "case %d %s W=%g R=%g: tier %d stores %lld, "
                         "want %lld", i, what, o.write_cost, o.read_cost, t,
                         (long long)pr.stores[t], (long long)st.stores[t]);
            cr_assert_eq(pr.restores[t], st.restores[t], "case %d %s W=%g R=%g: tier %d restores",
                         i, what, o.write_cost, o.read_cost, t);
        }
        /* the property can tell W from R: swapped, some schedules differ */
        double w = o.write_cost;
        o.write_cost = o.read_cost;
        o.read_cost = w;
        ebb_schedule_stats sw = validated(&o);
        swap_differs += !same_counts(&st, &sw);
        checked++;
    }
    cr_assert_gt(checked, 200, "only %d cases fitted", checked);
    cr_assert_gt(swap_differs, 10, "only %d of %d cases tell W from R", swap_differs, checked);
}

Test(h_revolve_costs, planner_skips_a_programme_too_large_to_plan)
{
    ebb_plan_problem p;
    ebb_plan_problem_init(&p);
    p.steps = 100000;
    p.state_size = 4096;
    p.forward_s = 1e-3;
    p.slots[EBB_TIER_HOST] = 40; /* 40 x 10^5 > 2^21 entries, whatever D */
    p.slots[EBB_TIER_DISK] = 1000;
    ebb_plan_prediction pr;
    cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_H_REVOLVE, &pr), EBB_OK, "%s",
                 ebb_last_error());
    cr_assert(!pr.fits);
    cr_assert(strstr(pr.why_not, "the planner plans its programme up to 2097152 entries") != NULL,
              "%s", pr.why_not);
    /* ebb_plan_all has its row, and a strategy that fits is still the best */
    ebb_plan_prediction all[EBB_PLAN_MAX];
    size_t count = 0;
    int best = -1;
    p.steps = 300;
    cr_assert_eq(ebb_plan_all(&p, all, &count, &best), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(count, EBB_PLAN_MAX);
    int rows = 0;
    for (size_t k = 0; k < count; k++)
        rows += all[k].strategy == EBB_CONFIG_STRATEGY_H_REVOLVE && all[k].fits;
    cr_assert_eq(rows, 1);
    cr_assert_geq(best, 0);
}

/* One h-revolve run of n steps (C = 3 host, D = 20 disk slots), its reason
 * and what it counted. */
static void run_h(ebb_config *cfg, double fwd, double rev, char *reason, size_t len,
                  ebb_run_stats *rs)
{
    const size_t size = 3000;
    wl w;
    wl_init(&w, size);
    w.steps_known = 100;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = size;
    o.steps = 100;
    o.config = cfg;
    o.strategy = EBB_CONFIG_STRATEGY_H_REVOLVE;
    o.slots = 3;
    o.slow_slots = 20;
    o.forward_seconds = fwd;
    o.reverse_seconds = rev;
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = &w;
    unsigned char x0[3000];
    wl_x0(&w, x0, 11);
    ebb_run *run;
    cr_assert_eq(ebb_run_create(&o, &run), EBB_OK, "%s", ebb_last_error());
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
    cr_assert_str_eq(info.strategy_name, "h-revolve");
    snprintf(reason, len, "%s", info.reason);
    cr_assert_eq(ebb_run_forward(run, x0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_stats_get(run, rs), EBB_OK);
    ebb_run_destroy(run);
    cr_assert_eq(w.adjoint, wl_reference(size, 100, 11));
}

static ebb_schedule_stats expected(double wc, double rc, double bc)
{
    ebb_schedule_options o = opts(EBB_STRATEGY_H_REVOLVE, 100, 3);
    o.disk_slots = 20;
    o.write_cost = wc;
    o.read_cost = rc;
    o.reverse_cost = bc;
    return validated(&o);
}

static void expect_counts(const ebb_run_stats *rs, const ebb_schedule_stats *st, const char *what)
{
    cr_assert_eq(rs->forward_steps, st->forward_steps, "%s: forward %lld, want %lld", what,
                 (long long)rs->forward_steps, (long long)st->forward_steps);
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        cr_assert_eq(rs->stores[t], st->stores[t], "%s: tier %d stores", what, t);
        cr_assert_eq(rs->restores[t], st->restores[t], "%s: tier %d restores", what, t);
    }
}

Test(h_revolve_costs, runtime_costs_from_step_times_and_max_bandwidth, .timeout = 120)
{
    char dir[256], reason[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    ebb_run_stats rs;
    ebb_schedule_stats ones = expected(1, 1, 1), dear = expected(4, 4, 1.5);
    /* the case tells the costs apart, so a run that ignored them would fail */
    cr_assert(!same_counts(&ones, &dear));

    run_h(&cfg, 0, 0, reason, sizeof reason, &rs);
    cr_assert(strstr(reason, "h-revolve asked; costs in forward steps: write 1, read 1, "
                             "reverse 1 (no step times given: 1 each)") != NULL, "%s", reason);
    expect_counts(&rs, &ones, "no step times");

    /* step times and no pace: the disk is measured on the spot, as auto
     * measures it, so W and R are its (this machine's) times */
    run_h(&cfg, 2e-3, 3e-3, reason, sizeof reason, &rs);
    cr_assert(strstr(reason, "reverse 1.5 (from the step times and the disk's bandwidth)") &&
                  !strstr(reason, "write 1, read 1,"),
              "%s", reason);

    /* a 3000-byte state at 375 kB/s: 8 ms, 4 forward steps of 2 ms */
    cfg.disk.max_bandwidth = 375000;
    run_h(&cfg, 2e-3, 3e-3, reason, sizeof reason, &rs);
    cr_assert(strstr(reason, "write 4, read 4, reverse 1.5 (from the step times and the disk's "
                             "bandwidth)") != NULL, "%s", reason);
    expect_counts(&rs, &dear, "tier.disk.max_bandwidth");
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

/* A gpu state whose slow tier is the disk (no host slots): a move crosses
 * PCIe and the disk pipelined by the disk's blocks (ebb_move_via), so W and
 * R are the slower hop's time plus the faster hop's share of one block, not
 * the sum of both hops. */
Test(h_revolve_costs, gpu_to_disk_costs_are_the_pipelined_chain)
{
    uint64_t rng = 0x9e3779b97f4a7c15u;
    int checked = 0, sum_differs = 0;
    for (int i = 0; i < 120; i++) {
        int64_t n = rng_range(&rng, 2, 200);
        int32_t c = (int32_t)rng_range(&rng, 1, 8), d = (int32_t)rng_range(&rng, 1, (int32_t)n);
        ebb_plan_problem p;
        ebb_plan_problem_init(&p);
        p.steps = n;
        p.state_size = (size_t)rng_range(&rng, 1, 64) << 20;
        p.disk_block = (size_t)rng_range(&rng, 1, 16) << 20;
        p.state_tier = EBB_TIER_GPU;
        p.forward_s = (double)rng_range(&rng, 1, 1000) * 1e-5;
        p.reverse_s = (double)rng_range(&rng, 1, 1000) * 1e-5;
        p.disk_fallback = 0;
        p.slots[EBB_TIER_GPU] = c;
        p.slots[EBB_TIER_DISK] = d;
        /* each hop moves a state in 0.05 .. 5 forward steps */
        for (int ch = 0; ch < EBB_PLAN_CHANNEL_COUNT; ch++)
            p.channel[ch].bandwidth =
                (double)p.state_size / (p.forward_s * (double)rng_range(&rng, 5, 500) * 1e-2);
        ebb_plan_prediction pr;
        cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_H_REVOLVE, &pr), EBB_OK, "%s",
                     ebb_last_error());
        cr_assert(pr.fits, "case %d: %s", i, pr.why_not);
        double size = (double)p.state_size;
        double blocks = ceil(size / (double)p.disk_block);
        double link_w = size / p.channel[EBB_PLAN_GPU_TO_HOST].bandwidth;
        double disk_w = size / p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth;
        double link_r = size / p.channel[EBB_PLAN_HOST_TO_GPU].bandwidth;
        double disk_r = size / p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth;
        ebb_schedule_options o = opts(EBB_STRATEGY_H_REVOLVE, n, c > n ? (int32_t)n : c);
        o.fast_tier = EBB_TIER_GPU;
        o.slow_tier = EBB_TIER_DISK;
        o.disk_slots = d;
        o.write_cost = (fmax(link_w, disk_w) + fmin(link_w, disk_w) / blocks) / p.forward_s;
        o.read_cost = (fmax(link_r, disk_r) + fmin(link_r, disk_r) / blocks) / p.forward_s;
        o.reverse_cost = p.reverse_s / p.forward_s;
        ebb_schedule_stats st = validated(&o);
        cr_assert_eq(pr.forward_steps, st.forward_steps,
                     "case %d n=%lld C=%d D=%d W=%g R=%g: forward %lld, want %lld", i,
                     (long long)n, c, d, o.write_cost, o.read_cost,
                     (long long)pr.forward_steps, (long long)st.forward_steps);
        for (int t = 0; t < EBB_TIER_COUNT; t++)
            cr_assert_eq(pr.stores[t], st.stores[t], "case %d: tier %d stores", i, t);
        /* the costs of two steps (the sum) give another schedule in some cases */
        o.write_cost = (link_w + disk_w) / p.forward_s;
        o.read_cost = (link_r + disk_r) / p.forward_s;
        ebb_schedule_stats sum = validated(&o);
        sum_differs += !same_counts(&st, &sum);
        checked++;
    }
    cr_assert_gt(sum_differs, 5, "only %d of %d cases tell the chain from two steps",
                 sum_differs, checked);
}
