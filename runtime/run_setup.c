/*
 * From options and configuration to a schedule and its pools: which strategy,
 * which tiers, how many slots, how many buffers.
 *
 * Slots come from the tier budgets (ebb_config_pool_options) unless the
 * options give them. Beyond the schedule's slots the runtime allocates, in
 * the live state's memory, two working buffers (the live state and the
 * output of the step being run) and, when the disk tier is used, `staging`
 * host buffers that let disk transfers run while the forward goes on. These
 * are not taken from the budget; ebb_run_info.buffers and .bytes say what
 * was allocated (docs/runtime.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "ebb/chain.h"
#include "runtime/h_costs.h"
#include "runtime/runtime_internal.h"

static int tier_enabled(const ebb_run *run, int tier)
{
    return tier >= 0 && tier < EBB_TIER_COUNT && run->tiers.enabled[tier];
}

/* The first enabled tier at or after `from` (a host state never uses the
 * gpu tier); -1 if none. */
static int next_enabled(const ebb_run *run, int from)
{
    for (int t = from; t < EBB_TIER_COUNT; t++)
        if (tier_enabled(run, t))
            return t;
    return -1;
}

/* The states tier's budget holds, or the error reading it. */
static ebb_status budget_slots(const ebb_run *run, int tier, int32_t *slots)
{
    const rt_tiers *t = &run->tiers;
    if (!tier_enabled(run, tier))
        return ebb_fail(EBB_ERR_CONFIG, "the %s tier is disabled; expected tier.%s.enabled = true",
                        ebb_tier_name((ebb_tier)tier), ebb_tier_name((ebb_tier)tier));
    if (t->status[tier] != EBB_OK)
        return ebb_fail(t->status[tier], "%s", t->why[tier]);
    *slots = t->slots[tier];
    return EBB_OK;
}

/* Under agreement (agree.h), no more than the least count over the processes. */
static int32_t capped(const ebb_run *run, int tier, int32_t slots)
{
    return tier >= 0 && slots > run->slot_cap[tier] ? run->slot_cap[tier] : slots;
}

/* The processes agree on n, the tiers and the slots (the least over them);
 * a budget that cannot be read limits no one here: it fails later, where
 * the strategy needs it. */
static ebb_status agree_setup(ebb_run *run, int fast, int slow,
                              int32_t *c, int32_t *d_hint)
{
    rt_agree_setup s = {.steps = run->opt.steps, .state_tier = run->opt.state_tier,
                        .fast = fast, .slow = slow, .measure_costs = run->opt.measure_costs};
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        s.slots[t] = 0;
        if (t == fast)
            s.slots[t] = *c;
        else if (t == slow)
            s.slots[t] = *d_hint;
        else if (t > fast && tier_enabled(run, t) &&
                 budget_slots(run, t, &s.slots[t]) != EBB_OK)
            s.slots[t] = INT32_MAX;
    }
    ebb_status st = run->agree->setup(run->agree, &s);
    if (st != EBB_OK)
        return st;
    memcpy(run->slot_cap, s.slots, sizeof s.slots);
    *c = capped(run, fast, *c);
    *d_hint = capped(run, slow, *d_hint);
    return EBB_OK;
}

static ebb_status choose_tiers(ebb_run *run, int *fast, int *slow)
{
    const ebb_run_options *o = &run->opt;
    int first = o->state_tier == EBB_TIER_GPU ? EBB_TIER_GPU : EBB_TIER_HOST;
    *fast = o->fast_tier >= 0 ? o->fast_tier : next_enabled(run, first);
    if (*fast < 0)
        return ebb_fail(EBB_ERR_CONFIG,
                        "no storage tier is enabled for a %s state: enable tier.host or tier.disk",
                        ebb_tier_name(o->state_tier));
    if (*fast < first || *fast >= EBB_TIER_COUNT)
        return ebb_fail(EBB_ERR_INVALID_ARG, "fast_tier %s cannot hold slots for a %s state",
                        ebb_tier_name((ebb_tier)*fast), ebb_tier_name(o->state_tier));
    *slow = o->slow_tier >= 0 ? o->slow_tier : next_enabled(run, *fast + 1);
    if (o->slow_tier >= 0 && (o->slow_tier <= *fast || o->slow_tier >= EBB_TIER_COUNT))
        return ebb_fail(EBB_ERR_INVALID_ARG, "slow_tier must be a tier slower than fast_tier %s",
                        ebb_tier_name((ebb_tier)*fast));
    return EBB_OK;
}

/* Whether the configuration compresses the host tier's slots
 * (tier.host.compression; the planner's run: problem.host_codec), unless
 * auto chose them uncompressed. */
static int host_compressed(const ebb_run *run, const rt_create_args *a)
{
    const ebb_config *cfg = a->config;
    int on = cfg ? cfg->host.enabled && cfg->host.compression.mode != EBB_COMPRESSION_OFF
                 : a->planning && a->costs.host_codec.ratio > 0;
    return on && !run->host_plain;
}

/* The strategy to run (a schedule or async, never auto); run->reason says
 * why. Auto may run the host slots uncompressed: *fast_slots is then their
 * count. */
