/*
 * `ebb plan --chain FILE --memory SIZE`: the schedule of least cost for a
 * heterogeneous chain (ebb/chain.h) read from a file of per-step figures,
 * replayed through a validator that checks the budget in bytes, and what it
 * costs beside Revolve with the slots the budget holds of the largest state.
 * `ebb plan --chain FILE --least-peak`: the checkpoints of least peak memory
 * when each step is recomputed at most once, replayed the same way with that
 * peak as the budget.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"
#include "tools/chain_file.h"
#include "tools/cli.h"
#include "tools/json.h"
#include "tools/options.h"

static const char chain_help[] =
    "usage: ebb plan --chain FILE --memory SIZE [options]\n"
    "       ebb plan --chain FILE --least-peak [--json] [--actions]\n"
    "\n"
    "The schedule of least total cost for a chain of steps with their own costs\n"
    "and state sizes (up to 100,000 steps), within a memory budget in bytes; replayed\n"
    "through the validator, which checks the budget at every store. With\n"
    "--least-peak, instead, the checkpoints that hold the fewest bytes at once when\n"
    "each step is recomputed at most once, and that least peak (the budget the\n"
    "validator checks); it takes no --memory or --memory-levels.\n"
    "\n"
    "  --chain FILE        one step a line: FORWARD REVERSE SIZE (the costs on\n"
    "                      one scale, the size of the step's input state, e.g.\n"
    "                      '1.5 3 64KiB'), or FORWARD REVERSE SIZE BACKWARD TAPE\n"
    "                      on every line: a step may keep its tape (TAPE bytes\n"
    "                      beside its input) and is then reversed at BACKWARD;\n"
    "                      'COUNT x ...' stands for COUNT such steps; '#' starts\n"
    "                      a comment; '-' reads standard input\n"
    "  --memory SIZE       the budget for stored states, x_0 included\n"
    "  --memory-levels K   the most units the budget is counted in (default 256)\n"
    "  --least-peak        the least peak memory, each step recomputed at most once\n"
    "  --json              print one JSON object\n"
    "  --actions           print the action stream, one action a line\n";

typedef struct chain_args {
    const char *chain;
    uint64_t memory;
    int32_t levels;
    int json, actions, least_peak;
} chain_args;

#define OPT(n, k, f) CLI_OPT(chain_args, n, k, f)
static const cli_option chain_options[] = {
    {OPT("chain", CLI_STRING, chain)},
    {OPT("memory", CLI_SIZE, memory)},
    {OPT("memory-levels", CLI_INT32, levels), .min = 0, .max = 65536},
    {OPT("json", CLI_FLAG, json)},
    {OPT("actions", CLI_FLAG, actions)},
    {OPT("least-peak", CLI_FLAG, least_peak)},
};
#undef OPT
static const cli_command chain_command = {"plan", chain_help, chain_options,
                                          sizeof chain_options / sizeof *chain_options, 0,
                                          NULL};

/* Revolve with the slots `memory` holds of the largest state, costed with
 * the chain's costs; -1 when it holds none (n >= 2). */
static double revolve_cost(const chain_data *d, uint64_t memory)
{
    uint64_t largest = 0;
    for (int64_t i = 0; i < d->n; i++)
        largest = d->b[i] > largest ? d->b[i] : largest;
    uint64_t slots = memory / largest;
    if (slots < 1 && d->n > 1)
        return -1;
    ebb_schedule_options o;
    ebb_schedule_options_init(&o);
    o.steps = d->n;
    o.slots = (int32_t)(slots < 1 ? 1 : slots > INT32_MAX ? INT32_MAX : slots);
    ebb_schedule *s = NULL;
    if (ebb_schedule_create(&o, &s) != EBB_OK)
        return -1;
    double cost = 0;
    ebb_action a;
    do {
        if (ebb_schedule_next(s, &a) != EBB_OK)
            break;
        if (a.kind == EBB_ACT_ADVANCE)
            for (int64_t k = a.step; k < a.to; k++)
                cost += d->f[k];
        else if (a.kind == EBB_ACT_REVERSE)
            cost += d->r[a.step];
    } while (a.kind != EBB_ACT_END);
    ebb_schedule_destroy(s);
    return cost;
}

/* Replays s through a validator sized in bytes (tapes included), printing
 * the actions if asked; fills st, the peak bytes, the cost (forward costs
 * of every step run + reverse costs, from a tape its backward cost) and the
 * tapes kept. */
