/* The hierarchical program for long heterogeneous chains (chain_tree.h). */
#include "schedules/chain_tree.h"

#include <math.h>
#include <stdlib.h>

#include "common/error_internal.h"

void chain_tree_free(chain_tree *t)
{
    if (t->dp)
        for (int32_t d = 0; d < CHAIN_TREE_MAX_DEPTHS; d++)
            chain_dp_free(&t->dp[d]);
    free(t->dp);
    free(t->at);
    free(t->count);
    free(t->cut);
    free(t->kid);
    free(t->node_rev);
    free(t->node_of);
    free(t->sfwd);
    free(t->srev);
    free(t->srevm);
    free(t->ssize);
    free(t->sbwd);
    free(t->stape);
    *t = (chain_tree){0};
}

void chain_tree_solve(chain_tree *t, int32_t depth, int32_t node)
{
    int32_t g = t->group, cnt = t->count[node];
    const int32_t *cut = &t->cut[t->at[node] + node];
    const int32_t *kid = &t->kid[t->at[node]];
    double *f = &t->sfwd[depth * g], *r = &t->srev[depth * g];
    const double **rm = &t->srevm[depth * g];
    int32_t *size = &t->ssize[depth * g];
    for (int32_t i = 0; i < cnt; i++) {
        /* a single step's own cost, not a difference of sums: the exact
         * program's costs stay the chain's to the last bit */
        f[i] = kid[i] < 0 ? t->fwd[cut[i]] : t->pre[cut[i + 1]] - t->pre[cut[i]];
        r[i] = kid[i] < 0 ? t->rev[cut[i]] : 0;
        rm[i] = kid[i] < 0 ? NULL : &t->node_rev[(int64_t)kid[i] * (t->levels + 1)];
        size[i] = t->size[cut[i]];
    }
    /* t->wr: the chain is one node of single steps (chain.c takes a slow
     * tier only then), so its costs are indexed as the node's children */
    chain_dp_steps steps = {.n = cnt, .fwd = f, .rev = r, .rev_by_m = rm, .size = size,
                            .ends_chain = cut[cnt] == t->n, .wr = t->wr, .rd = t->rd};
    if (t->tape) {
        /* a single step's tape; a group keeps none (more than the budget) */
        double *b = &t->sbwd[depth * g];
        int32_t *tp = &t->stape[depth * g];
        for (int32_t i = 0; i < cnt; i++) {
            b[i] = kid[i] < 0 ? t->bwd[cut[i]] : 0;
            tp[i] = kid[i] < 0 ? t->tape[cut[i]] : t->levels + 1;
        }
        steps.bwd = b;
        steps.tape = tp;
    }
    chain_dp_solve(&t->dp[depth], &steps);
    t->node_of[depth] = node;
}

/* Where to cut [a, b) into `cnt` children: evenly, each cut moved within a
 * quarter of a child's length to the smallest state there (a group's input
 * is stored while the group is reversed). */
static void place_cuts(const chain_tree *t, int32_t a, int32_t b, int32_t cnt, int32_t *cut)
{
    int64_t len = b - a;
    cut[0] = a;
    cut[cnt] = b;
    int32_t w = (int32_t)(len / cnt / 4);
    for (int32_t i = 1; i < cnt; i++) {
        int32_t ideal = a + (int32_t)(len * i / cnt);
        int32_t lo = ideal - w, hi = ideal + w;
        if (lo < cut[i - 1] + 1)
            lo = cut[i - 1] + 1;
        if (hi > b - (cnt - i))
            hi = b - (cnt - i);
        int32_t best = lo;
        for (int32_t j = lo + 1; j <= hi; j++)
            if (t->size[j] < t->size[best])
                best = j;
        cut[i] = best;
    }
}

/* Makes the node of steps [a, b) (b - a >= 2) at `depth`, its children
 * first, and says its index in *out. */
