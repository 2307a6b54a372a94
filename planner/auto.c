/*
 * strategy = "auto": what fits best, and why (ebb_run_info.reason). The
 * runtime asks for it through rt_create_args.choose, which create.c fills
 * (the planner sits above the runtime).
 *
 * With the step times given (ebb_run_options.forward_seconds and
 * reverse_seconds), the planner predicts every strategy on the disk measured
 * on the spot (a fraction of a second) and compressed as the configuration's
 * figures say (tier.disk.codec_ratio, compress_rate, decompress_rate, or a
 * fixed rate's), and the fastest that fits runs (async when within 2% of it).
 * With the host tier's slots compressed (tier.host.compression) it predicts
 * them with tier.host.compress_rate and decompress_rate, and the budget's
 * fewer uncompressed slots too, and runs the faster.
 * Each step's own times (ebb_run_options.forward_costs and reverse_costs,
 * taken as seconds here, as ebb_run_step_times measures them) are given to
 * the planner in the same way, revolve then being the schedule of least
 * total time for them.
 * Without them, the rules: every state fits in the fast tier -> store-all; a
 * slower tier -> async, which follows the compute/transfer ratio it meets;
 * else revolve (online while n is unknown; over the steps' costs where
 * they are given).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"
#include "ebb/planner.h"
#include "planner/auto.h"

/* auto prefers async when the planner predicts it within this factor of the best */
#define NEAR_TIE 1.02

/* Near a tie, the strategy that follows the machine's real ratio: the
 * others' stores and reads are fixed in advance. Returns the pick (best if
 * none is near, -1 if none fits). */
static int near_tie(const ebb_plan_prediction *all, size_t count, int best)
{
    for (size_t i = 0; best >= 0 && i < count; i++)
        if (all[i].strategy == EBB_CONFIG_STRATEGY_ASYNC && all[i].fits &&
            all[i].schedule == EBB_STRATEGY_ASYNC && /* (not revolve, without a slower tier) */
            all[i].predicted_s <= NEAR_TIE * all[best].predicted_s)
            best = (int)i;
    return best;
}

/* The problem p with the host tier's slots uncompressed: as many as the
 * budget holds of whole states (*slots), predicted into out. */
static ebb_status plan_plain_host(const ebb_plan_problem *p, const ebb_config *cfg,
                                  ebb_plan_prediction *out, size_t *count, int *best,
                                  int32_t *slots)
{
    ebb_config plain_cfg = *cfg; /* shallow, read only */
    plain_cfg.host.compression.mode = EBB_COMPRESSION_OFF;
    ebb_pool_options po;
    ebb_status st = ebb_config_pool_options(&plain_cfg, EBB_TIER_HOST, p->state_size, &po);
    if (st != EBB_OK) { /* not one whole state: only the compressed slots fit */
        ebb_clear_error();
        *best = -1;
        *slots = 0;
        return EBB_OK;
    }
    ebb_plan_problem q = *p;
    q.host_codec = (ebb_codec_rates){0};
    q.slots[EBB_TIER_HOST] = *slots = po.slots;
    return ebb_plan_all(&q, out, count, best);
}

