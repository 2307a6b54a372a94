/* Slots asked for (ebb_run_options.slots, slow_slots) override the count
 * a tier's budget gives (docs/runtime.md, Strategies, tiers and slots), and
 * where the schedule uses more than the budget holds the run says so in
 * ebb_run_info.warnings, naming the option, the budget and what fits;
 * slots within it and slots beyond n (never allocated) say nothing. */
#include "runtime/workload.h"

#define STATE 4096

/* A run of o created and both sweeps run, the adjoint store-all's; returns
 * its warnings (static). */
static const char *warnings_of(const ebb_run_options *o, ebb_tier tier, int32_t slots, int most)
{
    static char warnings[1024];
    ebb_run *run = wl_create(o);
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
    cr_assert(most ? info.slots[tier] <= slots : info.slots[tier] == slots,
              "%s slots %d, expected %s%d", ebb_tier_name(tier), (int)info.slots[tier],
              most ? "at most " : "", (int)slots);
    snprintf(warnings, sizeof warnings, "%s", info.warnings ? info.warnings : "");
    ebb_run_destroy(run);
    wl *w = o->user;
    w->adjoint = 0x5eed;
    w->expect_reverse = -1;
    cr_assert_eq(wl_run(o, NULL, w, 7, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(w->adjoint, wl_reference_like(w, o->steps > 0 ? o->steps : w->last_at + 1, 7));
    return warnings;
}

static void says(const char *warnings, const char *want)
{
    cr_assert(strstr(warnings, want), "warnings '%s' lack '%s'", warnings, want);
}

static void silent(const char *warnings)
{
    cr_assert(!strstr(warnings, "ebb_run_options."), "warnings: %s", warnings);
}

Test(asked_slots_beyond_budget, fast_slots)
{
    wl_setup env;
    wl_setup_open(&env);
    env.cfg.host.budget = 64 * 1024; /* 16 states of 4 KiB */
    env.cfg.disk.enabled = 0;
    wl w;
    wl_init(&w, STATE);
    ebb_run_options o = wl_options(&w, &env.cfg, 40);
    o.strategy = EBB_STRATEGY_REVOLVE;
    o.slots = 20;
    says(warnings_of(&o, EBB_TIER_HOST, 20, 0),
         "host: ebb_run_options.slots = 20: 20 slots, beyond tier.host.budget (65536 bytes), "
         "which holds 16 states of 4096 bytes; the 20 asked for are taken (they override the "
         "budget): ask for at most 16 (0: as many as the budget holds) or raise "
         "tier.host.budget to stay within it");
    o.slots = 16;
    silent(warnings_of(&o, EBB_TIER_HOST, 16, 0));
    /* slots beyond n are never allocated: 20 asked, at most 10 used */
    wl_init(&w, STATE);
    o = wl_options(&w, &env.cfg, 10);
    o.strategy = EBB_STRATEGY_REVOLVE;
    o.slots = 20;
    silent(warnings_of(&o, EBB_TIER_HOST, 10, 1));
    /* n unknown: every slot asked for may fill */
    wl_init(&w, STATE);
    w.last_at = 29;
    o = wl_options(&w, &env.cfg, 0);
    o.strategy = EBB_STRATEGY_ONLINE;
    o.slots = 17;
    says(warnings_of(&o, EBB_TIER_HOST, 17, 0),
         "ebb_run_options.slots = 17: 17 slots, beyond tier.host.budget (65536 bytes)");
    wl_setup_close(&env);
}

Test(asked_slots_beyond_budget, slow_slots)
{
    wl_setup env;
    wl_setup_open(&env);
    env.cfg.host.budget = 64 * 1024;
    env.cfg.disk.budget = 8 * STATE; /* 8 disk slots */
    wl w;
    wl_init(&w, STATE);
    ebb_run_options o = wl_options(&w, &env.cfg, 40);
    o.strategy = EBB_STRATEGY_MULTISTAGE;
    o.slots = 4;
    o.slow_slots = 12;
    says(warnings_of(&o, EBB_TIER_DISK, 12, 0),
         "disk: ebb_run_options.slow_slots = 12: 12 slots, beyond tier.disk.budget (32768 "
         "bytes), which holds 8 states of 4096 bytes; the 12 asked for are taken");
    o.slow_slots = 8;
    silent(warnings_of(&o, EBB_TIER_DISK, 8, 0));
    /* async: its fast slots, then the first slower tier's */
    o = wl_options(&w, &env.cfg, 40);
    o.strategy = EBB_STRATEGY_ASYNC;
    o.slots = 20;
    o.slow_slots = 30;
    const char *both = warnings_of(&o, EBB_TIER_HOST, 20, 0);
    says(both, "host: ebb_run_options.slots = 20: 20 slots, beyond tier.host.budget");
    says(both, "disk: ebb_run_options.slow_slots = 30: ");
    says(both, "beyond tier.disk.budget (32768 bytes), which holds 8 states");
    cr_assert_eq(wl_dir_entries(env.dir), 0, "no file left");
    wl_setup_close(&env);
}
