/*
 * From a problem and a strategy to the action source and the buffer tables
 * the simulation runs on, resolved as run_setup.c resolves them for a run
 * (fast tier, slot counts capped at n, disk-revolve's period from its io
 * ratio, h-revolve's disk slots and costs, the asynchronous strategy's
 * tiers), and, as `ebb run` does, a strategy the fast tier is too small for
 * retried with its slots on disk.
 *
 * A tier is "enabled" here when the problem gives it slots.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "runtime/h_costs.h"
#include "runtime/planner_internal.h"

/* What each strategy needs; the rest of the planner is the same for all. */
typedef struct strategy_row {
    ebb_config_strategy strategy;
    ebb_strategy schedule;
    int two_tiers;  /* needs a slower tier for its D slots */
    int unknown_n;  /* run with n learnt at the end of the forward, as `ebb run` does */
    int async;
} strategy_row;

static const strategy_row rows[] = {
    {EBB_CONFIG_STRATEGY_STORE_ALL, EBB_STRATEGY_STORE_ALL, 0, 0, 0},
    {EBB_CONFIG_STRATEGY_PERIODIC, EBB_STRATEGY_PERIODIC, 0, 0, 0},
    {EBB_CONFIG_STRATEGY_REVOLVE, EBB_STRATEGY_REVOLVE, 0, 0, 0},
    {EBB_CONFIG_STRATEGY_ONLINE, EBB_STRATEGY_ONLINE, 0, 1, 0},
    {EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_STRATEGY_MULTISTAGE, 1, 0, 0},
    {EBB_CONFIG_STRATEGY_DISK_REVOLVE, EBB_STRATEGY_DISK_REVOLVE, 1, 0, 0},
    {EBB_CONFIG_STRATEGY_H_REVOLVE, EBB_STRATEGY_H_REVOLVE, 1, 0, 0},
    {EBB_CONFIG_STRATEGY_ASYNC, EBB_STRATEGY_REVOLVE, 0, 0, 1},
};

static const strategy_row *row_of(ebb_config_strategy cs)
{
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        if (rows[i].strategy == cs)
            return &rows[i];
    return NULL;
}

static int next_enabled(const ebb_plan_problem *p, int from)
{
    for (int t = from; t < EBB_TIER_COUNT; t++)
        if (p->slots[t] > 0)
            return t;
    return -1;
}

/* setup_async of run_setup.c; EBB_ERR_NO_MEMORY / _CONFIG when it does not fit. */
static ebb_status setup_async(ps_sim *s, const ebb_plan_problem *p, int fast, int32_t c,
                              ebb_plan_prediction *out)
{
    rt_async_options ao;
    rt_async_options_init(&ao, p->steps, (ebb_tier)fast, c);
    for (int t = fast + 1; t < EBB_TIER_COUNT; t++)
        if (p->slots[t] > 0 && !rt_async_add_tier(&ao, (ebb_tier)t, p->slots[t]))
            break;
    if (ao.tiers < 2)
        return ebb_fail(EBB_ERR_CONFIG, "async needs a tier slower than %s",
                        ebb_tier_name((ebb_tier)fast));
    ebb_status st = rt_async_create(&ao, &s->async);
    if (st != EBB_OK)
        return st;
    for (int l = 0; l < ao.tiers; l++)
        s->async_tier[l] = ao.tier[l];
    out->slow_tier = ao.tier[ao.tiers - 1];
    rt_async_tier_slots(s->async, out->slots);
    return EBB_OK;
}

/* rt_setup_schedule for fast tier `fast` with c slots and d slow slots. */
static ebb_status setup_source(ps_sim *s, const ebb_plan_problem *p, const strategy_row *row,
                               int fast, int32_t c, int32_t d, ebb_plan_prediction *out)
{
    int slow = next_enabled(p, fast + 1);
    int64_t n = p->steps;
    out->fast_tier = (ebb_tier)fast;
    out->slow_tier = (ebb_tier)(slow >= 0 ? slow : EBB_TIER_DISK);
    out->schedule = row->schedule;
    if (row->async) {
        if (c >= n - 1)
            out->schedule = EBB_STRATEGY_STORE_ALL; /* spare slots are not wasted */
        else if (slow < 0)
            out->schedule = EBB_STRATEGY_REVOLVE;
        else
            return setup_async(s, p, fast, c, out);
    }
    int two = out->schedule == EBB_STRATEGY_MULTISTAGE ||
              out->schedule == EBB_STRATEGY_DISK_REVOLVE || out->schedule == EBB_STRATEGY_H_REVOLVE;
    if (two && slow < 0)
        return ebb_fail(EBB_ERR_CONFIG, "%s needs a slower tier than %s",
                        ebb_strategy_name(out->schedule), ebb_tier_name((ebb_tier)fast));
    if (two && d <= 0)
        d = p->slots[slow];
    ebb_schedule_options so;
    ebb_schedule_options_init(&so);
    so.strategy = out->schedule;
    so.steps = row->unknown_n ? 0 : n;
    so.slots = !row->unknown_n && c > n ? (int32_t)n : c;
    so.fast_tier = (ebb_tier)fast;
    so.slow_tier = out->slow_tier;
    so.period = p->period;
    so.io_ratio = p->io_ratio > 0 ? p->io_ratio : 1.0;
    if (out->schedule == EBB_STRATEGY_MULTISTAGE)
        so.disk_slots = d > n ? (int32_t)n : d;
    else if (out->schedule == EBB_STRATEGY_DISK_REVOLVE)
        so.disk_slots = -1;
    else if (out->schedule == EBB_STRATEGY_H_REVOLVE)
        so.disk_slots = rt_h_budget_disk_slots(n, so.slots, d);
    else
        so.disk_slots = 0;
    if (out->schedule == EBB_STRATEGY_H_REVOLVE) {
        /* the costs the runtime derives from the same figures (run_setup.c) */
        rt_h_costs hc;
        rt_h_costs_of(p, fast, slow, 1, &hc);
        so.write_cost = hc.write;
        so.read_cost = hc.read;
        so.reverse_cost = hc.reverse;
        if ((int64_t)(so.slots + so.disk_slots) * n > RT_H_BUDGET_ENTRIES)
            return ebb_fail(EBB_ERR_NO_MEMORY,
                            "h-revolve: the planner plans its programme up to %lld entries, "
                            "(%d memory + %d disk slots) x %lld steps exceed it (run it by "
                            "name to try)",
                            (long long)RT_H_BUDGET_ENTRIES, so.slots, so.disk_slots,
                            (long long)n);
    }
    ebb_status st = ebb_schedule_create(&so, &s->schedule);
    if (st != EBB_OK) {
        char msg[200];
        snprintf(msg, sizeof msg, "%s", ebb_last_error());
        return ebb_fail(EBB_ERR_NO_MEMORY, "%s (tier.%s holds %d states)", msg,
                        ebb_tier_name((ebb_tier)fast), c);
    }
    ebb_schedule_tier_slots(s->schedule, out->slots);
    if (two && out->slots[slow] > d) {
        return ebb_fail(EBB_ERR_NO_MEMORY, "%s needs %d %s slots, the budget holds %d",
                        ebb_strategy_name(out->schedule), out->slots[slow],
                        ebb_tier_name((ebb_tier)slow), d);
    }
    ebb_schedule_options got;
    if (ebb_schedule_get_options(s->schedule, &got) == EBB_OK)
        out->period = got.period;
    return EBB_OK;
}

