/* The hierarchical program against the exact one: on random chains longer
 * than a group and up to 32 steps, the schedule made with groups of
 * CHAIN_TREE_GROUP children costs at most a measured factor more than the
 * exact program (the worst and the median ratio are printed), the tree
 * alone never less than the exact program, and the schedule never more
 * than Revolve run with the slots the budget holds of the largest state,
 * where that runs (the tree alone sometimes does: the count is printed). */
#include <stdio.h>
#include <stdlib.h>

#include "schedules/chain_tree.h"
#include "support/chain_long_support.h"
#include "support/schedule_support.h"

/* Revolve's stream with `slots` slots, costed with the chain's costs. */
static double revolve_cost(const long_chain *c, int32_t slots)
{
    ebb_schedule_options o = opts(EBB_STRATEGY_REVOLVE, c->n, slots);
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_schedule_create(&o, &s), EBB_OK, "%s", ebb_last_error());
    double cost = 0;
    ebb_action a;
    do {
        cr_assert_eq(ebb_schedule_next(s, &a), EBB_OK);
        if (a.kind == EBB_ACT_ADVANCE)
            for (int64_t k = a.step; k < a.to; k++)
                cost += c->fwd[k];
        else if (a.kind == EBB_ACT_REVERSE)
            cost += c->rev[a.step];
    } while (a.kind != EBB_ACT_END);
    ebb_schedule_destroy(s);
    return cost;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void gap(int32_t group, double bound)
{
    enum { CASES = 120 };
    double ratio[CASES];
    uint64_t seed = 0x7f4a7c159e3779b9ull;
    int against_revolve = 0, tree_above_revolve = 0;
    for (int i = 0; i < CASES; i++) {
        int n = (int)rng_range(&seed, group + 1, 32);
        long_chain c = long_chain_alloc(n);
        uint64_t total = 0, largest = 0;
        for (int k = 0; k < n; k++) {
            c.fwd[k] = (double)rng_range(&seed, 1, 10);
            c.rev[k] = (double)rng_range(&seed, 1, 20);
            c.bytes[k] = (uint64_t)rng_range(&seed, 1, 16);
            if (i % 3 == 0 && rng_range(&seed, 0, 3) == 0)
                c.bytes[k] *= 8;
            total += c.bytes[k];
            if (c.bytes[k] > largest)
                largest = c.bytes[k];
        }
        c.budget = c.bytes[0] + largest + (uint64_t)rng_range(&seed, 0, (int64_t)(total / 3));
        chain_replay exact = chain_replayed_grouped(&c, 0, 0, 1);
        chain_replay tree = chain_replayed_grouped(&c, 0, group, 0);
        chain_replay both = chain_replayed_grouped(&c, 0, group, 1);
        cr_assert_eq(tree.cost, tree.predicted, "case %d", i);
        cr_assert_eq(both.cost, both.predicted, "case %d", i);
        ratio[i] = both.cost / exact.cost;
        cr_assert_geq(tree.cost, exact.cost, "case %d, n=%d: the tree costs %g, below the exact "
                      "%g", i, n, tree.cost, exact.cost);
        cr_assert_leq(both.cost, tree.cost, "case %d", i);
        int32_t slots = (int32_t)(c.budget / largest);
        if (slots >= 1) {
            double rc = revolve_cost(&c, slots < n ? slots : n);
            cr_assert_leq(both.cost, rc, "case %d, n=%d budget %llu: the schedule costs %g, "
                          "Revolve with %d slots of the largest state %g", i, n,
                          (unsigned long long)c.budget, both.cost, slots, rc);
            against_revolve++;
            tree_above_revolve += tree.cost > rc;
        }
        long_chain_free(&c);
    }
    qsort(ratio, CASES, sizeof *ratio, by_value);
    printf("groups of %d on %d chains of %d .. 32 steps: cost / the exact program's: median "
           "%.4f, worst %.4f; the tree alone above Revolve on the largest state on %d of %d\n",
           group, CASES, group + 1, ratio[CASES / 2], ratio[CASES - 1], tree_above_revolve,
           against_revolve);
    fflush(stdout);
    cr_assert_leq(ratio[CASES - 1], bound, "groups of %d: worst ratio %.4f", group,
                  ratio[CASES - 1]);
}

/* The bound is the worst ratio measured on these chains (1.2801 with groups
 * of 12), rounded up. */
Test(chain_long_gap, groups_cost_little_more_than_the_exact_program, .timeout = 600)
{
    gap(CHAIN_TREE_GROUP, 1.30);
}
