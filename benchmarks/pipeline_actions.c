/* benchmarks/pipeline, part 3: ebb's own cost per action, with 8-byte
 * states, callbacks that only tag and check the state, and the host tier
 * alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

enum { STATE = 8 };

/* Repeats: at least MIN_REPS (the median leaves out a first one that met
 * cold caches and TLBs, or one a neighbour's burst slowed), at most MAX_REPS. */
enum { MIN_REPS = 3, MAX_REPS = 4096 };

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int host_config(uint64_t slots, ebb_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    if (ebb_config_init_default(cfg) != EBB_OK)
        return pl_fail("ebb_config_init_default");
    cfg->gpu.enabled = 0;
    cfg->disk.enabled = 0;
    cfg->host.enabled = 1;
    cfg->host.budget = slots * ebb_slot_stride(EBB_TIER_HOST, STATE, 0);
    if (ebb_config_check(cfg, STATE) != EBB_OK)
        return pl_fail("ebb_config_check");
    return 0;
}

/* The schedule's action count, from its replay through the validator with
 * the slots the run resolved; and whether the replay's counts are the run's. */
static int count_actions(pl_act_row *r)
{
    ebb_schedule_options so;
    ebb_schedule_options_init(&so);
    so.strategy = r->strategy;
    so.steps = r->n;
    so.slots = r->slots;
    so.disk_slots = 0;
    so.fast_tier = EBB_TIER_HOST;
    ebb_schedule_stats ss;
    if (ebb_schedule_validate(&so, &ss) != EBB_OK)
        return pl_fail("ebb_schedule_validate");
    r->actions = ss.actions;
    const ebb_run_stats *st = &r->st;
    r->counts_match = ss.forward_steps == st->forward_steps &&
                      ss.reverse_steps == st->reverse_steps;
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        r->counts_match = r->counts_match && ss.stores[t] == st->stores[t] &&
                          ss.restores[t] == st->restores[t];
    return 0;
}

static int one_case(const pl_args *a, ebb_strategy strategy, int64_t n, int32_t slots,
                    pl_act_row *r)
{
    memset(r, 0, sizeof *r);
    r->strategy = strategy;
    r->n = n;
    ebb_config cfg;
    int rc = host_config(strategy == EBB_STRATEGY_STORE_ALL ? (uint64_t)n : (uint64_t)slots, &cfg);
    if (rc) {
        ebb_config_dispose(&cfg);
        return rc;
    }
    pl_ctx c;
    pl_ctx_init(&c, n, 0);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = STATE;
    o.steps = n;
    o.forward = pl_forward;
    o.reverse = pl_reverse;
    o.user = &c;
    o.config = &cfg;
    o.strategy = strategy;
    o.slots = strategy == EBB_STRATEGY_STORE_ALL ? 0 : slots;
    o.audit = EBB_AUDIT_OFF;
    r->exact = 1;
    pl_info info;
    double *rep_s = malloc(MAX_REPS * sizeof *rep_s);
    if (!rep_s) {
        ebb_config_dispose(&cfg);
        fprintf(stderr, "pipeline: out of memory\n");
        return 1;
    }
    do {
        double f, b;
        rc = pl_run_once(&o, &c, &f, &b, &r->st, NULL, &info);
        if (rc)
            break;
        r->sweeps_s += f + b;
        rep_s[r->repeats++] = f + b;
        r->exact = r->exact && pl_ctx_exact(&c);
        r->mismatches += c.mismatches;
    } while ((r->sweeps_s < a->min_time || r->repeats < MIN_REPS) && r->repeats < MAX_REPS);
    ebb_config_dispose(&cfg);
    if (rc) {
        free(rep_s);
        return rc;
    }
    qsort(rep_s, (size_t)r->repeats, sizeof *rep_s, by_value);
    r->median_s = r->repeats % 2 ? rep_s[r->repeats / 2]
                                 : 0.5 * (rep_s[r->repeats / 2 - 1] + rep_s[r->repeats / 2]);
    free(rep_s);
    if (strcmp(info.strategy, ebb_strategy_name(strategy)) != 0) {
        fprintf(stderr, "pipeline: asked for %s, the run ran %s\n", ebb_strategy_name(strategy),
                info.strategy);
        return 1;
    }
    r->slots = info.slots[EBB_TIER_HOST];
    r->ops = r->st.forward_steps + r->st.reverse_steps;
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        r->ops += r->st.stores[t] + r->st.restores[t];
    return count_actions(r);
}

int pl_actions_part(const pl_args *a, pl_act_row *rows, int *count)
{
    int k = 0, rc;
    for (int i = 0; i < 3; i++)
        if ((rc = one_case(a, EBB_STRATEGY_REVOLVE, a->revolve_n, a->revolve_slots[i], &rows[k++])))
            return rc;
    for (int i = 0; i < 2; i++)
        if ((rc = one_case(a, EBB_STRATEGY_STORE_ALL, a->store_all_n[i], 0, &rows[k++])))
            return rc;
    *count = k;
    return 0;
}