static ebb_status make(chain_tree *t, int32_t a, int32_t b, int32_t depth, int32_t *out)
{
    if (depth >= CHAIN_TREE_MAX_DEPTHS)
        return ebb_fail(EBB_ERR_INTERNAL, "the program of a chain of %d steps is deeper than "
                        "%d levels", t->n, CHAIN_TREE_MAX_DEPTHS);
    if (depth + 1 > t->depths) {
        ebb_status st = chain_dp_reserve(&t->dp[depth], t->group, t->levels, t->wr ? 2 : 1);
        if (st != EBB_OK)
            return st;
        t->depths = depth + 1;
    }
    int32_t len = b - a, cnt = len < t->group ? len : t->group;
    int32_t node = t->nodes++;
    t->count[node] = cnt;
    /* kid[] takes cnt entries per node, cut[] cnt + 1: cut[at + node ..] */
    t->at[node] = node == 0 ? 0 : t->at[node - 1] + t->count[node - 1];
    int32_t *cut = &t->cut[t->at[node] + node];
    place_cuts(t, a, b, cnt, cut);
    for (int32_t i = 0; i < cnt; i++) {
        int32_t kid = -1;
        if (cut[i + 1] - cut[i] >= 2) {
            ebb_status st = make(t, cut[i], cut[i + 1], depth + 1, &kid);
            if (st != EBB_OK)
                return st;
        }
        t->kid[t->at[node] + i] = kid;
    }
    chain_tree_solve(t, depth, node);
    const chain_dp *dp = &t->dp[depth];
    double *own = &t->node_rev[(int64_t)node * (t->levels + 1)];
    int32_t size0 = t->size[a];
    for (int32_t M = 0; M <= t->levels; M++)
        own[M] = M >= size0 ? chain_dp_cost(dp, 0, 0, cnt, M - size0) : HUGE_VAL;
    *out = node;
    return EBB_OK;
}

ebb_status chain_tree_build(chain_tree *t, int32_t n, const double *fwd, const double *rev,
                            const double *pre, const int32_t *size, const double *bwd,
                            const int32_t *tape, const double *wr, const double *rd,
                            int32_t levels, int32_t group)
{
    *t = (chain_tree){.n = n, .levels = levels, .group = group, .fwd = fwd, .rev = rev,
                      .pre = pre, .size = size, .bwd = tape ? bwd : NULL, .tape = tape,
                      .wr = rd ? wr : NULL, .rd = wr ? rd : NULL};
    /* every node has >= 2 children: at most n - 1 nodes, 2n - 2 children */
    size_t most = (size_t)(n > 1 ? n - 1 : 1), g = (size_t)group;
    t->at = malloc(sizeof *t->at * most);
    t->count = malloc(sizeof *t->count * most);
    t->cut = malloc(sizeof *t->cut * (3 * most + 1));
    t->kid = malloc(sizeof *t->kid * 2 * most);
    t->node_rev = malloc(sizeof *t->node_rev * most * (size_t)(levels + 1));
    t->dp = calloc(CHAIN_TREE_MAX_DEPTHS, sizeof *t->dp);
    t->node_of = calloc(CHAIN_TREE_MAX_DEPTHS, sizeof *t->node_of);
    t->sfwd = malloc(sizeof *t->sfwd * CHAIN_TREE_MAX_DEPTHS * g);
    t->srev = malloc(sizeof *t->srev * CHAIN_TREE_MAX_DEPTHS * g);
    t->srevm = malloc(sizeof *t->srevm * CHAIN_TREE_MAX_DEPTHS * g);
    t->ssize = malloc(sizeof *t->ssize * CHAIN_TREE_MAX_DEPTHS * g);
    if (tape) {
        t->sbwd = malloc(sizeof *t->sbwd * CHAIN_TREE_MAX_DEPTHS * g);
        t->stape = malloc(sizeof *t->stape * CHAIN_TREE_MAX_DEPTHS * g);
    }
    if (!t->at || !t->count || !t->cut || !t->kid || !t->node_rev || !t->dp ||
        !t->node_of || !t->sfwd || !t->srev || !t->srevm || !t->ssize ||
        (tape && (!t->sbwd || !t->stape))) {
        chain_tree_free(t);
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the program of a chain of %d steps "
                        "in %d memory units: fewer units (memory_levels) need less", n, levels);
    }
    if (n < 2) {
        /* one step: a node of one single step */
        t->nodes = 1;
        t->count[0] = 1;
        t->at[0] = 0;
        t->cut[0] = 0;
        t->cut[1] = 1;
        t->kid[0] = -1;
        ebb_status st = chain_dp_reserve(&t->dp[0], 1, levels, t->wr ? 2 : 1);
        if (st != EBB_OK) {
            chain_tree_free(t);
            return st;
        }
        t->depths = 1;
        chain_tree_solve(t, 0, 0);
        return EBB_OK;
    }
    int32_t root;
    ebb_status st = make(t, 0, n, 0, &root);
    if (st != EBB_OK)
        chain_tree_free(t);
    return st;
}

double chain_tree_total(const chain_tree *t, int *x0_slow)
{
    if (x0_slow)
        *x0_slow = 0;
    if (t->n == 1)
        return chain_dp_total(&t->dp[0]);
    /* the first sweep runs step n-1 once more than the tables count */
    return chain_dp_root(&t->dp[0], x0_slow) + t->fwd[t->n - 1];
}