static ebb_status replay(ebb_schedule *s, const chain_data *d, uint64_t memory, int print,
                         ebb_schedule_stats *st, uint64_t *peak, double *cost, int64_t *tapes)
{
    *cost = 0;
    int32_t slots[EBB_TIER_COUNT];
    ebb_schedule_tier_slots(s, slots);
    ebb_validator *v = NULL;
    ebb_status status = ebb_validator_create(d->n, slots, &v);
    if (status == EBB_OK)
        status = ebb_validator_set_state_bytes(v, EBB_TIER_HOST, d->b, d->n, memory);
    if (status == EBB_OK && d->tapes > 0)
        status = ebb_validator_set_tape_bytes(v, EBB_TIER_HOST, d->tb, d->n);
    char *taped = calloc((size_t)d->n, 1);
    if (!taped && status == EBB_OK) {
        fprintf(stderr, "ebb plan: cannot allocate %lld bytes to replay the chain\n",
                (long long)d->n);
        status = EBB_ERR_NO_MEMORY;
    }
    *tapes = 0;
    ebb_action batch[64];
    size_t got = 0;
    char line[128];
    while (status == EBB_OK) {
        status = ebb_schedule_next_batch(s, batch, sizeof batch / sizeof *batch, &got);
        if (status == EBB_OK)
            status = ebb_validator_check(v, batch, got);
        for (size_t i = 0; status == EBB_OK && i < got; i++)
            if (batch[i].kind == EBB_ACT_ADVANCE)
                for (int64_t k = batch[i].step; k < batch[i].to; k++)
                    *cost += d->f[k];
            else if (batch[i].kind == EBB_ACT_TAPE)
                *cost += d->f[batch[i].step], taped[batch[i].step] = 1, ++*tapes;
            else if (batch[i].kind == EBB_ACT_REVERSE)
                *cost += taped[batch[i].step] ? d->bw[batch[i].step] : d->r[batch[i].step];
        for (size_t i = 0; print && status == EBB_OK && i < got; i++) {
            ebb_action_format(&batch[i], line, sizeof line);
            puts(line);
        }
        if (got == 0 || batch[got - 1].kind == EBB_ACT_END)
            break;
    }
    if (status == EBB_OK)
        status = ebb_validator_finish(v);
    if (status == EBB_OK)
        status = ebb_validator_stats(v, st);
    if (status == EBB_OK)
        status = ebb_validator_peak_bytes(v, EBB_TIER_HOST, peak);
    ebb_validator_destroy(v);
    free(taped);
    return status;
}

/* Replays schedule `s` (destroyed here) within `budget` bytes and prints
 * it: `info` is the --memory form's program, NULL for the least-peak
 * checkpoints, whose budget is their peak. Returns the exit code. */
static int replay_and_print(const chain_args *a, const chain_data *d, ebb_schedule *s,
                            uint64_t budget, double seconds, const ebb_chain_info *info)
{
    ebb_schedule_stats st;
    memset(&st, 0, sizeof st);
    uint64_t peak = 0;
    double replayed = 0;
    int64_t tapes = 0;
    ebb_status status = replay(s, d, budget, a->actions && !a->json, &st, &peak, &replayed,
                               &tapes);
    ebb_schedule_destroy(s);
    if (status != EBB_OK) {
        fprintf(stderr, "ebb plan: %s\n", ebb_last_error());
        return 1;
    }
    /* the program's cost is what the stream costs, summed in another order */
    if (info && fabs(replayed - info->cost) > 1e-9 * fmax(1, fabs(info->cost))) {
        fprintf(stderr, "ebb plan: internal error: the schedule replays at cost %.17g, its "
                "program says %.17g; please report it with the chain file\n", replayed,
                info->cost);
        return 1;
    }
    double cost = info ? info->cost : replayed;
    const char *holder = info ? "budget" : "peak";
    double rc_revolve = revolve_cost(d, budget);
    if (a->json) {
        json_writer w;
        json_begin(&w, stdout);
        json_int(&w, "steps", d->n);
        if (info) {
            json_int(&w, "memory_bytes", (int64_t)budget);
            json_int(&w, "unit_bytes", (int64_t)info->unit_bytes);
            json_int(&w, "units", info->units);
        } else {
            json_int(&w, "least_peak_bytes", (int64_t)budget);
        }
        json_double(&w, "cost", cost);
        json_int(&w, "forward_steps", st.forward_steps);
        json_int(&w, "peak_slots", st.peak_slots[EBB_TIER_HOST]);
        json_int(&w, "peak_bytes", (int64_t)peak);
        if (d->tapes > 0)
            json_int(&w, "tapes", tapes);
        if (rc_revolve >= 0)
            json_double(&w, "revolve_cost", rc_revolve);
        json_double(&w, "create_s", seconds);
        json_end(&w);
    } else if (!a->actions) {
        printf("steps           %lld\n", (long long)d->n);
        if (info)
            printf("memory          %llu bytes, counted in %d units of %llu bytes\n",
                   (unsigned long long)budget, info->units,
                   (unsigned long long)info->unit_bytes);
        else
            printf("memory          %llu bytes, the least peak with each step recomputed at "
                   "most once\n", (unsigned long long)budget);
        printf("cost            %g (forward costs of every step run + reverse costs)\n", cost);
        printf("forward steps   %lld (%lld recomputed)\n", (long long)st.forward_steps,
               (long long)(st.forward_steps - d->n));
        printf("peak            %d states, %llu bytes%s\n", st.peak_slots[EBB_TIER_HOST],
               (unsigned long long)peak, d->tapes > 0 ? " with the tapes" : "");
        if (d->tapes > 0)
            printf("tapes           %lld of the %lld forward steps keep their tapes\n",
                   (long long)tapes, (long long)st.forward_steps);
        if (rc_revolve >= 0)
            printf("revolve         %g with the slots the %s holds of the largest state "
                   "(%.3f x)\n", rc_revolve, holder, rc_revolve > 0 ? cost / rc_revolve : 1.0);
        else
            printf("revolve         cannot run: the %s holds no largest state\n", holder);
        printf("valid           yes (%.3f s to plan)\n", seconds);
    }
    return 0;
}

