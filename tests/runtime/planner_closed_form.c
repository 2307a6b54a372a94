/* Cases where the planner's time is known in closed form: with infinitely
 * fast channels every strategy takes forward_steps * f + n * b (host and
 * gpu states, gpu -> host -> disk chains included); Revolve in
 * memory takes its optimal count of forward steps; a disk slower than the
 * compute makes store-all's forward sweep as long as its writes; the
 * asynchronous strategy's forward never waits, whatever the disk. */
#include <math.h>

#include "ebb/planner.h"
#include "support/schedule_support.h"

static ebb_plan_problem base(int64_t n, int32_t c, int32_t d, double f, double b)
{
    ebb_plan_problem p;
    ebb_plan_problem_init(&p);
    p.steps = n;
    p.state_size = 1 << 20;
    p.forward_s = f;
    p.reverse_s = b;
    p.slots[EBB_TIER_HOST] = c;
    p.slots[EBB_TIER_DISK] = d;
    return p;
}

static ebb_plan_prediction predict(const ebb_plan_problem *p, ebb_config_strategy cs)
{
    ebb_plan_prediction pr;
    cr_assert_eq(ebb_plan_predict(p, cs, &pr), EBB_OK, "%s", ebb_last_error());
    return pr;
}

static void near(double got, double want, const char *what)
{
    cr_assert(fabs(got - want) <= 1e-9 * (1 + fabs(want)), "%s: %.12g, want %.12g", what, got,
              want);
}

Test(planner_closed_form, infinite_bandwidth_costs_only_the_steps)
{
    uint64_t rng = 12345;
    for (int i = 0; i < 200; i++) {
        int64_t n = rng_range(&rng, 1, 500);
        int32_t c = (int32_t)rng_range(&rng, 1, 20);
        int32_t d = (int32_t)rng_range(&rng, 0, (int32_t)n);
        double f = 1e-3 * (double)rng_range(&rng, 1, 50), b = 1e-3 * (double)rng_range(&rng, 1, 90);
        ebb_plan_problem p = base(n, c, d, f, b);
        if (i % 2) { /* a gpu state: gpu slots, then host and disk */
            p.state_tier = EBB_TIER_GPU;
            p.slots[EBB_TIER_GPU] = (int32_t)rng_range(&rng, 0, 6);
        }
        ebb_plan_prediction all[EBB_PLAN_MAX];
        size_t count;
        int best;
        cr_assert_eq(ebb_plan_all(&p, all, &count, &best), EBB_OK, "%s", ebb_last_error());
        for (size_t k = 0; k < count; k++) {
            if (!all[k].fits)
                continue;
            const ebb_plan_prediction *r = &all[k];
            near(r->predicted_s, (double)r->forward_steps * f + (double)n * b,
                 ebb_config_strategy_name(r->strategy));
            near(r->stall_s, 0, "stall");
            near(r->forward_s + r->reverse_s, r->predicted_s, "sweeps");
            near(r->forward_s, (double)n * f, "the first sweep is n steps");
        }
        cr_assert(best >= 0 && all[best].best);
        for (size_t k = 0; k < count; k++)
            cr_assert(!all[k].fits || all[k].predicted_s >= all[best].predicted_s);
    }
}

Test(planner_closed_form, revolve_in_memory_is_its_optimal_count)
{
    for (int64_t n = 1; n <= 300; n += 13) {
        for (int32_t c = 1; c <= 9; c += 2) {
            ebb_plan_problem p = base(n, c, 0, 0.01, 0.03);
            p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth = 1; /* unused: no disk slots */
            ebb_plan_prediction r = predict(&p, EBB_CONFIG_STRATEGY_REVOLVE);
            cr_assert(r.fits, "%s", r.why_not);
            int64_t count = revolve_count(n, c > n ? (int32_t)n : c);
            cr_assert_eq(r.forward_steps, count);
            near(r.predicted_s, (double)count * 0.01 + (double)n * 0.03, "revolve");
        }
    }
}

Test(planner_closed_form, a_gpu_state_waits_for_a_slow_pcie_link_only_where_it_must)
{
    /* store-all in host memory for a gpu state: every state crosses a link
     * that takes 3 steps per state; the gpu buffers (two working ones, two
     * spare for the read ahead) let the forward run at most a few copies
     * ahead, so the sweep is bounded by the link */
    const double f = 0.002, link = 0.006;
    ebb_plan_problem p = base(100, 200, 0, f, 0.004);
    p.state_tier = EBB_TIER_GPU;
    p.channel[EBB_PLAN_GPU_TO_HOST].bandwidth = (double)p.state_size / link;
    p.channel[EBB_PLAN_HOST_TO_GPU].bandwidth = (double)p.state_size / link;
    ebb_plan_prediction r = predict(&p, EBB_CONFIG_STRATEGY_STORE_ALL);
    cr_assert(r.fits && r.fast_tier == EBB_TIER_HOST, "%s", r.why_not);
    cr_assert(r.forward_s >= 95 * link && r.forward_s <= 100 * link + f, "forward %g s",
              r.forward_s);
    cr_assert_gt(r.stall_tier_s[EBB_TIER_HOST], 0);
    /* with gpu slots for every state nothing crosses the link */
    p.slots[EBB_TIER_GPU] = 99;
    r = predict(&p, EBB_CONFIG_STRATEGY_STORE_ALL);
    near(r.predicted_s, 100 * f + 100 * 0.004, "store-all on the gpu");
}