static ebb_status choose_strategy(ebb_run *run, const rt_create_args *a, int fast,
                                  int32_t *fast_slots, int slow, int32_t slow_slots,
                                  ebb_strategy *out)
{
    ebb_strategy cs = run->opt.strategy;
    int64_t n = run->opt.steps;
    if (cs == EBB_STRATEGY_AUTO && run->opt.state_sizes) {
        *out = EBB_STRATEGY_REVOLVE;
        snprintf(run->reason, sizeof run->reason,
                 "auto: states of different sizes, so revolve over their sizes%s",
                 run->opt.forward_costs ? " and the steps' costs" : "");
        return EBB_OK;
    }
    if (cs == EBB_STRATEGY_AUTO) {
        if (!a->choose)
            return ebb_fail(EBB_ERR_INVALID_ARG, "strategy \"auto\" cannot be chosen here");
        rt_auto_ask ask = {&run->opt, fast, slow, *fast_slots, slow_slots, run->agree,
                           fast == EBB_TIER_HOST && host_compressed(run, a)};
        rt_auto_answer ans;
        memset(&ans, 0, sizeof ans);
        ebb_status st = a->choose(a->choose_ctx, &ask, &ans);
        if (st != EBB_OK)
            return st;
        if (ask.host_packed && ans.host_plain_slots > 0) {
            run->host_plain = 1;
            *fast_slots = run->tiers.slots[EBB_TIER_HOST] = ans.host_plain_slots;
        }
        snprintf(run->reason, sizeof run->reason, "%s", ans.reason);
        if (ans.measured) {
            memcpy(run->plan_channel, ans.channel, sizeof ans.channel);
            run->planned_channels = 1;
        }
        *out = ans.strategy;
        return ans.strategy == EBB_STRATEGY_ASYNC ? EBB_OK
                                                  : ebb_config_strategy_schedule(ans.strategy, out);
    }
    snprintf(run->reason, sizeof run->reason, "%s asked", ebb_strategy_name(cs));
    if (cs != EBB_STRATEGY_ASYNC)
        return ebb_config_strategy_schedule(cs, out);
    /* spare slots are not wasted: what fits runs the cheaper schedule */
    if (n > 0 && *fast_slots >= n - 1) {
        *out = EBB_STRATEGY_STORE_ALL;
        snprintf(run->reason, sizeof run->reason,
                 "async asked; tier.%s holds all %lld states, so store-all",
                 ebb_tier_name((ebb_tier)fast), (long long)n);
    } else if (slow >= 0 && slow_slots <= 0) {
        int32_t none;
        ebb_status st = budget_slots(run, slow, &none);
        return st != EBB_OK ? st
                            : ebb_fail(EBB_ERR_NO_MEMORY, "async: tier.%s holds no state",
                                       ebb_tier_name((ebb_tier)slow));
    } else if (slow < 0) {
        /* measured costs: online, the schedule that plans from them */
        *out = n > 0 && !run->opt.measure_costs ? EBB_STRATEGY_REVOLVE : EBB_STRATEGY_ONLINE;
        snprintf(run->reason, sizeof run->reason, "async asked; no slower tier is enabled, so %s",
                 ebb_strategy_name(*out));
    } else {
        *out = EBB_STRATEGY_ASYNC;
    }
    return EBB_OK;
}

/* The asynchronous strategy's tiers and slots: the fast tier, then every
 * enabled slower one (at most two), each with its budget's slots. */
static ebb_status setup_async(ebb_run *run, int fast, int32_t c)
{
    const ebb_run_options *o = &run->opt;
    rt_async_options ao;
    rt_async_options_init(&ao, o->steps, (ebb_tier)fast, c);
    for (int t = fast + 1; t < EBB_TIER_COUNT; t++) {
        if (!tier_enabled(run, t) || (o->slow_tier >= 0 && t < o->slow_tier))
            continue;
        int32_t d = ao.tiers == 1 && o->slow_slots > 0 ? o->slow_slots : 0;
        ebb_status st;
        if (d <= 0 && (st = budget_slots(run, t, &d)) != EBB_OK)
            return st;
        if (!rt_async_add_tier(&ao, (ebb_tier)t, capped(run, t, d)))
            break;
    }
    if (ao.tiers < 2)
        return ebb_fail(EBB_ERR_CONFIG, "async needs a tier slower than %s: enable tier.disk",
                        ebb_tier_name((ebb_tier)fast));
    ebb_status st = rt_async_create(&ao, &run->async);
    if (st == EBB_OK && o->forward_costs) /* each interval reversed over its costs */
        st = rt_async_set_forward_costs(run->async, o->forward_costs, o->steps);
    if (st != EBB_OK)
        return st;
    for (int l = 0; l < ao.tiers; l++)
        run->async_tier[l] = ao.tier[l];
    run->info.strategy = EBB_STRATEGY_ASYNC;
    run->info.strategy_name = ebb_strategy_name(EBB_STRATEGY_ASYNC);
    run->info.fast_tier = (ebb_tier)fast;
    run->info.slow_tier = ao.tier[ao.tiers - 1];
    rt_async_tier_slots(run->async, run->info.slots);
    return EBB_OK;
}

/* h-revolve's costs (h_costs.h) from the step times and the channels: the
 * planner's problem, or for a real run the disk's figures alone
 * (tier.disk.max_bandwidth and what auto's planner measured); under
 * agreement the largest over the processes, so that all run one schedule. */
