/*
 * One strategy's prediction: the engine itself (runtime/) built from the
 * problem, run over the simulated io (sim_io.c) with step callbacks that
 * only advance the virtual clock; the run's own statistics are the
 * prediction. As `ebb run` does, a strategy the fast tier is too small for
 * is tried again with its slots on disk (disk_fallback).
 */
#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"
#include "planner/sim_io.h"
#include "runtime/engine.h"

/* The steps: time passes, nothing is computed. */
typedef struct sim_steps {
    sim_io io;
    int64_t n;
    int unknown; /* n learnt when the forward reaches it (online, as `ebb run` runs it) */
    int said_last;
} sim_steps;

static int forward(void *user, int64_t step, const void *in, void *out)
{
    (void)in, (void)out;
    sim_steps *w = user;
    const ebb_plan_problem *p = w->io.p;
    sim_io_step(&w->io, p->forward_step_s ? p->forward_step_s[step] : p->forward_s);
    if (w->unknown && !w->said_last && step + 1 == w->n) {
        w->said_last = 1;
        return EBB_STEP_LAST;
    }
    return EBB_STEP_OK;
}

static int reverse(void *user, int64_t step, void *state)
{
    (void)state;
    sim_steps *w = user;
    const ebb_plan_problem *p = w->io.p;
    sim_io_step(&w->io, p->reverse_step_s ? p->reverse_step_s[step] : p->reverse_s);
    return EBB_STEP_OK;
}

static void not_fit(ebb_plan_prediction *out, const char *why)
{
    out->fits = 0;
    size_t len = strlen(why);
    if (len >= sizeof out->why_not)
        len = sizeof out->why_not - 1;
    memcpy(out->why_not, why, len);
    out->why_not[len] = '\0';
}

static int fast_tier(const ebb_plan_problem *p)
{
    for (int t = p->state_tier == EBB_TIER_GPU ? EBB_TIER_GPU : EBB_TIER_HOST; t < EBB_TIER_COUNT;
         t++)
        if (p->slots[t] > 0)
            return t;
    return -1;
}

static void make_args(const ebb_plan_problem *p, ebb_config_strategy cs, sim_steps *w,
                      rt_create_args *a)
{
    memset(a, 0, sizeof *a);
    ebb_run_options *o = &a->options;
    ebb_run_options_init(o);
    o->state_size = p->state_size;
    o->state_tier = p->state_tier;
    o->steps = w->unknown ? 0 : p->steps;
    o->forward = forward;
    o->reverse = reverse;
    o->user = w;
    o->strategy = cs;
    o->period = p->period;
    o->io_ratio = p->io_ratio;
    o->staging = p->staging;
    o->audit = EBB_AUDIT_OFF;
    if (cs == EBB_CONFIG_STRATEGY_REVOLVE || cs == EBB_CONFIG_STRATEGY_STORE_ALL ||
        cs == EBB_CONFIG_STRATEGY_ASYNC) {
        /* the steps' times as their costs: the schedule of least total time
         * (async: each interval's reversal) */
        o->forward_costs = p->forward_step_s;
        o->reverse_costs = p->reverse_step_s;
    }
    /* the others refuse them, as in a run: they do not fit */
    o->state_sizes = p->state_sizes;
    a->io = &w->io.io;
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        a->tiers.enabled[t] = p->slots[t] > 0;
        a->tiers.slots[t] = p->slots[t];
    }
    a->costs = *p;
    a->costs_known = 1;
    a->planning = 1;
}

/* A run from the problem, on disk if the fast tier is too small and the
 * problem allows it; NULL and fits = 0 when it does not fit. */
static ebb_status create(const ebb_plan_problem *p, ebb_config_strategy cs, sim_steps *w,
                         ebb_plan_prediction *out, ebb_run **run)
{
    *run = NULL;
    int fast = fast_tier(p);
    if (fast < 0) {
        not_fit(out, "no tier has slots");
        return EBB_OK;
    }
    rt_create_args a;
    make_args(p, cs, w, &a);
    ebb_status st = rt_run_create(&a, run);
    if (st == EBB_ERR_NO_MEMORY && p->disk_fallback && fast != EBB_TIER_DISK &&
        p->slots[EBB_TIER_DISK] > 0) {
        char first[256];
        snprintf(first, sizeof first, "%s", ebb_last_error());
        a.options.fast_tier = EBB_TIER_DISK;
        a.options.slots = p->slots[EBB_TIER_DISK];
        if ((st = rt_run_create(&a, run)) == EBB_OK) {
            out->on_disk = 1;
        } else {
            char why[512];
            snprintf(why, sizeof why, "%.200s; with its slots on disk: %.200s", first,
                     ebb_last_error());
            not_fit(out, why);
            return EBB_OK;
        }
    }
    if (st == EBB_ERR_NO_MEMORY || st == EBB_ERR_CONFIG || st == EBB_ERR_INVALID_ARG) {
        not_fit(out, ebb_last_error());
        return EBB_OK;
    }
    return st;
}

/* The run's own figures, as the prediction. */
static void report(ebb_run *run, ebb_plan_prediction *out)
{
    ebb_run_info info;
    ebb_run_stats s;
    (void)ebb_run_info_get(run, &info);
    (void)ebb_run_stats_get(run, &s);
    out->fits = 1;
    out->schedule = info.strategy;
    out->fast_tier = info.fast_tier;
    out->slow_tier = info.slow_tier;
    memcpy(out->slots, info.slots, sizeof out->slots);
    out->period = rt_run_period(run);
    out->predicted_s = s.wall_s;
    out->forward_s = s.forward_sweep_s;
    out->reverse_s = s.reverse_sweep_s;
    out->stall_s = s.stall_total_s;
    memcpy(out->stall_tier_s, s.stall_s, sizeof out->stall_tier_s);
    out->forward_steps = s.forward_steps;
    out->recomputed_steps = s.recomputed_steps;
    out->reverse_steps = s.reverse_steps;
    memcpy(out->stores, s.stores, sizeof out->stores);
    memcpy(out->restores, s.restores, sizeof out->restores);
    out->prefetches = s.prefetches;
    out->cache_hits = s.cache_hits;
    memcpy(out->peak_slots, s.peak_slots, sizeof out->peak_slots);
}

ebb_status sim_predict(const ebb_plan_problem *p, ebb_config_strategy cs,
                       ebb_plan_prediction *out)
{
    memset(out, 0, sizeof *out);
    out->strategy = cs;
    sim_steps w = {.n = p->steps, .unknown = cs == EBB_CONFIG_STRATEGY_ONLINE};
    sim_io_init(&w.io, p);
    ebb_run *run;
    ebb_status st = create(p, cs, &w, out, &run);
    if (st != EBB_OK || !run)
        return st;
    char x0 = 0; /* the simulated pools hold no memory: nothing is read */
    if ((st = ebb_run_forward(run, &x0, NULL)) == EBB_OK && (st = ebb_run_reverse(run)) == EBB_OK)
        report(run, out);
    rt_run_destroy(run);
    return st;
}