Test(planner_closed_form, a_slow_disk_makes_store_all_wait_for_its_writes)
{
    const double f = 0.004, w = 0.010; /* a write takes 2.5 steps */
    for (int64_t n = 20; n <= 400; n += 45) {
        ebb_plan_problem p = base(n, 0, (int32_t)n, f, 0.008);
        p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth = (double)p.state_size / w;
        ebb_plan_prediction r = predict(&p, EBB_CONFIG_STRATEGY_STORE_ALL);
        cr_assert(r.fits && r.fast_tier == EBB_TIER_DISK, "%s", r.why_not);
        /* n - 1 writes back to back; the forward ends a few writes before
         * the last completes (the host buffers hold the rest) */
        double writes = (double)(n - 1) * w;
        cr_assert(r.forward_s <= writes + f && r.forward_s >= writes - 4 * w,
                  "n=%lld: forward %g s, writes %g s", (long long)n, r.forward_s, writes);
        near(r.stall_tier_s[EBB_TIER_DISK], r.stall_s, "every stall is the disk's");
    }
}

Test(planner_closed_form, async_forward_never_waits_for_the_disk)
{
    const double f = 0.005;
    const double writes[] = {0.001, 0.005, 0.0151, 0.04};
    for (size_t i = 0; i < sizeof writes / sizeof *writes; i++) {
        ebb_plan_problem p = base(1000, 4, 999, f, 2 * f);
        p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth = (double)p.state_size / writes[i];
        p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth = (double)p.state_size / writes[i];
        ebb_plan_prediction r = predict(&p, EBB_CONFIG_STRATEGY_ASYNC);
        cr_assert(r.fits, "%s", r.why_not);
        near(r.forward_s, 1000 * f, "async forward sweep");
        /* one store per ceil(w / f) steps at most */
        int64_t k = (int64_t)ceil(writes[i] / f - 1e-9);
        cr_assert_leq(r.stores[EBB_TIER_DISK], 999 / (k > 1 ? k : 1) + 1, "w=%g: %lld stores",
                      writes[i], (long long)r.stores[EBB_TIER_DISK]);
        cr_assert_geq(r.stores[EBB_TIER_DISK], 999 / (k + 1) - 1, "w=%g: %lld stores", writes[i],
                      (long long)r.stores[EBB_TIER_DISK]);
    }
}

Test(planner_closed_form, the_disk_pace_sets_the_rate_of_back_to_back_writes)
{
    /* store-all on disk, steps far faster than the paced disk: the forward
     * is as long as n - 1 writes at the pace, not at the device's rate */
    ebb_plan_problem p = base(200, 0, 200, 1e-4, 1e-4);
    p.state_size = 16 << 20;
    p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth = 2e9;
    p.disk_pace = 1e9;
    ebb_plan_prediction r = predict(&p, EBB_CONFIG_STRATEGY_STORE_ALL);
    double paced = 199.0 * (double)p.state_size / 1e9;
    cr_assert(r.forward_s <= paced && r.forward_s >= paced - 5 * (double)p.state_size / 1e9,
              "forward %g s, paced writes %g s", r.forward_s, paced);
}

/* A gpu state stored to disk and restored from it (store-all, n = 2, steps
 * of a microsecond): each chained move (ebb_move_via) takes the slower hop
 * plus the faster hop's share of one block (64 MiB in 8 blocks), not the
 * sum of both hops, whichever hop is slower. */
Test(planner_closed_form, a_gpu_state_reaches_the_disk_pipelined_by_blocks)
{
    for (int k = 0; k < 2; k++) {
        const double link = k ? 0.010 : 0.004, w = k ? 0.004 : 0.010;
        ebb_plan_problem p = base(2, 0, 2, 1e-6, 1e-6);
        p.state_size = 64 << 20;
        p.disk_block = 8 << 20;
        p.state_tier = EBB_TIER_GPU;
        p.channel[EBB_PLAN_GPU_TO_HOST].bandwidth = (double)p.state_size / link;
        p.channel[EBB_PLAN_HOST_TO_GPU].bandwidth = (double)p.state_size / link;
        p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth = (double)p.state_size / w;
        p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth = (double)p.state_size / w;
        ebb_plan_prediction r = predict(&p, EBB_CONFIG_STRATEGY_STORE_ALL);
        cr_assert(r.fits && r.fast_tier == EBB_TIER_DISK, "%s", r.why_not);
        double move = fmax(link, w) + fmin(link, w) / 8;
        cr_assert(fabs(r.predicted_s - 2 * move) < 1e-4,
                  "link %g, disk %g: predicted %g s, two chained moves take %g s (two steps "
                  "each: %g s)",
                  link, w, r.predicted_s, 2 * move, 2 * (link + w));
    }
}

/* A step beside a disk transfer runs 1 + k times slower for the overlap:
 * store-all on disk alone with a write w shorter than a step f, each write
 * starting with the step that follows it, makes each of the n - 1 first
 * forward steps last f + w k / (1 + k) (the write's w at the slow rate does
 * w / (1 + k) of the step's work); the last step overlaps nothing. The
 * same problem with k = 0 is the plain n f. */
Test(planner_closed_form, steps_beside_the_disk_run_slower)
{
    const double ks[] = {0.0, 0.25, 1.0, 3.0};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        int64_t n = 40;
        double f = 10e-3, w = 4e-3;
        ebb_plan_problem p = base(n, 0, (int32_t)n, f, 2 * f);
        p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth = (double)p.state_size / w;
        p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth = (double)p.state_size / w;
        p.step_slowdown = ks[i];
        ebb_plan_prediction r = predict(&p, EBB_CONFIG_STRATEGY_STORE_ALL);
        cr_assert(r.fits && r.fast_tier == EBB_TIER_DISK, "%s", r.why_not);
        double k = ks[i];
        near(r.forward_s, (double)n * f + (double)(n - 1) * w * k / (1 + k), "forward sweep");
        cr_assert_eq(r.stall_s, 0.0);
    }
}