static ebb_status set_h_costs(ebb_run *run, const rt_create_args *a, int fast, int slow,
                              ebb_schedule_options *so)
{
    ebb_plan_problem p = a->costs;
    int known = a->costs_known;
    if (!known) {
        memset(p.channel, 0, sizeof p.channel);
        if (slow == EBB_TIER_DISK && run->planned_channels)
            memcpy(p.channel, run->plan_channel, sizeof p.channel);
        if (slow != EBB_TIER_DISK)
            p.disk_pace = 0;
        known = slow == EBB_TIER_DISK && (run->planned_channels || p.disk_pace > 0);
    }
    rt_h_costs c;
    rt_h_costs_of(&p, fast, slow, known, &c);
    if (run->agree) {
        double v[3] = {c.write, c.read, c.reverse};
        ebb_status st = run->agree->predictions(run->agree, v, 3);
        if (st != EBB_OK)
            return st;
        c.write = v[0];
        c.read = v[1];
        c.reverse = v[2];
    }
    so->write_cost = c.write;
    so->read_cost = c.read;
    so->reverse_cost = c.reverse;
    size_t len = strlen(run->reason);
    snprintf(run->reason + len, sizeof run->reason - len,
             "; costs in forward steps: write %.4g, read %.4g, reverse %.4g (%s)", c.write,
             c.read, c.reverse, rt_h_source_text(c.source));
    return EBB_OK;
}

/* The bytes a state of `bytes` takes in the host tier: whole huge pages
 * where the run's states take those (sized_huge), else its bytes. */
static uint64_t state_units(const ebb_run *run, size_t bytes)
{
    uint64_t unit = run->huge ? run->huge : 1;
    return (bytes + unit - 1) / unit * unit;
}

/* Revolve for steps of different costs or states of different sizes: the
 * chain program within `budget` bytes of the fast tier (each step costing
 * 1 where no costs are given, each state state_size bytes where no sizes
 * are). */
static ebb_status costed_schedule(ebb_run *run, int fast, uint64_t budget)
{
    const ebb_run_options *o = &run->opt;
    int64_t n = o->steps;
    const char *what = o->state_sizes ? "state_sizes" : "forward_costs";
    if (n > EBB_CHAIN_MAX_STEPS)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.%s: chains are scheduled for up to %d steps, not %lld",
                        what, EBB_CHAIN_MAX_STEPS, (long long)n);
    uint64_t *bytes = malloc(sizeof *bytes * (size_t)n);
    double *ones = o->forward_costs ? NULL : malloc(sizeof *ones * (size_t)n);
    if (!bytes || (!o->forward_costs && !ones)) {
        free(bytes);
        free(ones);
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the sizes of %lld steps",
                        (long long)n);
    }
    for (int64_t i = 0; i < n; i++) {
        bytes[i] = state_units(run, o->state_sizes ? o->state_sizes[i] : o->state_size);
        if (ones)
            ones[i] = 1;
    }
    ebb_chain chain = {.steps = n, .forward_cost = ones ? ones : o->forward_costs,
                       .reverse_cost = ones ? ones : o->reverse_costs, .state_bytes = bytes};
    ebb_chain_options co;
    ebb_chain_options_init(&co);
    co.memory_bytes = budget;
    co.tier = (ebb_tier)fast;
    ebb_status st = ebb_chain_schedule_create(&chain, &co, &run->schedule);
    free(bytes);
    free(ones);
    if (st != EBB_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", ebb_last_error());
        return ebb_fail(st, "revolve over the chain (ebb_run_options.%s), %llu bytes of "
                        "tier.%s (%s): %s", o->state_sizes ? "state_sizes" : "forward_costs, "
                        "reverse_costs", (unsigned long long)budget,
                        ebb_tier_name((ebb_tier)fast),
                        o->state_sizes && o->slots <= 0 ? "its budget" : "the slots' states",
                        msg);
    }
    return EBB_OK;
}

/* The bytes the chain program may keep in the fast tier: c slots of the
 * largest state where the program asked for slots or the states are of one
 * size, the tier's slots of it where there is no configuration (the
 * planner's run), else the tier's budget. */
static ebb_status chain_budget(const ebb_run *run, const rt_create_args *a, int fast, int32_t c,
                               uint64_t *out)
{
    *out = (uint64_t)c * run->opt.state_size;
    if (!run->opt.state_sizes || run->opt.slots > 0)
        return EBB_OK;
    if (!a->config) {
        ebb_status st = budget_slots(run, fast, &c);
        *out = (uint64_t)c * run->opt.state_size;
        return st;
    }
    return ebb_config_budget(a->config, (ebb_tier)fast, out);
}

/* States of different sizes take host memory in huge pages (fewer faults
 * and TLB misses) where whole huge pages add at most an eighth to their
 * bytes, and in the system's pages otherwise (ebb_pool_options.lazy). */
static size_t sized_huge(const ebb_run *run)
{
    size_t huge = ebb_huge_page_size();
    if (huge == 0 || huge > RT_HUGE_MAX || run->opt.state_size < huge)
        return 0;
    long double bytes = 0, whole = 0;
    for (int64_t i = 0; i <= run->opt.steps; i++) {
        bytes += run->sizes[i];
        whole += (run->sizes[i] + huge - 1) / huge * huge;
    }
    return whole * 8 <= bytes * 9 ? huge : 0;
}

/* What states of different sizes need: one process, a host state whose
 * slots are host memory as it is (taken as written), revolve or store-all. */
static ebb_status sized_check(ebb_run *run, const rt_create_args *a, int fast)
{
    const ebb_run_options *o = &run->opt;
    if (run->agree)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.state_sizes: a run over MPI ranks takes no state sizes");
    if (o->state_tier != EBB_TIER_HOST)
        return ebb_fail(EBB_ERR_UNSUPPORTED,
                        "ebb_run_options.state_sizes: states of different sizes are run for a "
                        "host state; a GPU state's are all state_size bytes");
    if (fast != EBB_TIER_HOST)
        return ebb_fail(EBB_ERR_CONFIG,
                        "ebb_run_options.state_sizes: the states are kept in host memory, "
                        "taken as they are written; enable tier.host (fast tier %s given)",
                        ebb_tier_name((ebb_tier)fast));
    if (host_compressed(run, a))
        return ebb_fail(EBB_ERR_CONFIG,
                        "ebb_run_options.state_sizes: tier.host.compression fixes every "
                        "slot's size; set it to \"off\" for states of different sizes");
    run->huge = a->planning ? 0 : sized_huge(run);
    return EBB_OK;
}

