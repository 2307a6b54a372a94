/*
 * The exact dynamic program for a heterogeneous chain (ebb/chain.h): the
 * least total cost of reversing n steps of different forward and reverse
 * costs whose states have different sizes, under a budget of memory units.
 *
 * R(s, k, t, m): x_s is stored (outside m), the adjoint is at x_t, and this
 * part must reverse steps k .. t-1 (s <= k <= t) with m free units; x_s is
 * freed at its last use. A part either
 *   - reverses t-1 from x_s without storing it (LAST),
 *   - moves its checkpoint: frees x_s and advances to x_k, stored in its
 *     place (MOVE, k > s: the steps s .. k-1 belong to a part below),
 *   - advances to x_j, stores it, lets x_j's part reverse kk .. t-1
 *     and then reverses k .. kk-1 itself (SPLIT),
 *   - or, where steps keep tapes and k == s, runs step s keeping its tape
 *     (x_s stays stored), then stores x_{s+1} and lets x_{s+1}'s part
 *     reverse s+1 .. t-1, or reverses s+1 from the live x_{s+1} where it
 *     is the last (t == s+2), and reverses s from the tape (TAPE).
 * Where the table's x_n is the chain's (ends_chain), a part with t == n
 * is in the first sweep, which reaches x_n anyway: the whole chain's total
 * adds that step once, so taping step n-1 there costs only its backward.
 * A step's reverse cost may depend on the units free when it runs
 * (chain_dp_steps.rev_by_m): a group of steps reversed by its own schedule.
 * Letting a stored state serve a later range (kk > j) and freeing a
 * checkpoint once it has moved are what make this exact over every
 * schedule, not only the nested ("persistent") ones: with states of
 * different sizes those are sometimes dearer.
 */
#ifndef EBB_SCHEDULES_CHAIN_DP_H
#define EBB_SCHEDULES_CHAIN_DP_H

#include <stdint.h>

#include "ebb/error.h"

enum chain_choice_kind {
    CHAIN_NONE = 0,  /* k == t: nothing left to reverse; x_s is freed */
    CHAIN_LAST = 1,  /* reverse t-1 from x_s (t-1 == s: the step s itself) */
    CHAIN_MOVE = 2,  /* free x_s, advance to x_k (stored unless k == t-1) */
    CHAIN_SPLIT = 3, /* advance to x_j, store it; x_j's part reverses kk .. t-1 */
    CHAIN_TAPE = 4,  /* run step s keeping its tape; x_{s+1}'s part (j = 0) or s+1 reversed
                        from the live x_{s+1} (j = 1); then s from the tape */
    CHAIN_PROMOTE = 5, /* x_s from the slow tier into the fast one */
    CHAIN_DEMOTE = 6   /* x_s from the fast tier to the slow one */
};

typedef struct chain_choice {
    int kind;
    int32_t j, kk;
    int slow; /* MOVE, SPLIT, TAPE: the state they store goes to the slow tier */
} chain_choice;

/* The steps a table is solved for; the table points at these arrays and
 * copies none of them, so they must outlive its use. */
typedef struct chain_dp_steps {
    int32_t n;                    /* steps */
    const double *fwd;            /* forward costs, n */
    const double *rev;            /* reverse costs, n, where rev_by_m names none */
    const double *const *rev_by_m;/* NULL, or per step NULL or levels + 1 costs: the
                                     step's reverse with M units free, its input
                                     state's included (a group of steps, chain_tree.h) */
    const int32_t *size;          /* x_0 .. x_{n-1} in units (rounded up) */
    const double *bwd;            /* NULL (no tapes), or n costs: a step's reverse from its tape */
    const int32_t *tape;          /* with bwd: n tapes in units (rounded up; more than the
                                     budget for a step that keeps none) */
    int ends_chain;               /* x_n here is the chain's: t == n is the first sweep */
    const double *wr;             /* NULL (one tier), or n costs: x_i written to the slow tier */
    const double *rd;             /* with wr: x_i read back from it */
} chain_dp_steps;

typedef struct chain_dp {
    int32_t n;        /* steps */
    int32_t levels;   /* the budget in units (of the fast tier) */
    int32_t tiers;    /* 1, or 2 with room for x_s in the slow tier */
    int32_t max_n;    /* the most steps the storage holds */
    chain_dp_steps in;
    double *pre;      /* pre[i] = fwd[0] + .. + fwd[i-1], n + 1 */
    int32_t *base;    /* base[s * (n + 1) + t]: first cell row of (s, .., t) */
    double *cost;     /* per (s, k, t) row: levels + 1 costs */
    int32_t *choice;  /* packed chain_choice, as cost */
    double *scratch;  /* 2 (levels + 1): a row's costs before x_s moves between tiers */
} chain_dp;

/* The most steps the exact program takes for ebb_chain_schedule_create:
 * its table holds n^3/6 rows of levels + 1 cells and each cell tries
 * O(n^2) splits. Forced (chain_internal.h), it takes up to
 * CHAIN_DP_MAX_FORCED, to measure the hierarchy's gap on longer chains. */
enum { CHAIN_DP_MAX_STEPS = 32, CHAIN_DP_MAX_FORCED = 64 };

/* The most cells the table may have (12 bytes each): the units are capped
 * so that a chain of 32 steps (6,545 rows) still gets 2,562 of them. */
#define CHAIN_DP_MAX_CELLS ((uint64_t)1 << 24)

/* The rows of a table of n steps. */
uint64_t chain_dp_rows(int32_t n);

/* Allocates a table for up to max_n steps (1 .. CHAIN_DP_MAX_FORCED) under
 * `levels` units, for x_s in `tiers` tiers (1, or 2 for steps with wr and
 * rd); EBB_ERR_NO_MEMORY, saying so, when it cannot. */
ebb_status chain_dp_reserve(chain_dp *dp, int32_t max_n, int32_t levels, int32_t tiers);

/* Fills a reserved table for the given steps (1 <= n <= max_n). */
void chain_dp_solve(chain_dp *dp, const chain_dp_steps *steps);

/* Reserves and solves (chain_dp_reserve, chain_dp_solve). */
ebb_status chain_dp_build(chain_dp *dp, const chain_dp_steps *steps, int32_t levels);

/* Step i's reverse cost with M units free, its input state's included. */
double chain_dp_reverse(const chain_dp *dp, int32_t i, int32_t M);

void chain_dp_free(chain_dp *dp);

/* R(s, k, t, m) and the choice that gives it, x_s in the fast tier; _in:
 * in tier v (0 fast, 1 slow, where the table has two). */
double chain_dp_cost(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m);
chain_choice chain_dp_choice(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m);
double chain_dp_cost_in(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m, int v);
chain_choice chain_dp_choice_in(const chain_dp *dp, int32_t s, int32_t k, int32_t t, int32_t m,
                                int v);

/* The whole chain's R(0, 0, n, ..) with x_0 stored where it costs less
 * (*x0_slow, may be NULL: 1 for the slow tier), the first sweep's extra
 * step not included; n >= 2. */
double chain_dp_root(const chain_dp *dp, int *x0_slow);

/* The whole chain's least cost, the first sweep included; x_0 must fit
 * (size[0] <= levels) when n >= 2. */
double chain_dp_total(const chain_dp *dp);

#endif
