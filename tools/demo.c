/*
 * `ebb demo`: the main job on the default configuration. Until the runtime
 * lands it sizes the tiers from the configuration (the embedded default, or
 * --config F) for one problem (a million steps of a 16 MiB state), plans every
 * strategy that fits those budgets and compares what each costs; every
 * stream is checked by the replay validator.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ebb/ebb.h"
#include "tools/cli.h"
#include "tools/options.h"
#include "tools/replay_progress.h"

enum { DEMO_STEPS = 1000000 };
static const char *const demo_state = "16 MiB";
/* Disk write + read time of one state in forward steps, for disk-revolve,
 * until `ebb bench --step-ms` feeds the real ratio in. */
static const double demo_io_ratio = 8.0;

static const char demo_help[] =
    "usage: ebb demo [--config FILE] [--steps N] [--state-size SIZE]\n"
    "\n"
    "Sizes the memory and disk tiers from the configuration (default: the\n"
    "embedded one), then plans and validates every strategy that fits them\n"
    "for N steps (default 1000000) of a SIZE state (default 16 MiB). On a terminal\n"
    "a strategy that plans for over half a second (online) shows its progress on\n"
    "standard error; to a file or a pipe, none.\n";

/* "11.3 GiB": a rounded size for people (ebb_format_size is exact). */
static void human_size(uint64_t bytes, char *buf, size_t len)
{
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, len, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
}

/* Slots of `state` bytes the tier's pool would have (ebb_config_pool_options:
 * its budget in the pool's own slot rounding), 0 if the tier is off; -1
 * with the reason in ebb_last_error() when it holds none. */
static int32_t tier_slots(const ebb_config *cfg, ebb_tier tier, uint64_t state, char *budget_text,
                          size_t len)
{
    uint64_t bytes = 0;
    snprintf(budget_text, len, "off");
    if (ebb_config_budget(cfg, tier, &bytes) != EBB_OK || bytes == 0)
        return 0;
    human_size(bytes, budget_text, len);
    ebb_pool_options o;
    if (ebb_config_pool_options(cfg, tier, (size_t)state, &o) != EBB_OK)
        return -1;
    return o.slots;
}

static void plan_row(ebb_schedule_options o, int64_t steps)
{
    ebb_schedule_stats st;
    memset(&st, 0, sizeof st);
    double t0 = cli_now();
    ebb_schedule *schedule = NULL;
    ebb_status s = ebb_schedule_create(&o, &schedule);
    if (s == EBB_OK) { /* as ebb_schedule_validate, with its progress on a terminal */
        char label[64];
        snprintf(label, sizeof label, "ebb demo: %s", ebb_strategy_name(o.strategy));
        replay_progress progress;
        replay_progress_begin(&progress, label, steps, NULL, NULL);
        s = ebb_schedule_replay_own(schedule, steps, &st, replay_progress_visit, &progress);
        replay_progress_end(&progress);
        ebb_schedule_destroy(schedule);
    }
    double dt = cli_now() - t0;
    if (s != EBB_OK) {
        printf("%-13s does not fit: %s\n", ebb_strategy_name(o.strategy), ebb_last_error());
        return;
    }
    printf("%-13s %14lld %10.3f %10d %10d %9.3f\n", ebb_strategy_name(o.strategy),
           (long long)st.forward_steps, (double)st.forward_steps / (double)steps,
           st.peak_slots[o.fast_tier], st.peak_slots[o.slow_tier], dt);
}

typedef struct demo_args {
    const char *config, *state;
    int64_t steps;
} demo_args;

#define OPT(n, k, f) CLI_OPT(demo_args, n, k, f)
static const cli_option demo_options[] = {
    {OPT("config", CLI_STRING, config)},
    {OPT("steps", CLI_INT64, steps), .min = 1, .max = INT64_C(1) << 40},
    {OPT("state-size", CLI_STRING, state)},
};
#undef OPT
static const cli_command demo_command = {"demo", demo_help, demo_options,
                                         sizeof demo_options / sizeof *demo_options, 0,
                                         ": demo takes options only"};

