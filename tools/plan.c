/* `ebb plan`: generate a schedule, validate it, print what it costs. */
#include <math.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ebb/ebb.h"
#include "tools/cli.h"
#include "tools/json.h"
#include "tools/options.h"
#include "tools/plan_predict.h"
#include "tools/replay_progress.h"

static const char plan_help[] =
    "usage: ebb plan --steps N --slots C [options]\n"
    "\n"
    "Generates a checkpointing schedule, replays it through the validator and\n"
    "prints what it costs.\n"
    "\n"
    "  --steps N          steps to reverse (n >= 1)\n"
    "  --slots C          memory slots, the one holding x_0 included (C >= 1)\n"
    "  --disk-slots D     disk slots (multistage, h-revolve; disk-revolve: default\n"
    "                     as needed)\n"
    "  --strategy S       store-all | periodic | revolve | online | multistage |\n"
    "                     disk-revolve | h-revolve (default revolve)\n"
    "  --period K         periodic: store every K-th state (default: smallest K that\n"
    "                     fits C); disk-revolve: the period (default: from --io-ratio)\n"
    "  --io-ratio R       disk-revolve: (write + read time of a state) / step time\n"
    "                     (default W + R when --write-cost or --read-cost is given)\n"
    "  --write-cost W     one disk write, in forward steps (default 1)\n"
    "  --read-cost R      one disk read, in forward steps (default 1)\n"
    "  --reverse-cost B   one reverse step, in forward steps (default 1)\n"
    "                     h-revolve minimises the cost under W, R, B; every strategy\n"
    "                     reports its cost = forward steps + B x reverse steps +\n"
    "                     W x disk writes + R x disk reads (memory is free)\n"
    "  --json             print one JSON object\n"
    "  --actions          print the action stream, one action a line\n"
    "\n"
    "With --state-size, --forward-ms and --reverse-ms it predicts the time of each\n"
    "strategy instead: 'ebb plan --state-size 1 --forward-ms 1 --reverse-ms 1 --help'.\n"
    "With --chain FILE --memory SIZE it plans a chain of steps with their own costs\n"
    "and state sizes, with --chain FILE --least-peak its checkpoints of least peak\n"
    "memory: 'ebb plan --chain - --help'.\n"
    "\n"
    "A replay that runs over half a second shows its progress (the step, and in\n"
    "the reverse sweep an estimate of the time left) on standard error when that\n"
    "is a terminal; to a file or a pipe, none.\n";

typedef struct {
    FILE *out;
    int64_t printed;
    int error; /* errno of a failed write; the replay stops there */
} action_printer;

static ebb_status print_actions(void *user, const ebb_action *a, size_t n)
{
    action_printer *p = user;
    char line[128];
    for (size_t i = 0; i < n; i++) {
        ebb_action_format(&a[i], line, sizeof line);
        fputs(line, p->out);
        fputc('\n', p->out);
    }
    p->printed += (int64_t)n;
    if (ferror(p->out)) { /* /dev/full, a closed file: stop, not hours later */
        p->error = errno ? errno : EIO;
        return EBB_ERR_IO;
    }
    return EBB_OK;
}

typedef struct plan_args {
    ebb_schedule_options o;
    int json, actions;
} plan_args;

/* ebb_strategy_from_name, whose message names the strategies; async and
 * auto decide while they run, from times a schedule alone does not have. */
static int strategy_check(const cli_ctx *ctx, void *field)
{
    if (ebb_strategy_from_name(ctx->text, field) == EBB_OK) {
        ebb_strategy s = *(ebb_strategy *)field;
        if (s != EBB_STRATEGY_ASYNC && s != EBB_STRATEGY_AUTO)
            return 0;
        cli_error(ctx, "--strategy %s decides while it runs, from the step and transfer times: "
                  "give them to predict it (--state-size BYTES --forward-ms F --reverse-ms B), "
                  "or run it (ebb run --strategy %s)", ctx->text, ctx->text);
        return -1;
    }
    cli_error(ctx, "%s", ebb_last_error());
    return -1;
}

#define OPT(n, k, f) CLI_OPT(plan_args, n, k, f)
static const cli_option plan_options[] = {
    {OPT("steps", CLI_INT64, o.steps), .min = 1, .max = INT64_MAX / 4},
    {OPT("slots", CLI_INT32, o.slots), .min = 1, .max = INT32_MAX},
    {OPT("disk-slots", CLI_INT32, o.disk_slots), .min = 0, .max = INT32_MAX},
    {OPT("strategy", CLI_CUSTOM, o.strategy), .check = strategy_check},
    {OPT("period", CLI_INT64, o.period), .min = 1, .max = INT64_MAX / 4},
    {OPT("io-ratio", CLI_DOUBLE, o.io_ratio)},
    {OPT("json", CLI_FLAG, json)},
    {OPT("actions", CLI_FLAG, actions)},
    {OPT("write-cost", CLI_DOUBLE, o.write_cost)},
    {OPT("read-cost", CLI_DOUBLE, o.read_cost)},
    {OPT("reverse-cost", CLI_DOUBLE, o.reverse_cost)},
};
#undef OPT
static const cli_command plan_command = {"plan", plan_help, plan_options,
                                         sizeof plan_options / sizeof *plan_options, 0, NULL};