/* States of different sizes are run by revolve (the chain program) and
 * store-all; the other strategies keep states of one size. */
static ebb_status sized_strategy(ebb_strategy strategy)
{
    if (strategy == EBB_STRATEGY_REVOLVE || strategy == EBB_STRATEGY_STORE_ALL)
        return EBB_OK;
    return ebb_fail(EBB_ERR_INVALID_ARG,
                    "ebb_run_options.state_sizes: strategy \"%s\" keeps states of one size; "
                    "ask for \"revolve\" (or \"auto\" or \"store-all\"), or leave the sizes "
                    "NULL",
                    ebb_strategy_name(strategy));
}

/* Store-all over states of different sizes keeps x_0 .. x_{n-1}: their
 * bytes (in whole huge pages where the host tier takes those) must fit the
 * budget chain_budget gives. */
static ebb_status sized_store_all(ebb_run *run, const rt_create_args *a, int fast, int32_t c)
{
    uint64_t budget, all = 0;
    for (int64_t i = 0; i < run->opt.steps; i++)
        all += state_units(run, run->sizes[i]);
    run->sized_budget = all;
    ebb_status st = chain_budget(run, a, fast, c, &budget);
    if (st != EBB_OK || all <= budget)
        return st;
    return ebb_fail(EBB_ERR_NO_MEMORY,
                    "store-all keeps x_0 .. x_{n-1} of ebb_run_options.state_sizes: %llu bytes, "
                    "beyond the %llu of tier.%s (%s); raise it or ask for \"revolve\"",
                    (unsigned long long)all, (unsigned long long)budget,
                    ebb_tier_name((ebb_tier)fast),
                    run->opt.slots > 0 ? "ebb_run_options.slots of state_size"
                    : a->config        ? "its budget"
                                       : "the problem's slots of state_size");
}

/* The offline or online schedule for `strategy` with c fast and d slow slots
 * (d_budget: d is the slow tier's budget, not asked for). */
static ebb_status make_schedule(ebb_run *run, const rt_create_args *a, ebb_strategy strategy,
                                int fast, int slow, int32_t c, int32_t d, int d_budget,
                                ebb_schedule_options *so)
{
    const ebb_run_options *o = &run->opt;
    int64_t n = o->steps;
    ebb_schedule_options_init(so);
    so->strategy = strategy;
    so->steps = n;
    /* more slots than steps are never used: do not allocate them */
    so->slots = n > 0 && c > n ? (int32_t)n : c;
    so->fast_tier = (ebb_tier)fast;
    so->slow_tier = (ebb_tier)(slow >= 0 ? slow : EBB_TIER_DISK);
    so->period = o->period;
    so->io_ratio = o->io_ratio > 0 ? o->io_ratio : 1.0;
    int32_t capped_d = n > 0 && d > n ? (int32_t)n : d;
    if (strategy == EBB_STRATEGY_MULTISTAGE)
        so->disk_slots = capped_d;
    else if (strategy == EBB_STRATEGY_DISK_REVOLVE)
        so->disk_slots = o->slow_slots > 0 ? capped(run, slow, o->slow_slots) : -1;
    else if (strategy == EBB_STRATEGY_H_REVOLVE &&
             (d_budget || o->strategy == EBB_STRATEGY_AUTO))
        so->disk_slots = rt_h_budget_disk_slots(n, so->slots, d); /* as the planner caps them */
    else if (strategy == EBB_STRATEGY_H_REVOLVE)
        so->disk_slots = capped_d;
    else
        so->disk_slots = 0;
    ebb_status st;
    uint64_t budget;
    if ((o->forward_costs || o->state_sizes) && strategy == EBB_STRATEGY_REVOLVE) {
        if ((st = chain_budget(run, a, fast, so->slots, &budget)) != EBB_OK)
            return st;
        run->sized_budget = budget;
        return costed_schedule(run, fast, budget);
    }
    if (strategy == EBB_STRATEGY_H_REVOLVE && (st = set_h_costs(run, a, fast, slow, so)) != EBB_OK)
        return st;
    if (strategy == EBB_STRATEGY_H_REVOLVE && a->planning &&
        (int64_t)(so->slots + so->disk_slots) * n > RT_H_BUDGET_ENTRIES)
        return ebb_fail(EBB_ERR_NO_MEMORY,
                        "h-revolve: the planner plans its programme up to %lld entries, "
                        "(%d memory + %d disk slots) x %lld steps exceed it (run it by name to "
                        "try)",
                        (long long)RT_H_BUDGET_ENTRIES, so->slots, so->disk_slots, (long long)n);
    st = ebb_schedule_create(so, &run->schedule);
    /* h-revolve's table, or slots asked for: more budget would not help */
    if (st == EBB_OK || o->slots > 0 || strategy == EBB_STRATEGY_H_REVOLVE)
        return st;
    char msg[600];
    snprintf(msg, sizeof msg, "%s", ebb_last_error());
    return ebb_fail(EBB_ERR_NO_MEMORY,
                    "%s: the budget of tier.%s holds %d states of %zu bytes; raise it or "
                    "choose another strategy",
                    msg, ebb_tier_name((ebb_tier)fast), c, o->state_size);
}