/* rt_setup_pools: the buffer tables. */
static ebb_status setup_buffers(ps_sim *s, const ebb_plan_problem *p, ebb_plan_prediction *out)
{
    const int32_t *used = out->slots;
    int gpu_state = p->state_tier == EBB_TIER_GPU;
    int32_t staging = used[EBB_TIER_DISK] > 0 ? (p->staging > 0 ? p->staging : 2) : 0;
    int32_t host_count = used[EBB_TIER_HOST] + (gpu_state ? 0 : 2) + staging;
    ebb_status st;
    if (gpu_state &&
        (st = ps_mem_init(&s->gpu, EBB_TIER_GPU, used[EBB_TIER_GPU] + 2, used[EBB_TIER_GPU])) !=
            EBB_OK)
        return st;
    if ((st = ps_mem_init(&s->host, EBB_TIER_HOST, host_count, used[EBB_TIER_HOST])) != EBB_OK)
        return st;
    s->state = gpu_state ? &s->gpu : &s->host;
    s->disk_slots = used[EBB_TIER_DISK];
    int32_t d = s->disk_slots > 0 ? s->disk_slots : 1;
    s->disk_pending = calloc((size_t)d, sizeof *s->disk_pending);
    s->disk_cache = malloc((size_t)d * sizeof *s->disk_cache);
    if (!s->disk_pending || !s->disk_cache)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the planner's disk tables");
    for (int32_t i = 0; i < d; i++)
        s->disk_cache[i] = -1;
    return EBB_OK;
}

void ps_free(ps_sim *s)
{
    ebb_schedule_destroy(s->schedule);
    rt_async_destroy(s->async);
    ps_mem_free(&s->host);
    ps_mem_free(&s->gpu);
    free(s->disk_pending);
    free(s->disk_cache);
    memset(s, 0, sizeof *s);
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

ebb_status ps_setup(ps_sim *s, const ebb_plan_problem *p, ebb_config_strategy strategy,
                    ebb_plan_prediction *out)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->out = out;
    s->steps = p->steps;
    s->live = s->prev = s->xn = s->ahead_buf = -1;
    s->computed = -1;
    out->strategy = strategy;
    const strategy_row *row = row_of(strategy);
    if (!row)
        return ebb_fail(EBB_ERR_INVALID_ARG, "the planner has no strategy %d", (int)strategy);
    s->online = row->unknown_n;
    int first = p->state_tier == EBB_TIER_GPU ? EBB_TIER_GPU : EBB_TIER_HOST;
    int fast = next_enabled(p, first);
    if (fast < 0) {
        not_fit(out, "no tier has slots");
        return EBB_OK;
    }
    ebb_status st = setup_source(s, p, row, fast, p->slots[fast], 0, out);
    if (st == EBB_ERR_NO_MEMORY && p->disk_fallback && fast != EBB_TIER_DISK &&
        p->slots[EBB_TIER_DISK] > 0) {
        char first_why[256];
        snprintf(first_why, sizeof first_why, "%s", ebb_last_error());
        ebb_schedule_destroy(s->schedule);
        rt_async_destroy(s->async);
        s->schedule = NULL;
        s->async = NULL;
        memset(out->slots, 0, sizeof out->slots);
        st = setup_source(s, p, row, EBB_TIER_DISK, p->slots[EBB_TIER_DISK], 0, out);
        if (st == EBB_OK) {
            out->on_disk = 1;
        } else {
            char why[512];
            snprintf(why, sizeof why, "%.200s; with its slots on disk: %.200s", first_why,
                     ebb_last_error());
            not_fit(out, why);
            return EBB_OK;
        }
    }
    if (st == EBB_ERR_NO_MEMORY || st == EBB_ERR_CONFIG || st == EBB_ERR_INVALID_ARG) {
        not_fit(out, ebb_last_error());
        return EBB_OK;
    }
    if (st != EBB_OK)
        return st;
    out->fits = 1;
    return setup_buffers(s, p, out);
}