static ebb_status planned(const ebb_config *cfg, const rt_auto_ask *ask, rt_auto_answer *ans)
{
    const ebb_run_options *o = ask->options;
    int fast = ask->fast, slow = ask->slow;
    rt_agree *agree = ask->agree;
    ebb_plan_problem p;
    ebb_plan_problem_init(&p);
    p.steps = o->steps;
    p.state_size = o->state_size;
    p.state_tier = o->state_tier;
    p.forward_s = o->forward_seconds;
    p.reverse_s = o->reverse_seconds;
    if (o->forward_costs) {
        /* each step's time; the mean for what takes one (h-revolve's costs) */
        double f = 0, r = 0;
        for (int64_t i = 0; i < o->steps; i++)
            f += o->forward_costs[i], r += o->reverse_costs[i];
        p.forward_s = f / (double)o->steps;
        p.reverse_s = r / (double)o->steps;
        p.forward_step_s = o->forward_costs;
        p.reverse_step_s = o->reverse_costs;
    }
    p.staging = o->staging;
    ebb_config state_cfg; /* the codecs with the options' element type, as the run's */
    rt_config_for_state(cfg, o, &state_cfg);
    ebb_status st = ebb_plan_problem_from_config(&p, &state_cfg);
    if (st != EBB_OK)
        return st;
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        if (t != fast && t != slow)
            p.slots[t] = 0;
    p.slots[fast] = ask->fast_slots;
    if (slow >= 0 && o->slow_slots > 0)
        p.slots[slow] = ask->slow_slots;
    if (slow == EBB_TIER_DISK && (st = ebb_plan_channels_measure(&p, cfg)) != EBB_OK)
        return st;
    if (agree && slow == EBB_TIER_DISK) {
        /* the processes on this node share its disk */
        p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth /= agree->ranks_per_node;
        p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth /= agree->ranks_per_node;
    }
    if (slow == EBB_TIER_DISK) { /* h-revolve's costs, as the planner derives them */
        memcpy(ans->channel, p.channel, sizeof p.channel);
        ans->measured = 1;
    }
    ebb_plan_prediction all[EBB_PLAN_MAX];
    size_t count = 0;
    int best = -1;
    if ((st = ebb_plan_all(&p, all, &count, &best)) != EBB_OK)
        return st;
    if (agree) {
        /* every process picks from the slowest process's predictions */
        double sec[EBB_PLAN_MAX];
        for (size_t i = 0; i < count; i++)
            sec[i] = all[i].fits ? all[i].predicted_s : INFINITY;
        if ((st = agree->predictions(agree, sec, (int)count)) != EBB_OK)
            return st;
        best = -1;
        for (size_t i = 0; i < count; i++) {
            all[i].fits = isfinite(sec[i]);
            all[i].predicted_s = sec[i];
            if (all[i].fits && (best < 0 || sec[i] < sec[best]))
                best = (int)i;
        }
    }
    if (best < 0 && !ask->host_packed)
        return ebb_fail(EBB_ERR_NO_MEMORY, "auto: no strategy fits the budgets");
    best = near_tie(all, count, best);
    /* compressed host slots: more of them, but every restore waits for its
     * decompression; the budget's uncompressed slots are run instead where
     * the planner predicts them faster (one process, slots from the budget) */
    char host[96] = "";
    double packed_s = best >= 0 ? all[best].predicted_s : INFINITY;
    if (ask->host_packed && !agree && o->slots <= 0) {
        ebb_plan_prediction plain[EBB_PLAN_MAX];
        int32_t plain_slots = 0;
        int b = -1;
        if ((st = plan_plain_host(&p, &state_cfg, plain, &count, &b, &plain_slots)) != EBB_OK)
            return st;
        b = near_tie(plain, count, b);
        if (b >= 0 && plain[b].predicted_s < packed_s) {
            memcpy(all, plain, sizeof plain);
            best = b;
            ans->host_plain_slots = plain_slots;
            snprintf(host, sizeof host, "; %d host slots uncompressed: faster than %d compressed",
                     plain_slots, ask->fast_slots);
        } else if (best >= 0) {
            snprintf(host, sizeof host, "; %d host slots compressed: faster than %d uncompressed",
                     ask->fast_slots, plain_slots);
        }
    }
    if (best < 0)
        return ebb_fail(EBB_ERR_NO_MEMORY, "auto: no strategy fits the budgets");
    /* async without a slower tier runs another schedule: that one */
    ans->strategy = all[best].strategy == EBB_CONFIG_STRATEGY_ASYNC
                        ? (ebb_config_strategy)all[best].schedule
                        : all[best].strategy;
    snprintf(ans->reason, sizeof ans->reason,
             "auto: the planner predicts %s fastest (%.3g s for %lld steps of %s%.3g + %.3g "
             "ms%s%s)",
             ebb_config_strategy_name(ans->strategy), all[best].predicted_s, (long long)o->steps,
             o->forward_costs ? "their own times, on average " : "", p.forward_s * 1e3,
             p.reverse_s * 1e3,
             slow != EBB_TIER_DISK || !(p.codec.ratio > 0) ? ""
             : ebb_plan_disk_compressed(&p) ? "; disk states compressed"
                                            : "; disk states raw: compressing would be slower",
             host);
    return EBB_OK;
}

/* rt_auto_fn: the rules, or the planner when the step times are given. */
ebb_status planner_auto_choose(void *ctx, const rt_auto_ask *ask, rt_auto_answer *ans)
{
    const ebb_config *cfg = ctx;
    const ebb_run_options *o = ask->options;
    int64_t n = o->steps;
    int fast = ask->fast, slow = ask->slow;
    int32_t fast_slots = ask->fast_slots;
    int has_slow = slow >= 0 && ask->slow_slots > 0;
    int timed = n > 0 && ((o->forward_seconds > 0 && o->reverse_seconds >= 0) ||
                          o->forward_costs);
    /* compressed host slots that hold every state may still be slower than
     * fewer uncompressed ones: the planner says, when it can */
    if (n > 0 && fast_slots >= n - 1 && !(ask->host_packed && timed)) {
        ans->strategy = EBB_CONFIG_STRATEGY_STORE_ALL;
        snprintf(ans->reason, sizeof ans->reason, "auto: tier.%s holds all %lld states",
                 ebb_tier_name((ebb_tier)fast), (long long)n);
        return EBB_OK;
    }
    if ((has_slow || ask->host_packed) && timed)
        return planned(cfg, ask, ans);
    if (has_slow && fast_slots >= 2) {
        ans->strategy = EBB_CONFIG_STRATEGY_ASYNC;
        snprintf(ans->reason, sizeof ans->reason,
                 "auto: tier.%s is enabled and the step times are not given, so async, which "
                 "follows the compute/transfer ratio it meets",
                 ebb_tier_name((ebb_tier)slow));
        return EBB_OK;
    }
    /* measured costs: online, the schedule that plans from them */
    ans->strategy = n == 0 || o->measure_costs ? EBB_CONFIG_STRATEGY_ONLINE
                                               : EBB_CONFIG_STRATEGY_REVOLVE;
    snprintf(ans->reason, sizeof ans->reason, "auto: %s, so %s%s",
             has_slow ? "too few fast slots for async" : "no slower tier",
             ebb_config_strategy_name(ans->strategy),
             o->forward_costs    ? " over the steps' costs"
             : o->measure_costs ? " over the steps' measured times"
                                : "");
    return EBB_OK;
}