static void add_warning(ebb_run *run, int tier, const char *warnings);

/* Slots the program asked for (o.slots, o.slow_slots: `key`) override the
 * budget's count (docs/runtime.md); where the schedule uses more of them
 * than the budget holds, the run's warnings say so, with what fits. `used`:
 * the schedule's slots on `tier` (never more than n). */
static void warn_asked(ebb_run *run, const rt_create_args *a, int tier, const char *key,
                       int32_t asked, int32_t used)
{
    const ebb_config *cfg = a->config;
    int32_t holds = 0;
    uint64_t bytes = 0;
    if (a->planning || !cfg || tier < 0 || asked <= 0 || budget_slots(run, tier, &holds) != EBB_OK ||
        used <= holds || ebb_config_budget(cfg, (ebb_tier)tier, &bytes) != EBB_OK)
        return;
    uint64_t set = tier == EBB_TIER_GPU    ? cfg->gpu.budget
                   : tier == EBB_TIER_HOST ? cfg->host.budget
                                           : cfg->disk.budget;
    const char *t = ebb_tier_name((ebb_tier)tier);
    char msg[512];
    snprintf(msg, sizeof msg,
             "ebb_run_options.%s = %d: %d slots, beyond tier.%s.budget (%llu bytes%s), which "
             "holds %d states of %zu bytes; the %d asked for are taken (they override the "
             "budget): ask for at most %d (0: as many as the budget holds) or raise "
             "tier.%s.budget to stay within it",
             key, (int)asked, (int)used, t, (unsigned long long)bytes,
             set == EBB_BUDGET_AUTO ? ", auto" : "", (int)holds, run->opt.state_size, (int)used,
             (int)holds, t);
    add_warning(run, tier, msg);
}

ebb_status rt_setup_schedule(ebb_run *run, const rt_create_args *a)
{
    const ebb_run_options *o = &run->opt;
    if (o->forward_costs && run->agree) /* before the ranks agree on anything */
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.forward_costs: a run over MPI ranks takes no step "
                        "costs (each rank's costs would give another schedule; measure_costs "
                        "takes the largest over the ranks)");
    int fast = -1, slow = -1;
    ebb_status st = choose_tiers(run, &fast, &slow);
    if (st != EBB_OK || (o->state_sizes && (st = sized_check(run, a, fast)) != EBB_OK))
        return st;
    int32_t c = o->slots, d = o->slow_slots;
    if (c <= 0 && o->state_sizes) /* the budget's bytes, not slots (chain_budget) */
        c = o->steps > INT32_MAX ? INT32_MAX : (int32_t)o->steps;
    if (c <= 0 && (st = budget_slots(run, fast, &c)) != EBB_OK)
        return st;
    ebb_strategy strategy;
    run->info.fast_tier = (ebb_tier)fast;
    run->info.reason = run->reason;
    int32_t d_hint = o->slow_slots;
    if (slow >= 0 && d_hint <= 0 && budget_slots(run, slow, &d_hint) != EBB_OK)
        d_hint = 0; /* reported by the strategy that needs the tier */
    if (run->agree && (st = agree_setup(run, fast, slow, &c, &d_hint)) != EBB_OK)
        return st;
    /* as asked (with c = n for the sizes, h-revolve would resolve to store-all) */
    if (o->state_sizes && o->strategy != EBB_STRATEGY_AUTO &&
        (st = sized_strategy((ebb_strategy)o->strategy)) != EBB_OK)
        return st;
    if ((st = choose_strategy(run, a, fast, &c, slow, d_hint, &strategy)) != EBB_OK)
        return st;
    /* auto weighed the costs in its choice; a strategy asked for must take them */
    if (o->forward_costs && o->strategy != EBB_STRATEGY_AUTO &&
        strategy != EBB_STRATEGY_REVOLVE && strategy != EBB_STRATEGY_STORE_ALL &&
        strategy != EBB_STRATEGY_ASYNC)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.forward_costs: strategy \"%s\" does not take step "
                        "costs; ask for \"revolve\" or \"async\" (or \"auto\"), or leave "
                        "the costs NULL",
                        ebb_strategy_name(strategy));
    if (o->state_sizes && (st = sized_strategy(strategy)) != EBB_OK)
        return st;
    if (o->state_sizes && strategy == EBB_STRATEGY_STORE_ALL &&
        (st = sized_store_all(run, a, fast, c)) != EBB_OK)
        return st;
    /* store-all recomputes nothing: the times are kept, nothing is planned */
    if (o->measure_costs && strategy != EBB_STRATEGY_ONLINE && strategy != EBB_STRATEGY_ASYNC &&
        strategy != EBB_STRATEGY_STORE_ALL)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.measure_costs: strategy \"%s\" does not plan its "
                        "reverse sweep from measured times; ask for \"online\" or \"async\" "
                        "(or \"auto\"; n known or not), or give forward_costs to \"revolve\"",
                        ebb_strategy_name(strategy));
    if (run->agree && (st = run->agree->strategy(run->agree, (int)strategy,
                                                 ebb_strategy_name(strategy))) != EBB_OK)
        return st;
    if (strategy == EBB_STRATEGY_ASYNC) {
        if ((st = setup_async(run, fast, c)) != EBB_OK)
            return st;
        int first = run->async_tier[1];
        warn_asked(run, a, fast, "slots", o->slots, run->info.slots[fast]);
        warn_asked(run, a, first, "slow_slots", o->slow_slots, run->info.slots[first]);
        return EBB_OK;
    }
    int two_tiers = strategy == EBB_STRATEGY_MULTISTAGE ||
                    strategy == EBB_STRATEGY_DISK_REVOLVE || strategy == EBB_STRATEGY_H_REVOLVE;
    if (two_tiers && slow < 0)
        return ebb_fail(EBB_ERR_CONFIG, "%s needs a slower tier than %s: enable tier.disk",
                        ebb_strategy_name(strategy), ebb_tier_name((ebb_tier)fast));
    int d_budget = two_tiers && d <= 0;
    if (d_budget && (st = budget_slots(run, slow, &d)) != EBB_OK)
        return st;
    d = capped(run, slow, d);
    ebb_schedule_options so;
    if ((st = make_schedule(run, a, strategy, fast, slow, c, d, d_budget, &so)) != EBB_OK)
        return st;
    int32_t used[EBB_TIER_COUNT];
    ebb_schedule_tier_slots(run->schedule, used);
    if (two_tiers && used[slow] > d)
        return ebb_fail(EBB_ERR_NO_MEMORY,
                        "%s needs %d %s slots, but tier.%s's budget holds %d states of %zu bytes",
                        ebb_strategy_name(strategy), used[slow], ebb_tier_name((ebb_tier)slow),
                        ebb_tier_name((ebb_tier)slow), d, o->state_size);
    warn_asked(run, a, fast, "slots", o->slots, used[fast]);
    if (two_tiers)
        warn_asked(run, a, slow, "slow_slots", o->slow_slots, used[slow]);
    run->info.strategy = strategy;
    run->info.strategy_name = ebb_strategy_name(strategy);
    run->info.slow_tier = (ebb_tier)so.slow_tier;
    memcpy(run->info.slots, used, sizeof used);
    return EBB_OK;
}

