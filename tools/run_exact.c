/* `ebb run`'s exact run and the gradient's relative error (run_exact.h). */
#include "tools/run_exact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void run_exact_init(run_exact *x, const ebb_config *cfg, int no_exact)
{
    memset(x, 0, sizeof *x);
    int tier = -1;
    (void)ebb_config_lossy_tier(cfg, &tier); /* cannot fail: cfg is the run's */
    if (tier == EBB_TIER_HOST) {
        x->key = "tier.host.compression";
        x->mode = ebb_compression_name(cfg->host.compression.mode);
    } else if (tier == EBB_TIER_DISK) {
        x->key = "tier.disk.compression";
        x->mode = ebb_compression_name(cfg->disk.compression.mode);
    }
    x->measure = x->key && !no_exact;
}

int run_exact_run(run_exact *x, const ebb_config *cfg, const workload_plan *plan,
                  const workload_request *req, const int *order, int n, char *err, size_t len)
{
    ebb_config plain;
    if (ebb_config_copy(cfg, &plain) != EBB_OK) {
        snprintf(err, len, "the exact run: %s", ebb_last_error());
        return -1;
    }
    /* "the same run" without loss: only the compression differs; the slots
     * are what the budgets hold uncompressed */
    plain.host.compression.mode = EBB_COMPRESSION_OFF;
    plain.disk.compression.mode = EBB_COMPRESSION_OFF;
    workload_request q = *req;
    q.config = &plain;
    q.trace = NULL;
    q.field_gradient = 1;
    q.fail = 0; /* --fail-at-step is for the run asked for */
    q.error_samples = 0; /* exact: nothing to estimate */
    int rc = -1, failed = 0;
    int asked = req->strategy >= 0 ? req->strategy : (int)cfg->strategy;
    char first[1100] = "";
    /* Every exact strategy gives the same gradient bitwise, so one that
     * fits stands for the others when the asked one does not. */
    for (int i = -1; i < n && rc != 0 && !failed; i++) {
        if (i >= 0) {
            if (order[i] == asked)
                continue;
            q.strategy = order[i];
        }
        workload_result r;
        int out = workload_run(plan, &q, &r);
        if (out == WORKLOAD_OK) {
            x->ran = 1;
            snprintf(x->strategy, sizeof x->strategy, "%s", r.strategy);
            x->gradient = r.gradient;
            x->wall_s = r.stats.wall_s;
            x->recomputed = r.stats.recomputed_steps;
            x->field = r.field;
            x->count = r.field_count;
            rc = 0;
        } else if (out == WORKLOAD_FAILED) {
            snprintf(err, len, "the exact run (%s, compression off): %s", r.strategy, r.error);
            failed = 1;
        } else if (!first[0]) {
            snprintf(first, sizeof first, "%s: %s", r.strategy, r.error);
        }
    }
    if (rc != 0 && !failed)
        snprintf(err, len, "the exact run (compression off on every tier) fits no strategy "
                 "(%s); give larger budgets, or rerun with --no-exact to skip it", first);
    ebb_config_dispose(&plain);
    return rc;
}

double run_exact_error(const run_exact *x, workload_result *r)
{
    double e = NAN;
    if (!x->key)
        e = r->ran ? 0.0 : NAN;
    else if (x->ran && r->ran && r->field && r->field_count == x->count)
        e = workload_relative_error(r->field, x->field, x->count);
    workload_result_free(r);
    return e;
}

void run_exact_json(json_writer *w, const run_exact *x)
{
    json_string(w, "gradient_rel_error_from",
                !x->key     ? "exact: compression off or lossless"
                : x->ran    ? "the exact run"
                : x->measure ? "not measured: the exact run did not run"
                            : "not measured: --no-exact");
    if (!x->ran)
        return;
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)x->gradient);
    json_string(w, "exact_strategy", x->strategy);
    json_string(w, "exact_gradient", hex);
    json_double(w, "exact_wall_s", x->wall_s);
    json_int(w, "exact_recomputed_steps", x->recomputed);
}

void run_exact_print(const run_exact *x, const ebb_config *cfg, const workload_result *res,
                     const double *error, int n)
{
    if (!x->key) {
        const ebb_config_disk *d = &cfg->disk;
        if (d->enabled && d->compression.mode == EBB_COMPRESSION_LOSSLESS)
            printf("gradient relative error: 0 (tier.disk.compression = \"lossless\": bitwise "
                   "the gradient of compression off)\n");
        return;
    }
    if (!x->ran) {
        printf("gradient relative error: not measured (%s = \"%s\" is lossy; --no-exact skipped "
               "the exact run)\n", x->key, x->mode);
        return;
    }
    for (int i = 0; i < n; i++) {
        if (!res[i].ran)
            continue;
        int picked = strcmp(res[i].asked, res[i].strategy) != 0; /* auto>X, as the table */
        if (n > 1)
            printf("gradient relative error (%s%s%s): %.3g\n", picked ? res[i].asked : "",
                   picked ? ">" : "", res[i].strategy, error[i]);
        else
            printf("gradient relative error: %.3g\n", error[i]);
    }
    printf("(|g - g_exact| / |g_exact|, g the numeric gradient of 1/2 sum |x_i|^2 with respect "
           "to x_0; %s = \"%s\" is lossy; g_exact from the exact run: %s, compression off on "
           "every tier, %lld recomputed, %.3f s, gradient %016llx)\n",
           x->key, x->mode, x->strategy, (long long)x->recomputed, x->wall_s,
           (unsigned long long)x->gradient);
}

void run_exact_free(run_exact *x)
{
    free(x->field);
    x->field = NULL;
}