/* The least-peak checkpoints of the chain, replayed with their peak as the
 * budget, and printed as the --memory form prints its schedule. */
static int least_peak(const chain_args *a, const chain_data *d, const ebb_chain *chain)
{
    double t0 = cli_now();
    ebb_schedule *s = NULL;
    uint64_t least = 0;
    if (ebb_chain_least_peak_create(chain, EBB_TIER_HOST, &least, &s) != EBB_OK) {
        fprintf(stderr, "ebb plan: %s\n", ebb_last_error());
        return 2;
    }
    return replay_and_print(a, d, s, least, cli_now() - t0, NULL);
}

int ebb_cmd_plan_chain(int argc, char **argv)
{
    chain_args a = {0};
    cli_parsed parsed;
    int rc = cli_parse(&chain_command, argc, argv, &a, &parsed);
    if (rc != CLI_OK)
        return rc == CLI_HELP ? 0 : rc;
    int memory = cli_given(&chain_command, &parsed, "memory");
    if (a.least_peak && memory) {
        fprintf(stderr, "ebb plan: --least-peak finds the least memory itself and takes no "
                "--memory SIZE; drop --memory, or drop --least-peak for the schedule of least "
                "cost within SIZE\n");
        return 2;
    }
    if (a.least_peak && cli_given(&chain_command, &parsed, "memory-levels")) {
        fprintf(stderr, "ebb plan: --least-peak counts the peak in bytes and takes no "
                "--memory-levels K; drop --memory-levels\n");
        return 2;
    }
    if (!cli_given(&chain_command, &parsed, "chain") || (!memory && !a.least_peak)) {
        fprintf(stderr, "ebb plan: --chain FILE and --memory SIZE are required together, or "
                "--chain FILE and --least-peak (see 'ebb plan --chain - --help')\n");
        return 2;
    }
    static chain_data d; /* EBB_CHAIN_MAX_STEPS steps: not on the stack */
    if (chain_file_read(a.chain, &d) != 0)
        return 2;
    ebb_chain chain = {.steps = d.n, .forward_cost = d.f, .reverse_cost = d.r,
                       .state_bytes = d.b};
    if (a.least_peak) {
        /* its checkpoints keep no tapes: each interval is run again */
        d.tapes = 0;
        return least_peak(&a, &d, &chain);
    }
    if (d.tapes > 0) {
        chain.tape_bytes = d.tb;
        chain.backward_cost = d.bw;
    }
    ebb_chain_options o;
    ebb_chain_options_init(&o);
    o.memory_bytes = a.memory;
    o.memory_levels = a.levels;
    double t0 = cli_now();
    ebb_schedule *s = NULL;
    if (ebb_chain_schedule_create(&chain, &o, &s) != EBB_OK) {
        fprintf(stderr, "ebb plan: %s\n", ebb_last_error());
        return 2;
    }
    double seconds = cli_now() - t0;
    ebb_chain_info info;
    ebb_chain_schedule_info(s, &info);
    return replay_and_print(&a, &d, s, a.memory, seconds, &info);
}