static void add_warning(ebb_run *run, int tier, const char *warnings)
{
    if (!warnings[0])
        return;
    size_t len = strlen(run->warnings);
    snprintf(run->warnings + len, sizeof run->warnings - len, "%s%s: %s", len ? "; " : "",
             ebb_tier_name((ebb_tier)tier), warnings);
}

/* Pool options for `tier` from the configuration, or the defaults when the
 * tier only holds the runtime's own buffers (a disabled host tier). */
static ebb_status pool_options(const ebb_config *cfg, int tier, size_t state, int32_t count,
                               ebb_pool_options *po)
{
    if (!cfg) { /* the planner's pools hold no memory */
        ebb_pool_options_init(po, (ebb_tier)tier);
    } else if ((tier == EBB_TIER_GPU && cfg->gpu.enabled) ||
               (tier == EBB_TIER_HOST && cfg->host.enabled) ||
               (tier == EBB_TIER_DISK && cfg->disk.enabled)) {
        ebb_status st = ebb_config_pool_options(cfg, (ebb_tier)tier, state, po);
        if (st != EBB_OK && tier != EBB_TIER_DISK) {
            ebb_pool_options_init(po, (ebb_tier)tier);
            po->device = cfg->gpu.device;
        } else if (st != EBB_OK) {
            return st;
        }
    } else if (tier == EBB_TIER_DISK) {
        return ebb_fail(EBB_ERR_CONFIG,
                        "the schedule stores states on disk but tier.disk.enabled = false");
    } else {
        ebb_pool_options_init(po, (ebb_tier)tier);
        po->device = cfg->gpu.device;
    }
    po->slot_size = state;
    po->slots = count;
    return EBB_OK;
}

void rt_codec_for_state(ebb_codec_options *c, const ebb_run_options *o)
{
    if (o->element >= 0)
        c->element = (ebb_element)o->element;
    c->dims = o->dims;
    memcpy(c->shape, o->shape, sizeof c->shape);
}

/* A pool's compression (the disk's, or the host tier's compressed slots):
 * the configuration's, with the element type and the shape the program
 * gave; a lossy mode needs a float element. */
static ebb_status compression_options(ebb_run *run, int tier, ebb_pool_options *po)
{
    if (!po->compression)
        return EBB_OK;
    ebb_codec_options *c = tier == EBB_TIER_HOST ? &run->host_codec : &run->codec;
    const char *t = ebb_tier_name((ebb_tier)tier);
    *c = *po->compression;
    rt_codec_for_state(c, &run->opt);
    po->compression = c;
    if (ebb_compression_lossy(c->mode) && c->element == EBB_ELEMENT_BYTES)
        return ebb_fail(EBB_ERR_CONFIG,
                        "tier.%s.compression = \"%s\" (zfp) needs the states' element type: "
                        "set tier.%s.element = \"float32\" or \"float64\", or "
                        "ebb_run_options.element",
                        t, ebb_compression_name(c->mode), t);
    return EBB_OK;
}

int rt_tier_lossy(const ebb_run *run, int tier)
{
    if (tier == EBB_TIER_DISK)
        return run->disk && ebb_compression_lossy(run->codec.mode);
    return tier == EBB_TIER_HOST && run->packed && ebb_compression_lossy(run->host_codec.mode);
}

/* A run with n unknown may be given far more slots than it fills (the
 * whole budget: half the machine's memory, half the device's free memory
 * by default; up to 1 GiB of disk), so its pools are made ready in extents
 * (ebb_pool_options.ready_slots) from this much, doubling what is ready as
 * buffers beyond it are first needed. A host extent is faulted in (and
 * pinned) when it is made: 1 MiB keeps a short run's start-up to about a
 * millisecond; a gpu extent is one cudaMalloc, whose cost hardly depends on
 * its size; a disk extent is one fallocate a file, counted in slots of at
 * least a page (a disk slot's size). */