/* Parses the options into a; returns 0, 1 after --help, or 2 after printing why not. */
static int parse(int argc, char **argv, plan_args *a)
{
    cli_parsed parsed;
    int rc = cli_parse(&plan_command, argc, argv, a, &parsed);
    if (rc != CLI_OK)
        return rc;
    ebb_schedule_options *o = &a->o;
    if (!cli_given(&plan_command, &parsed, "steps") || !cli_given(&plan_command, &parsed, "slots")) {
        fprintf(stderr, "ebb plan: --steps N and --slots C are required (see 'ebb plan --help')\n");
        return 2;
    }
    int have_io_cost = cli_given(&plan_command, &parsed, "write-cost") ||
                       cli_given(&plan_command, &parsed, "read-cost");
    if (o->strategy == EBB_STRATEGY_MULTISTAGE && o->disk_slots < 0)
        o->disk_slots = 0;
    /* Disk-Revolve's period follows from the disk costs when they are given. */
    if (o->strategy == EBB_STRATEGY_DISK_REVOLVE && have_io_cost && o->io_ratio == 0 &&
        o->period == 0)
        o->io_ratio = o->write_cost + o->read_cost;
    return 0;
}

static void print_tier_counts(json_writer *w, const char *key, const int64_t *counts,
                              const int32_t *budget)
{
    json_object(w, key);
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        if (budget[t] > 0 || counts[t] > 0)
            json_int(w, ebb_tier_name((ebb_tier)t), counts[t]);
    json_close(w);
}

/* The stream's cost under the options' costs: the slow tier's writes and
 * reads at W and R, the fast tier free, reverse steps at B. */
static double stream_cost(const ebb_schedule_options *o, const ebb_schedule_stats *st)
{
    ebb_stream_costs c;
    memset(&c, 0, sizeof c);
    c.write[o->slow_tier] = o->write_cost;
    c.read[o->slow_tier] = o->read_cost;
    c.reverse = o->reverse_cost;
    double cost = 0;
    ebb_stream_cost(st, &c, &cost);
    return cost;
}

static void print_json(const ebb_schedule_options *o, int64_t period, const ebb_schedule_stats *st,
                       const int32_t *budget, int valid, const char *error, double seconds)
{
    json_writer w;
    json_begin(&w, stdout);
    json_string(&w, "strategy", ebb_strategy_name(o->strategy));
    json_int(&w, "steps", o->steps);
    json_int(&w, "slots", o->slots);
    if (o->disk_slots >= 0 || budget[o->slow_tier] > 0)
        json_int(&w, "disk_slots", o->disk_slots >= 0 ? o->disk_slots : budget[o->slow_tier]);
    if (o->strategy == EBB_STRATEGY_PERIODIC || o->strategy == EBB_STRATEGY_DISK_REVOLVE)
        json_int(&w, "period", period);
    if (o->strategy == EBB_STRATEGY_DISK_REVOLVE && o->io_ratio > 0)
        json_double(&w, "io_ratio", o->io_ratio);
    json_int(&w, "forward_steps", st->forward_steps);
    json_int(&w, "recomputed_steps", st->forward_steps - o->steps);
    json_int(&w, "reverse_steps", st->reverse_steps);
    json_int(&w, "actions", st->actions);
    json_object(&w, "costs");
    json_double(&w, "write", o->write_cost);
    json_double(&w, "read", o->read_cost);
    json_double(&w, "reverse", o->reverse_cost);
    json_close(&w);
    double cost = stream_cost(o, st);
    if (fabs(cost) < 9e18 && cost == (double)(int64_t)cost) /* whole: every digit, not %.9g */
        json_int(&w, "cost", (int64_t)cost);
    else
        json_double(&w, "cost", cost);
    print_tier_counts(&w, "stores", st->stores, budget);
    print_tier_counts(&w, "restores", st->restores, budget);
    print_tier_counts(&w, "transfers_in", st->transfers_in, budget);
    print_tier_counts(&w, "transfers_out", st->transfers_out, budget);
    json_object(&w, "peak_slots");
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        if (budget[t] > 0 || st->peak_slots[t] > 0)
            json_int(&w, ebb_tier_name((ebb_tier)t), st->peak_slots[t]);
    json_close(&w);
    int64_t optimal = 0;
    int32_t all = o->slots + (o->strategy == EBB_STRATEGY_MULTISTAGE ? o->disk_slots : 0);
    if (ebb_revolve_forward_count(o->steps, all, &optimal) == EBB_OK)
        json_int(&w, "revolve_forward_steps", optimal);
    json_bool(&w, "valid", valid);
    if (!valid)
        json_string(&w, "error", error);
    json_double(&w, "seconds", seconds);
    json_end(&w);
}

