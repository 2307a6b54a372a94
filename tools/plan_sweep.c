/* `ebb plan ... --ratios R1,R2,...`: the predicted overhead of every
 * strategy along the compute/transfer ratio, for the curves of the sizing
 * picture (docs/planner.md). The ratio is f / (S / r): a forward step over
 * the time to write one state at a disk pace r, so each point sets
 * tier.disk.max_bandwidth to r = ratio * S / f (the device's own bandwidth
 * is kept, as a run with that limit would have it). */
#include <math.h>
#include <stdio.h>

#include "ebb/planner.h"
#include "tools/json.h"
#include "tools/plan_predict.h"

int plan_sweep_print(const ebb_plan_problem *problem, const double *ratios, int count, int json)
{
    ebb_plan_problem p = *problem;
    double ideal = (double)p.steps * (p.forward_s + p.reverse_s);
    if (!(p.forward_s > 0)) {
        fprintf(stderr, "ebb plan: --ratios needs --forward-ms > 0\n");
        return 2;
    }
    if (json)
        fputs("{\"sweep\": [", stdout);
    else
        printf("%8s %12s  overhead predicted per strategy (- : does not fit)\n%8s %12s", "ratio",
               "disk GB/s", "", "");
    for (int i = 0; i < count; i++) {
        p.disk_pace = ratios[i] * (double)p.state_size / p.forward_s;
        if (!(p.disk_pace <= (double)EBB_RATE_MAX)) {
            if (json)
                fputs("]}\n", stdout);
            fprintf(stderr, "ebb plan: --ratios %g with a state of %llu bytes every %g ms asks "
                            "the disk for %.3g bytes/s, above the most ebb models (1 EB/s): "
                            "give a smaller ratio\n",
                    ratios[i], (unsigned long long)p.state_size, p.forward_s * 1e3, p.disk_pace);
            return 2;
        }
        ebb_plan_prediction r[EBB_PLAN_MAX];
        size_t n = 0;
        int best = -1;
        if (ebb_plan_all(&p, r, &n, &best) != EBB_OK) {
            if (json)
                fputs("]}\n", stdout);
            fprintf(stderr, "ebb plan: %s\n", ebb_last_error());
            return 1;
        }
        if (!json && i == 0) {
            for (size_t k = 0; k < n; k++)
                printf(" %12s", ebb_config_strategy_name(r[k].strategy));
            printf("\n");
        }
        if (json) {
            json_writer w;
            fputs(i ? ", " : "", stdout);
            json_begin(&w, stdout);
            json_double(&w, "ratio", ratios[i]);
            json_double(&w, "disk_pace_Bps", p.disk_pace);
            json_string(&w, "best", best >= 0 ? ebb_config_strategy_name(r[best].strategy) : "");
            json_object(&w, "predicted_overhead");
            for (size_t k = 0; k < n; k++)
                json_double(&w, ebb_config_strategy_name(r[k].strategy),
                            r[k].fits && ideal > 0 ? r[k].predicted_s / ideal : NAN);
            json_close(&w);
            fputc('}', stdout);
        } else {
            printf("%8.3g %12.4g", ratios[i], p.disk_pace / 1e9);
            for (size_t k = 0; k < n; k++) {
                if (r[k].fits && ideal > 0)
                    printf(" %11.3f%c", r[k].predicted_s / ideal, (int)k == best ? '*' : ' ');
                else
                    printf(" %12s", "-");
            }
            printf("\n");
        }
    }
    if (json)
        fputs("]}\n", stdout);
    else
        printf("\nratio = forward step / time to write a state at the disk pace; * the fastest.\n");
    return 0;
}
