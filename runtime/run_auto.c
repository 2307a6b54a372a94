/*
 * strategy = "auto": what fits best, and why (ebb_run_info.reason).
 *
 * With the step times given (ebb_run_options.forward_seconds and
 * reverse_seconds), the planner predicts every strategy on the disk measured
 * on the spot (a fraction of a second) and the fastest that fits runs (async
 * when within 2% of it).
 * Without them, the rules: every state fits in the fast tier -> store-all; a
 * slower tier -> async, which follows the compute/transfer ratio it meets;
 * else revolve (online while n is unknown).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"
#include "ebb/planner.h"
#include "runtime/run_internal.h"

/* auto prefers async when the planner predicts it within this factor of the best */
#define NEAR_TIE 1.02

static ebb_status planned(ebb_run *run, const ebb_config *cfg, int fast, int32_t fast_slots,
                          int slow, int32_t slow_slots, ebb_config_strategy *out)
{
    const ebb_run_options *o = &run->opt;
    ebb_plan_problem p;
    ebb_plan_problem_init(&p);
    p.steps = o->steps;
    p.state_size = o->state_size;
    p.state_tier = o->state_tier;
    p.forward_s = o->forward_seconds;
    p.reverse_s = o->reverse_seconds;
    p.staging = o->staging;
    ebb_status st = ebb_plan_problem_from_config(&p, cfg);
    if (st != EBB_OK)
        return st;
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        if (t != fast && t != slow)
            p.slots[t] = 0;
    p.slots[fast] = fast_slots;
    if (slow >= 0 && o->slow_slots > 0)
        p.slots[slow] = slow_slots;
    if (slow == EBB_TIER_DISK && (st = ebb_plan_channels_measure(&p, cfg)) != EBB_OK)
        return st;
    if (run->agree && slow == EBB_TIER_DISK) {
        /* the processes on this node share its disk */
        p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth /= run->agree->ranks_per_node;
        p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth /= run->agree->ranks_per_node;
    }
    if (slow == EBB_TIER_DISK) { /* h-revolve's costs, as the planner derives them */
        memcpy(run->plan_channel, p.channel, sizeof p.channel);
        run->planned_channels = 1;
    }
    ebb_plan_prediction all[EBB_PLAN_MAX];
    size_t count = 0;
    int best = -1;
    if ((st = ebb_plan_all(&p, all, &count, &best)) != EBB_OK)
        return st;
    if (run->agree) {
        /* every process picks from the slowest process's predictions */
        double sec[EBB_PLAN_MAX];
        for (size_t i = 0; i < count; i++)
            sec[i] = all[i].fits ? all[i].predicted_s : INFINITY;
        if ((st = run->agree->predictions(run->agree, sec, (int)count)) != EBB_OK)
            return st;
        best = -1;
        for (size_t i = 0; i < count; i++) {
            all[i].fits = isfinite(sec[i]);
            all[i].predicted_s = sec[i];
            if (all[i].fits && (best < 0 || sec[i] < sec[best]))
                best = (int)i;
        }
    }
    if (best < 0)
        return ebb_fail(EBB_ERR_NO_MEMORY, "auto: no strategy fits the budgets");
    /* near a tie, the strategy that follows the machine's real ratio: the
     * others' stores and reads are fixed in advance */
    for (size_t i = 0; i < count; i++)
        if (all[i].strategy == EBB_CONFIG_STRATEGY_ASYNC && all[i].fits &&
            all[i].predicted_s <= NEAR_TIE * all[best].predicted_s)
            best = (int)i;
    *out = all[best].strategy;
    snprintf(run->reason, sizeof run->reason,
             "auto: the planner predicts %s fastest (%.3g s for %lld steps of %.3g + %.3g ms)",
             ebb_config_strategy_name(*out), all[best].predicted_s, (long long)o->steps,
             o->forward_seconds * 1e3, o->reverse_seconds * 1e3);
    return EBB_OK;
}

ebb_status rt_auto_choose(ebb_run *run, const ebb_config *cfg, int fast, int32_t fast_slots,
                          int slow, int32_t slow_slots, ebb_config_strategy *out)
{
    const ebb_run_options *o = &run->opt;
    int64_t n = o->steps;
    int has_slow = slow >= 0 && slow_slots > 0;
    if (n > 0 && fast_slots >= n - 1) {
        *out = EBB_CONFIG_STRATEGY_STORE_ALL;
        snprintf(run->reason, sizeof run->reason, "auto: tier.%s holds all %lld states",
                 ebb_tier_name((ebb_tier)fast), (long long)n);
        return EBB_OK;
    }
    if (has_slow && n > 0 && o->forward_seconds > 0 && o->reverse_seconds >= 0)
        return planned(run, cfg, fast, fast_slots, slow, slow_slots, out);
    if (has_slow && fast_slots >= 2) {
        *out = EBB_CONFIG_STRATEGY_ASYNC;
        snprintf(run->reason, sizeof run->reason,
                 "auto: tier.%s is enabled and the step times are not given, so async, which "
                 "follows the compute/transfer ratio it meets",
                 ebb_tier_name((ebb_tier)slow));
        return EBB_OK;
    }
    *out = n == 0 ? EBB_CONFIG_STRATEGY_ONLINE : EBB_CONFIG_STRATEGY_REVOLVE;
    snprintf(run->reason, sizeof run->reason, "auto: %s, so %s",
             has_slow ? "too few fast slots for async" : "no slower tier",
             ebb_config_strategy_name(*out));
    return EBB_OK;
}
