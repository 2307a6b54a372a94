/* benchmarks/pipeline, parts 1 (disk-bound store-all) and 2 (reverse sweep
 * with 1 ms steps): ebb's runs and the plain io_uring loop in the same
 * process. */
#include <stdio.h>
#include <string.h>

#include "pipeline.h"

static size_t round4k(size_t bytes) { return (bytes + 4095) / 4096 * 4096; }

/* The configuration of both parts: no gpu tier, the host tier's budget, the
 * disk tier in `dir` with `disk_budget`; checked for `state`. 0, or the
 * exit status. */
static int disk_config(const char *dir, uint64_t host_budget, uint64_t disk_budget, size_t state,
                       ebb_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    if (ebb_config_init_default(cfg) != EBB_OK)
        return pl_fail("ebb_config_init_default");
    cfg->gpu.enabled = 0;
    cfg->host.enabled = 1;
    cfg->host.budget = host_budget;
    cfg->disk.enabled = 1;
    cfg->disk.budget = disk_budget;
    const char *paths[1] = {dir};
    if (ebb_config_set_disk_paths(cfg, paths, 1) != EBB_OK)
        return pl_fail("ebb_config_set_disk_paths");
    if (ebb_config_check(cfg, state) != EBB_OK)
        return pl_fail("ebb_config_check");
    return 0;
}

static void base_options(ebb_run_options *o, size_t state, int64_t n, const ebb_config *cfg,
                         pl_ctx *c)
{
    ebb_run_options_init(o);
    o->state_size = state;
    o->steps = n;
    o->forward = pl_forward;
    o->reverse = pl_reverse;
    o->user = c;
    o->config = cfg;
    o->audit = EBB_AUDIT_OFF;
}

int pl_disk_part(const pl_args *a, pl_disk_row *rows)
{
    for (int i = 0; i < a->disk_count; i++) {
        pl_disk_row *r = &rows[i];
        memset(r, 0, sizeof *r);
        r->state = a->disk_sizes[i];
        r->n = (int64_t)(a->total / r->state);
        if (r->n < 2)
            r->n = 2;
        ebb_config cfg;
        /* room for every state (store-all keeps n-1) and one more */
        int rc = disk_config(a->dir, a->host_budget, (uint64_t)r->n * round4k(r->state), r->state,
                             &cfg);
        if (rc) {
            ebb_config_dispose(&cfg);
            return rc;
        }
        r->depth = cfg.disk.queue_depth;
        r->backend = ebb_disk_backend_name(cfg.disk.backend);
        pl_ctx c;
        pl_ctx_init(&c, r->n, 0);
        ebb_run_options o;
        base_options(&o, r->state, r->n, &cfg, &c);
        /* store-all's n-1 slots cannot live in 256 MiB of host memory: the
         * schedule's tier is the disk (as `ebb run` retries when the host
         * budget is too small); the host keeps the staging buffers. */
        o.strategy = EBB_STRATEGY_STORE_ALL;
        o.fast_tier = EBB_TIER_DISK;
        rc = pl_run_once(&o, &c, &r->forward_s, &r->reverse_s, &r->st, &r->st_fwd, &r->info);
        r->exact = pl_ctx_exact(&c);
        r->mismatches = c.mismatches;
        ebb_config_dispose(&cfg);
        if (rc)
            return rc;
        int skip;
        if (pl_loop_run(a->dir, round4k(r->state), r->depth, a->total, &r->loop, &skip))
            return skip ? PL_EXIT_SKIP : 1;
    }
    return 0;
}

int pl_reverse_part(const pl_args *a, pl_rev *out)
{
    memset(out, 0, sizeof *out);
    out->state = a->rev_state;
    out->n = a->rev_steps;
    ebb_config cfg;
    int rc = disk_config(a->dir, (uint64_t)a->rev_host_states * out->state,
                         (uint64_t)out->n * round4k(out->state), out->state, &cfg);
    if (rc) {
        ebb_config_dispose(&cfg);
        return rc;
    }
    out->depth = cfg.disk.queue_depth;
    int skip;
    if (pl_loop_run(a->dir, round4k(out->state), out->depth, (uint64_t)out->n * out->state,
                    &out->loop, &skip)) {
        ebb_config_dispose(&cfg);
        return skip ? PL_EXIT_SKIP : 1;
    }
    /* disk-revolve's R = (write + read of one state) / step, from the loop */
    double state = (double)out->state, bytes = (double)out->loop.bytes;
    double ratio = a->io_ratio > 0 ? a->io_ratio
                                   : (state * out->loop.write_s / bytes +
                                      state * out->loop.read_s / bytes) / a->step_s;
    const ebb_strategy strategies[2] = {EBB_STRATEGY_STORE_ALL, EBB_STRATEGY_DISK_REVOLVE};
    for (int i = 0; i < 2; i++) {
        pl_rev_row *r = &out->rows[i];
        r->strategy = strategies[i];
        pl_ctx c;
        pl_ctx_init(&c, out->n, a->step_s);
        ebb_run_options o;
        base_options(&o, out->state, out->n, &cfg, &c);
        o.strategy = r->strategy;
        if (r->strategy == EBB_STRATEGY_STORE_ALL) {
            o.fast_tier = EBB_TIER_DISK; /* the host holds 16 states, not n-1 */
        } else {
            o.io_ratio = ratio;
            r->io_ratio = ratio;
        }
        rc = pl_run_once(&o, &c, &r->forward_s, &r->reverse_s, &r->st, &r->st_fwd, &r->info);
        r->exact = pl_ctx_exact(&c);
        r->mismatches = c.mismatches;
        if (rc)
            break;
    }
    ebb_config_dispose(&cfg);
    return rc;
}