#define RT_HOST_FIRST_EXTENT ((size_t)1 << 20)
#define RT_GPU_FIRST_EXTENT ((size_t)64 << 20)
#define RT_DISK_FIRST_EXTENT ((size_t)16 << 20)

static int32_t first_extent(const ebb_run *run, int tier, int32_t count)
{
    size_t size = run->opt.state_size;
    size_t k = tier == EBB_TIER_GPU    ? RT_GPU_FIRST_EXTENT / size
               : tier == EBB_TIER_DISK ? RT_DISK_FIRST_EXTENT / (size < 4096 ? 4096 : size)
                                       : RT_HOST_FIRST_EXTENT / size;
    if (k < 8)
        k = 8;
    return k < (size_t)count ? (int32_t)k : count;
}

static ebb_status make_pool(ebb_run *run, const rt_create_args *a, int tier, int32_t count,
                            rt_pool **out)
{
    ebb_pool_options po;
    const ebb_config *cfg = a->config;
    ebb_status st = pool_options(cfg, tier, run->opt.state_size, count, &po);
    if (st == EBB_OK && tier == EBB_TIER_DISK)
        st = compression_options(run, tier, &po);
    if (st != EBB_OK)
        return st;
    if (tier == EBB_TIER_HOST) /* its buffers hold states as they are (packed: below) */
        po.compression = NULL;
    if (tier == EBB_TIER_GPU && run->opt.device >= 0)
        po.device = run->opt.device;
    if (tier == EBB_TIER_HOST && run->opt.state_tier == EBB_TIER_GPU)
        po.device = run->opt.device >= 0 ? run->opt.device : cfg ? cfg->gpu.device : 0;
    if (run->opt.steps == 0)
        po.ready_slots = first_extent(run, tier, count);
    /* states of different sizes: each buffer takes what it holds */
    po.lazy = tier != EBB_TIER_HOST || !run->sizes ? 0
              : run->huge                          ? EBB_LAZY_HUGE
                                                   : EBB_LAZY_PAGES;
    int disk = tier == EBB_TIER_DISK;
    /* faults: the disk's, and the host's prefault and first extent (tests) */
    st = run->io->ops->pool_create(run->io, &po, disk ? run->host.pool : NULL,
                                   disk || tier == EBB_TIER_HOST ? a->fault : NULL, out);
    if (st != EBB_OK)
        return ebb_fail_context(st, "creating the %s tier (%d slots of %zu bytes)",
                                ebb_tier_name((ebb_tier)tier), count, run->opt.state_size);
    char warnings[512];
    uint64_t bytes = 0;
    if ((st = run->io->ops->pool_info(run->io, *out, &bytes, warnings, sizeof warnings)) != EBB_OK)
        return st;
    add_warning(run, tier, warnings);
    run->info.buffers[tier] = count;
    run->info.bytes[tier] = bytes;
    return EBB_OK;
}

/* Buffers of `tier` beyond the schedule's `used` slots and the `working`
 * ones, for the transfers from and to the tier below (written behind the
 * forward sweep, read ahead of the reverse sweep): what the tier's budget
 * leaves free, at most EBB_STAGING_AUTO_MAX bytes' worth and no more than
 * `useful` (the slots below: more transfers cannot be in flight). */
static int32_t spare_buffers(const ebb_run *run, int tier, int32_t used, int32_t working,
                             int64_t useful)
{
    int64_t n = (int64_t)run->tiers.slots[tier] - used - working;
    int64_t cap = (int64_t)(EBB_STAGING_AUTO_MAX / run->opt.state_size);
    if (n > cap)
        n = cap;
    if (n > useful)
        n = useful;
    return n > 0 ? (int32_t)n : 0;
}

/* Whether the schedule's host slots are compressed. */
static int host_packed(const ebb_run *run, const rt_create_args *a)
{
    return host_compressed(run, a) && run->info.slots[EBB_TIER_HOST] > 0;
}

/* The compressed host pool that holds the schedule's host slots (packed.c). */
static ebb_status make_packed_pool(ebb_run *run, const rt_create_args *a, int32_t count)
{
    if (run->opt.state_tier == EBB_TIER_GPU)
        return ebb_fail(EBB_ERR_CONFIG,
                        "tier.host.compression = \"%s\" is for a host state only: a GPU state's "
                        "host slots are copied to and from the device, which a compressed slot "
                        "cannot be; set it to \"off\", or keep the state on the host",
                        a->config ? ebb_compression_name(a->config->host.compression.mode)
                                  : "fixed-rate");
    ebb_pool_options po;
    ebb_status st = pool_options(a->config, EBB_TIER_HOST, run->opt.state_size, count, &po);
    if (st == EBB_OK && !a->config) {
        /* the planner's pool holds no memory: the codec only marks it
         * compressed, its figures are the problem's */
        ebb_codec_options_init(&run->host_codec);
        run->host_codec.mode = EBB_COMPRESSION_FIXED_RATE;
        po.compression = &run->host_codec;
    }
    if (st == EBB_OK && a->config)
        st = compression_options(run, EBB_TIER_HOST, &po);
    if (st != EBB_OK)
        return st;
    if (run->opt.steps == 0)
        po.ready_slots = first_extent(run, EBB_TIER_HOST, count);
    st = run->io->ops->pool_create(run->io, &po, NULL, a->fault, &run->packed);
    if (st != EBB_OK)
        return ebb_fail_context(st, "creating the host tier's compressed slots (%d of a %zu-byte "
                                "state)", count, run->opt.state_size);
    char warnings[512];
    uint64_t bytes = 0;
    if ((st = run->io->ops->pool_info(run->io, run->packed, &bytes, warnings, sizeof warnings)) !=
        EBB_OK)
        return st;
    add_warning(run, EBB_TIER_HOST, warnings);
    run->info.buffers[EBB_TIER_HOST] += count;
    run->info.bytes[EBB_TIER_HOST] += bytes;
    run->packed_slots = count;
    run->packed_pending = calloc((size_t)count, sizeof *run->packed_pending);
    if (!run->packed_pending)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the runtime's host slot table");
    return EBB_OK;
}

