/*
 * Online checkpointing told its forward steps' costs once n is known
 * (ebb_schedule_set_forward_costs) against the binomial reversal of the
 * same checkpoints: the steps recomputed beyond the first sweep, weighted
 * by their costs, for two kinds of costs (docs/heterogeneous.md, *Measured
 * in the run*), and the seconds each whole replay took (told: the chain
 * programs over the intervals included). Usage: online_costs (no
 * arguments); prints a Markdown table.
 */
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/schedules/step_costs.h"
#include "ebb/ebb.h"

/* The forward costs of every step the schedule runs, n told right after the
 * advance that reached x_n and, if `tell`, the costs. */
static double replay(int64_t n, int32_t c, const double *costs, int tell)
{
    ebb_schedule_options o;
    ebb_schedule_options_init(&o);
    o.strategy = EBB_STRATEGY_ONLINE;
    o.steps = 0;
    o.slots = c;
    ebb_schedule *s = NULL;
    if (ebb_schedule_create(&o, &s) != EBB_OK) {
        fprintf(stderr, "online_costs: %s\n", ebb_last_error());
        exit(1);
    }
    double cost = 0;
    int told = 0;
    ebb_action a;
    while (ebb_schedule_next(s, &a) == EBB_OK && a.kind != EBB_ACT_END) {
        if (a.kind != EBB_ACT_ADVANCE)
            continue;
        for (int64_t i = a.step; i < a.to; i++)
            cost += costs[i];
        if (a.to == n && !told) {
            told = 1;
            if (ebb_schedule_set_steps(s, n) != EBB_OK ||
                (tell && ebb_schedule_set_forward_costs(s, costs, n) != EBB_OK)) {
                fprintf(stderr, "online_costs: %s\n", ebb_last_error());
                exit(1);
            }
        }
    }
    ebb_schedule_destroy(s);
    return cost;
}

int main(void)
{
    const int64_t ns[] = {2, 3, 30, 100, 300, 1000, 10000};
    const int32_t cs[] = {1, 3, 5, 10, 20};
    printf("| steps, slots | costs 1 to 9: told, binomial | one step in five 16, others 1: "
           "told, binomial | seconds: told, binomial |\n|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (size_t j = 0; j < sizeof cs / sizeof *cs; j++) {
            int64_t n = ns[i];
            int32_t c = cs[j];
            double *f = malloc(sizeof *f * (size_t)n);
            if (!f)
                return 1;
            printf("| %lld, %d", (long long)n, c);
            double told_s = 0, binomial_s = 0;
            for (int kind = 0; kind < 2; kind++) {
                double first = fill_costs(f, n, kind, (uint64_t)(n * 31 + c));
                double t0 = now_s(), told = replay(n, c, f, 1), t1 = now_s();
                double binomial = replay(n, c, f, 0);
                told_s += t1 - t0;
                binomial_s += now_s() - t1;
                printf(" | %.0f, %.0f", told - first, binomial - first);
            }
            printf(" | %.4f, %.4f |\n", told_s / 2, binomial_s / 2);
            free(f);
        }
    return 0;
}
