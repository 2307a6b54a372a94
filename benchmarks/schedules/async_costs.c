/*
 * The asynchronous strategy's generator told the forward steps' costs
 * (rt_async_set_forward_costs) against its Revolve reversal of the same
 * intervals: the steps recomputed beyond the first sweep, weighted by their
 * costs, for two kinds of costs (docs/heterogeneous.md, *Async over the
 * steps' costs*), with the channel to the slower tier free at every
 * decision (a state stored every ceil(n / slow slots) steps), and the
 * seconds each whole replay took (told: the chain programs over the
 * intervals included). Usage: async_costs (no arguments); prints a
 * Markdown table.
 */
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/schedules/step_costs.h"
#include "ebb/ebb.h"
#include "schedules/async.h"

static ebb_status always_idle(void *ctx, int mask, int64_t step, int *idle)
{
    (void)ctx, (void)mask, (void)step;
    *idle = 1;
    return EBB_OK;
}

static void fail(void)
{
    fprintf(stderr, "async_costs: %s\n", ebb_last_error());
    exit(1);
}

/* The forward costs of every step the generator runs: n host slots c, d
 * disk slots, told the costs (`tell`) at create. */
static double replay(int64_t n, int32_t c, int32_t d, const double *costs, int tell)
{
    rt_async_options o;
    rt_async_options_init(&o, n, EBB_TIER_HOST, c);
    rt_async_add_tier(&o, EBB_TIER_DISK, d);
    rt_async *a = NULL;
    if (rt_async_create(&o, &a) != EBB_OK ||
        (tell && rt_async_set_forward_costs(a, costs, n) != EBB_OK))
        fail();
    double cost = 0;
    ebb_action batch[256];
    for (int end = 0; !end;) {
        size_t k = 0;
        if (rt_async_next_batch(a, batch, 256, &k, always_idle, NULL) != EBB_OK)
            fail();
        for (size_t i = 0; i < k; i++) {
            end |= batch[i].kind == EBB_ACT_END;
            if (batch[i].kind == EBB_ACT_ADVANCE)
                for (int64_t s = batch[i].step; s < batch[i].to; s++)
                    cost += costs[s];
        }
    }
    rt_async_destroy(a);
    return cost;
}

int main(void)
{
    const int64_t ns[] = {3, 30, 100, 300, 1000, 10000};
    const int32_t cs[] = {1, 2, 3, 5, 10};
    const int32_t ds[] = {1, 4, 16, 64};
    printf("| steps, host slots, disk slots | costs 1 to 9: told, Revolve | one step in five "
           "16, others 1: told, Revolve | seconds: told, Revolve |\n|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (size_t j = 0; j < sizeof cs / sizeof *cs; j++)
            for (size_t l = 0; l < sizeof ds / sizeof *ds; l++) {
                int64_t n = ns[i];
                int32_t c = cs[j], d = ds[l];
                if (d > n)
                    continue; /* as many as n: the same as n */
                double *f = malloc(sizeof *f * (size_t)n);
                if (!f)
                    return 1;
                printf("| %lld, %d, %d", (long long)n, c, d);
                double told_s = 0, revolve_s = 0;
                for (int kind = 0; kind < 2; kind++) {
                    double first = fill_costs(f, n, kind, (uint64_t)(n * 31 + c * 7 + d));
                    double t0 = now_s(), told = replay(n, c, d, f, 1), t1 = now_s();
                    double revolve = replay(n, c, d, f, 0);
                    told_s += t1 - t0;
                    revolve_s += now_s() - t1;
                    printf(" | %.0f, %.0f", told - first, revolve - first);
                }
                printf(" | %.4f, %.4f |\n", told_s / 2, revolve_s / 2);
                free(f);
            }
    return 0;
}