/* States of different sizes: the host buffers take memory as states are
 * written, up to the stored states' bytes (run->sized_budget: revolve's
 * budget, or every state for store-all) and the two working states
 * (rt_lazy_wrote). */
static ebb_status lazy_limit(ebb_run *run)
{
    rt_mem *m = &run->host;
    m->unit = run->huge ? run->huge : 1;
    m->held = calloc((size_t)(m->count > 0 ? m->count : 1), sizeof *m->held);
    m->used = calloc((size_t)(m->count > 0 ? m->count : 1), sizeof *m->used);
    if (!m->held || !m->used)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the runtime's host buffer table");
    m->held_limit = run->sized_budget + 2 * state_units(run, run->opt.state_size);
    m->lazy = run->io;
    return EBB_OK;
}

ebb_status rt_setup_pools(ebb_run *run, const rt_create_args *a)
{
    const int32_t *used = run->info.slots;
    int gpu_state = run->opt.state_tier == EBB_TIER_GPU;
    int disk = used[EBB_TIER_DISK] > 0;
    int packed = host_packed(run, a);
    int32_t working = gpu_state ? 0 : 2;
    int32_t staging = 0;
    uint64_t key = a->config ? a->config->host.staging : EBB_BUDGET_AUTO;
    if ((disk || packed) && run->opt.staging > 0)
        staging = run->opt.staging;
    else if ((disk || packed) && key != EBB_BUDGET_AUTO)
        staging = key / run->opt.state_size > INT32_MAX ? INT32_MAX
                                                         : (int32_t)(key / run->opt.state_size);
    else if (disk && !packed) /* (packed: the budget went to the compressed slots) */
        staging = spare_buffers(run, EBB_TIER_HOST, used[EBB_TIER_HOST], working,
                                used[EBB_TIER_DISK]);
    if (disk && staging < 2)
        staging = 2;
    /* packed: one buffer more than the working ones, so that a store's
     * compression runs during the next step, not before the one after */
    if (packed && staging < 1)
        staging = 1;
    int32_t schedule_host = packed ? 0 : used[EBB_TIER_HOST];
    int32_t host_count = schedule_host + working + staging;
    int hash_gpu = gpu_state && run->info.audit == EBB_AUDIT_HASH;
    host_count += hash_gpu;
    ebb_status st;
    rt_pool *pool = NULL;
    run->scratch = -1;
    if (gpu_state) {
        /* restores from host slots are copied up ahead into the spare ones
         * (at least two: working memory, as the staging ones of the host) */
        int32_t spare = spare_buffers(run, EBB_TIER_GPU, used[EBB_TIER_GPU], 2,
                                      used[EBB_TIER_HOST]);
        if (used[EBB_TIER_HOST] > 0 && spare < 2)
            spare = used[EBB_TIER_HOST] < 2 ? used[EBB_TIER_HOST] : 2;
        int32_t count = used[EBB_TIER_GPU] + 2 + spare;
        if ((st = make_pool(run, a, EBB_TIER_GPU, count, &pool)) != EBB_OK ||
            (st = rt_mem_init(&run->gpu, pool, EBB_TIER_GPU, count, used[EBB_TIER_GPU])) != EBB_OK)
            return st;
        if (run->opt.steps > 0) /* n unknown: the tables stay untouched until used */
            rt_mem_populate(&run->gpu);
        run->gpu.spare = spare;
    }
    pool = NULL;
    if (host_count > 0) {
        if ((st = make_pool(run, a, EBB_TIER_HOST, host_count, &pool)) != EBB_OK)
            return st;
    }
    if ((st = rt_mem_init(&run->host, pool, EBB_TIER_HOST, host_count, schedule_host)) != EBB_OK)
        return st;
    if (run->sizes && run->io->ops->discard && (st = lazy_limit(run)) != EBB_OK)
        return st;
    if (run->opt.steps > 0) /* n unknown: the tables stay untouched until used */
        rt_mem_populate(&run->host);
    if (packed && (st = make_packed_pool(run, a, used[EBB_TIER_HOST])) != EBB_OK)
        return st;
    run->host.spare = staging;
    run->info.staging = staging;
    if (hash_gpu) /* buffer 0: ready in a pool made ready in extents */
        rt_set_ref(&run->host, &run->scratch, 0);
    run->state = gpu_state ? &run->gpu : &run->host;
    if (disk) {
        run->disk_slots = used[EBB_TIER_DISK];
        if ((st = make_pool(run, a, EBB_TIER_DISK, run->disk_slots, &run->disk)) != EBB_OK)
            return st;
        run->disk_pending = calloc((size_t)run->disk_slots, sizeof *run->disk_pending);
        /* zeroed, untouched for the slots the run never uses */
        run->disk_cache = calloc((size_t)run->disk_slots, sizeof *run->disk_cache);
        if (!run->disk_pending || !run->disk_cache)
            return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the runtime's disk tables");
    }
    run->warnings[sizeof run->warnings - 1] = '\0';
    run->info.warnings = run->warnings;
    return rt_ahead_init(run);
}