/* The tiers' slots of a `state` state; 0, or 1 after printing why not. */
static int size_tiers(const demo_args *a, const ebb_config *cfg, uint64_t state, int32_t *host,
                      int32_t *disk)
{
    char host_text[32], disk_text[32], state_fmt[32];
    *host = tier_slots(cfg, EBB_TIER_HOST, state, host_text, sizeof host_text);
    *disk = *host < 0 ? 0 : tier_slots(cfg, EBB_TIER_DISK, state, disk_text, sizeof disk_text);
    if (*host < 0 || *disk < 0) {
        fprintf(stderr, "ebb demo: %s\n", ebb_last_error());
        return 1;
    }
    human_size(state, state_fmt, sizeof state_fmt);
    printf("ebb %s demo on %s\n", ebb_version(),
           a->config ? a->config : "the embedded default configuration");
    printf("  host tier %s -> %d slots of %s; disk tier %s in %s -> %d slots\n", host_text, *host,
           state_fmt, disk_text, cfg->disk.enabled && cfg->disk.path_count ? cfg->disk.paths[0] : "-",
           *disk);
    printf("  problem: reverse n = %lld steps (store-all would need %lld slots)\n\n",
           (long long)a->steps, (long long)(a->steps - 1));
    if (*host < 1) {
        fprintf(stderr, "ebb demo: the host tier holds no %s state; give it a budget\n", state_fmt);
        return 1;
    }
    return 0;
}

/* One row per strategy that fits host (and disk) slots. */
static void plan_rows(int64_t steps, int32_t host, int32_t disk)
{
    printf("%-13s %14s %10s %10s %10s %9s\n", "strategy", "forward steps", "per step", "mem peak",
           "disk peak", "seconds");
    for (int s = 0; s < EBB_STRATEGY_COUNT; s++) {
        ebb_schedule_options o;
        ebb_schedule_options_init(&o);
        o.strategy = (ebb_strategy)s;
        o.steps = steps;
        o.slots = host;
        if (o.strategy == EBB_STRATEGY_MULTISTAGE || o.strategy == EBB_STRATEGY_DISK_REVOLVE ||
            o.strategy == EBB_STRATEGY_H_REVOLVE) {
            if (disk < 1)
                continue;
            o.disk_slots = disk;
            o.io_ratio = demo_io_ratio;
            o.write_cost = o.read_cost = demo_io_ratio / 2; /* h-revolve */
        }
        plan_row(o, steps);
    }
    printf("\nEvery stream above was replayed by the validator: each reverse step saw\n"
           "exactly its state. 'ebb plan --help' explores one strategy in detail.\n");
}

int ebb_cmd_demo(int argc, char **argv)
{
    demo_args a = {NULL, demo_state, DEMO_STEPS};
    cli_parsed parsed;
    int rc = cli_parse(&demo_command, argc, argv, &a, &parsed);
    if (rc != CLI_OK)
        return rc == CLI_HELP ? 0 : rc;
    uint64_t state = 0;
    if (ebb_parse_size(a.state, &state) != EBB_OK) {
        fprintf(stderr, "ebb demo: --state-size: %s\n", ebb_last_error());
        return 2;
    }
    if (state == 0) {
        fprintf(stderr, "ebb demo: --state-size must be at least 1 byte, got '%s'\n", a.state);
        return 2;
    }
    ebb_config cfg;
    if (ebb_config_init_default(&cfg) != EBB_OK ||
        (a.config && ebb_config_load_file(a.config, &cfg) != EBB_OK) ||
        ebb_config_check(&cfg, state) != EBB_OK) {
        fprintf(stderr, "ebb demo: %s\n", ebb_last_error());
        ebb_config_dispose(&cfg);
        return 1;
    }
    int32_t host = 0, disk = 0;
    rc = size_tiers(&a, &cfg, state, &host, &disk);
    if (rc == 0)
        plan_rows(a.steps, host, disk);
    ebb_config_dispose(&cfg);
    return rc;
}
