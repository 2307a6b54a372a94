/* `ebb run`'s lines and members for the lossy error estimate (run_estimate.h). */
#include "tools/run_estimate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void run_estimate_json(json_writer *w, const ebb_run_info *info, const ebb_run_stats *st)
{
    int on = info->error_samples > 0;
    json_int(w, "error_samples", info->error_samples);
    json_int(w, "error_sample_bytes", (int64_t)info->error_sample_bytes);
    json_int(w, "error_samples_compared", st->error_samples);
    json_int(w, "error_samples_differ", st->error_samples_differ);
    json_double(w, "state_rel_error_max", on ? st->state_rel_error_max : NAN);
    json_double(w, "state_rel_error_rms", on ? st->state_rel_error_rms : NAN);
    json_double(w, "gradient_rel_error_estimate", on ? st->gradient_rel_error_estimate : NAN);
}

void run_estimate_print(const workload_result *res, int n)
{
    const workload_result *any = NULL;
    for (int i = 0; i < n; i++) {
        const workload_result *r = &res[i];
        if (!r->ran || r->info.error_samples <= 0)
            continue;
        any = r;
        const ebb_run_stats *st = &r->stats;
        char who[80] = "";
        if (n > 1) {
            int picked = strcmp(r->asked, r->strategy) != 0; /* auto>X, as the table */
            snprintf(who, sizeof who, " (%s%s%s)", picked ? r->asked : "", picked ? ">" : "",
                     r->strategy);
        }
        printf("gradient relative error estimate%s: %.3g (state relative error max %.3g, rms "
               "%.3g over %lld sampled states, %lld not bitwise exact)\n",
               who, st->gradient_rel_error_estimate, st->state_rel_error_max,
               st->state_rel_error_rms,
               (long long)st->error_samples, (long long)st->error_samples_differ);
    }
    if (any)
        printf("(ebb's estimate: the sampled states the reverse sweep was given against exact "
               "copies kept in the first sweep, their errors weighted by each step's change "
               "|x_{s+1} - x_s| / |x_s| and added as sizes and as vectors, scaled to the n "
               "steps: --error-samples, %.3g MB of host memory)\n",
               (double)any->info.error_sample_bytes / 1e6);
}
