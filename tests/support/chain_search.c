/* The exhaustive chain tests' common loop (chain_search.h). */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "support/chain_search.h"

void chains_cost_the_optimum(size_t keys, chain_draw_fn draw, chain_optimum_fn optimum,
                             int cases, uint64_t seed, int max_n, chain_case_fn each, void *ctx)
{
    search s = search_make(keys);
    int *by_n = calloc((size_t)max_n + 1, sizeof *by_n);
    cr_assert_not_null(by_n);
    for (int i = 0; i < cases; i++) {
        test_chain c = {0};
        draw(&seed, &c, i);
        double best = optimum(&s, &c);
        chain_replay r = chain_replayed(&c);
        cr_assert_eq(r.cost, best, "case %d, n=%d budget %llu%s: the schedule costs %g, the "
                     "optimum is %g", i, c.n, (unsigned long long)c.budget,
                     c.slow ? " with a slower tier" : "", r.cost, best);
        cr_assert_eq(r.predicted, best, "case %d: predicted %g, optimum %g", i, r.predicted,
                     best);
        cr_assert_leq(r.peak_bytes, c.budget, "case %d", i);
        cr_assert(c.n >= 1 && c.n <= max_n, "case %d: n=%d", i, c.n);
        by_n[c.n]++;
        if (each)
            each(i, &c, &r, ctx);
    }
    for (int n = 1; n <= max_n; n++)
        cr_assert_gt(by_n[n], 0, "no chain of %d steps was tried", n);
    free(by_n);
    search_free(&s);
}