static void print_text(const ebb_schedule_options *o, const ebb_schedule_stats *st,
                       const int32_t *budget, double seconds)
{
    printf("strategy        %s\n", ebb_strategy_name(o->strategy));
    printf("steps           %lld\n", (long long)o->steps);
    printf("forward steps   %lld (%lld recomputed, %.3f per step)\n", (long long)st->forward_steps,
           (long long)(st->forward_steps - o->steps), (double)st->forward_steps / (double)o->steps);
    printf("reverse steps   %lld\n", (long long)st->reverse_steps);
    printf("actions         %lld\n", (long long)st->actions);
    printf("cost            %.17g (forward 1, reverse %g, %s write %g, read %g)\n",
           stream_cost(o, st), o->reverse_cost, ebb_tier_name(o->slow_tier), o->write_cost,
           o->read_cost);
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        if (budget[t] > 0 || st->peak_slots[t] > 0)
            printf("%-5s slots      peak %d of %d; %lld stores, %lld restores, %lld in, %lld out\n",
                   ebb_tier_name((ebb_tier)t), st->peak_slots[t], budget[t],
                   (long long)st->stores[t], (long long)st->restores[t],
                   (long long)st->transfers_in[t], (long long)st->transfers_out[t]);
    printf("valid           yes (%.3f s to generate and validate, %.1f M reversed steps/s)\n",
           seconds, seconds > 0 ? (double)st->reverse_steps / seconds / 1e6 : 0.0);
}

/* Whether the command line asks for predictions (step times or a state size). */
static int wants_prediction(int argc, char **argv)
{
    static const char *const keys[] = {"--state-size", "--forward-ms", "--reverse-ms",
                                       "--step-file"};
    for (int i = 1; i < argc; i++)
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            if (strncmp(argv[i], keys[k], strlen(keys[k])) == 0)
                return 1;
    return 0;
}

/* Whether the command line names a chain file (ebb plan --chain) or asks
 * for a chain's least peak (--least-peak, which only a chain takes). */
static int wants_chain(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--chain") == 0 || strncmp(argv[i], "--chain=", 8) == 0 ||
            strcmp(argv[i], "--least-peak") == 0)
            return 1;
    return 0;
}

int ebb_cmd_plan(int argc, char **argv)
{
    if (wants_chain(argc, argv))
        return ebb_cmd_plan_chain(argc, argv);
    if (wants_prediction(argc, argv))
        return ebb_cmd_plan_predict(argc, argv);
    plan_args a;
    memset(&a, 0, sizeof a);
    ebb_schedule_options_init(&a.o);
    int rc = parse(argc, argv, &a);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    const ebb_schedule_options o = a.o;
    int json = a.json, actions = a.actions;

    /* Option errors (C too small for the strategy...) come from create; the
     * schedule made here is the one replayed, so its setup (h-revolve's
     * programme) is counted in the time below. */
    double t0 = cli_now();
    ebb_schedule *schedule = NULL;
    if (ebb_schedule_create(&o, &schedule) != EBB_OK) {
        fprintf(stderr, "ebb plan: %s\n", ebb_last_error());
        return 2;
    }
    int32_t budget[EBB_TIER_COUNT];
    ebb_schedule_tier_slots(schedule, budget);
    ebb_schedule_options resolved;
    ebb_schedule_get_options(schedule, &resolved);

    action_printer printer = {stdout, 0, 0};
    errno = 0;
    ebb_schedule_stats st;
    memset(&st, 0, sizeof st);
    char label[64];
    snprintf(label, sizeof label, "ebb plan: %s", ebb_strategy_name(o.strategy));
    replay_progress progress;
    replay_progress_begin(&progress, label, o.steps, actions ? print_actions : NULL, &printer);
    ebb_status status =
        ebb_schedule_replay_own(schedule, o.steps, &st, replay_progress_visit, &progress);
    replay_progress_end(&progress);
    double seconds = cli_now() - t0;
    ebb_schedule_destroy(schedule);
    if (printer.error) {
        fprintf(stderr, "ebb plan: cannot write the action stream to standard output: %s\n",
                strerror(printer.error));
        cli_stdout_reported = 1;
        return 1;
    }
    int valid = status == EBB_OK;
    if (json)
        print_json(&o, resolved.period, &st, budget, valid, valid ? "" : ebb_last_error(), seconds);
    else if (valid)
        print_text(&o, &st, budget, seconds);
    if (!valid) {
        fprintf(stderr, "ebb plan: %s\n", ebb_last_error());
        return 1;
    }
    return 0;
}
