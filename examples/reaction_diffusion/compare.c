/* What --compare prints (compare.h): what ebb buys against keeping every
 * state in memory, measured. */
#include "compare.h"

#include <stdio.h>
#include <string.h>

#include "report.h"

/* The state bytes held at the peak and what the tiers reserved, in memory
 * (gpu and host) or on disk. */
static void held(const rd_result *r, size_t state, int disk, uint64_t *peak, uint64_t *reserved)
{
    *peak = *reserved = 0;
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        if ((t == EBB_TIER_DISK) != disk)
            continue;
        *peak += (uint64_t)r->stats.peak_slots[t] * state;
        *reserved += r->info.bytes[t];
    }
}

static void row(const char *name, const rd_result *r, size_t state, const char *gradient)
{
    char a[32], b[32], c[32], d[32];
    uint64_t mp, mr, dp, dr;
    held(r, state, 0, &mp, &mr);
    held(r, state, 1, &dp, &dr);
    printf("  %-32s %7.3f %10lld  %10s / %-10s  %10s / %-10s  %s\n", name, r->stats.wall_s,
           (long long)r->stats.recomputed_steps, report_size(mp, a, sizeof a),
           report_size(mr, b, sizeof b), report_size(dp, c, sizeof c),
           report_size(dr, d, sizeof d), gradient);
}

static int same_gradient(const rd_params *p, const rd_adjoint *a, const rd_adjoint *b)
{
    return memcmp(a->lambda, b->lambda, (size_t)p->points * sizeof(double)) == 0 &&
           memcmp(&a->grad_r, &b->grad_r, sizeof a->grad_r) == 0 &&
           memcmp(&a->objective, &b->objective, sizeof a->objective) == 0;
}

/* One more run under `c` (its own configuration): its row, or why it did
 * not run. 0, or -1 when it failed after it started or its gradient
 * differs. */
static int run_row(const char *name, const rd_params *p, const ebb_config *c,
                   const rd_adjoint *done, rd_adjoint *other, const double *u0)
{
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.config = c;
    rd_result r;
    size_t state = (size_t)p->points * sizeof(double);
    if (ebb_config_check(c, state) != EBB_OK) {
        printf("  %-32s does not fit here: %s\n", name, ebb_last_error());
        return 0;
    }
    if (rd_gradient(other, u0, &o, &r) != EBB_OK) {
        printf("  %-32s %s: %s\n", name, r.created ? "FAILED" : "does not fit here",
               ebb_last_error());
        return r.created ? -1 : 0;
    }
    int same = same_gradient(p, done, other);
    row(name, &r, state, same ? "bitwise equal" : "DIFFERENT");
    return same ? 0 : -1;
}

int compare_runs(const rd_params *p, const ebb_config *cfg, const rd_result *res,
                 const rd_adjoint *done, const double *u0)
{
    size_t state = (size_t)p->points * sizeof(double);
    rd_adjoint other = {0};
    ebb_config async = {0}, all = {0};
    int rc = -1;
    if (rd_adjoint_init(&other, p, done->target) != 0 || ebb_config_copy(cfg, &async) != EBB_OK ||
        ebb_config_copy(cfg, &all) != EBB_OK) {
        fprintf(stderr, "ebb: cannot set up --compare: %s\n", ebb_last_error());
        goto out;
    }
    printf("\nwhat ebb buys (--compare): the same gradient three ways, each run measured\n");
    printf("  %-32s %7s %10s  %23s  %23s  %s\n", "strategy", "wall s", "recomputed",
           "memory: peak / reserved", "disk: peak / reserved", "gradient vs this run");
    char name[64];
    snprintf(name, sizeof name, "%s (this run%s)", res->info.strategy_name,
             cfg->strategy == EBB_CONFIG_STRATEGY_AUTO ? ", auto's choice" : "");
    row(name, res, state, "-");
    rc = 0;
    /* async on the same tiers and budgets */
    if (res->info.strategy != EBB_STRATEGY_ASYNC) {
        async.strategy = EBB_CONFIG_STRATEGY_ASYNC;
        rc |= run_row("async", p, &async, done, &other, u0);
    }
    /* every state in host memory: store-all keeps x_0 .. x_{n-2}, so a
     * budget of n states holds them */
    all.gpu.enabled = 0;
    all.disk.enabled = 0;
    all.host.enabled = 1;
    all.host.budget = (uint64_t)p->steps * ebb_slot_stride(EBB_TIER_HOST, state, 0);
    all.strategy = EBB_CONFIG_STRATEGY_STORE_ALL;
    rc |= run_row("store-all in memory", p, &all, done, &other, u0);
out:
    rd_adjoint_free(&other);
    ebb_config_dispose(&async);
    ebb_config_dispose(&all);
    return rc;
}
