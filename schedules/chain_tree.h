/*
 * The hierarchical program for long heterogeneous chains (ebb/chain.h): the
 * chain is cut into at most `group` consecutive groups, each group again,
 * until a group is at most `group` single steps. Each group is a node whose
 * children (groups or single steps) are the steps of one exact program
 * (chain_dp.h): a child group's forward cost is its steps' sum and its
 * reverse cost, with M units free (its input state's included), is its own
 * program's least cost from that input stored with M - size units beside it.
 * Every level counts the one budget in the same units, so the tables line
 * up. A chain of at most CHAIN_DP_MAX_STEPS steps is one node of single
 * steps: the exact program itself. Single-step children may keep tapes.
 *
 * Only the nodes' reverse tables (levels + 1 costs each) are kept; a node's
 * table of choices is solved again when the schedule reaches its reverse,
 * into the storage of its depth, which each depth has once.
 */
#ifndef EBB_SCHEDULES_CHAIN_TREE_H
#define EBB_SCHEDULES_CHAIN_TREE_H

#include <stdint.h>

#include "schedules/chain_dp.h"

typedef struct chain_tree {
    int32_t n, levels, group;
    int32_t nodes, depths;  /* nodes made; depths below the root, the root's included */
    const double *fwd, *rev;/* the chain's costs, n each (not copied) */
    const double *pre;      /* pre[i]: fwd[0] + .. + fwd[i-1], n + 1 (not copied) */
    const int32_t *size;    /* its states in units, n (not copied) */
    const double *bwd;      /* NULL, or the steps' reverse costs from their tapes, n */
    const int32_t *tape;    /* with bwd: the tapes in units, n (single-step
                               children keep them; a group child keeps none) */
    const double *wr, *rd;  /* NULL, or moving x_i to and from a slow tier, n each;
                               only for n <= group (one node: the exact program) */
    int32_t *at;            /* per node: where its children start in cut[] and kid[] */
    int32_t *count;         /* per node: its children */
    int32_t *cut;           /* per node count + 1: child i runs x_cut[i] .. x_cut[i+1] */
    int32_t *kid;           /* per node count: child i's node, or -1 for one step */
    double *node_rev;       /* per node levels + 1: its reverse with M units free */
    chain_dp *dp;           /* per depth: the table of the node being reversed */
    int32_t *node_of;       /* per depth: which node dp[depth] was solved for */
    double *sfwd, *srev;    /* per depth, group each: the children as steps */
    const double **srevm;
    int32_t *ssize;
    double *sbwd;           /* per depth, group each, where tapes: the children's */
    int32_t *stape;
} chain_tree;

/* The most children per node for chains longer than CHAIN_DP_MAX_STEPS
 * (docs/heterogeneous.md: the time and the gap to the optimum it gives). */
enum { CHAIN_TREE_GROUP = 12 };

/* The most depths a tree has (a node's children are at least a third as
 * long as an even cut makes them, so 2^31 steps need far fewer). */
enum { CHAIN_TREE_MAX_DEPTHS = 64 };

/* Cuts the chain and solves every node, children first; the root's table
 * is left solved at depth 0. bwd and tape: the steps' tapes; wr and rd: a
 * slow tier's costs (NULL: none; none copied), only for n <= group: the
 * caller (chain.c) takes a slow tier for the exact program alone. EBB_ERR_NO_MEMORY, saying
 * so. */
ebb_status chain_tree_build(chain_tree *t, int32_t n, const double *fwd, const double *rev,
                            const double *pre, const int32_t *size, const double *bwd,
                            const int32_t *tape, const double *wr, const double *rd,
                            int32_t levels, int32_t group);

/* Solves node's table into dp[depth]. */
void chain_tree_solve(chain_tree *t, int32_t depth, int32_t node);

/* The whole chain's least cost under the tree, the first sweep included;
 * HUGE_VAL where no group input fits beside the states its parents hold.
 * *x0_slow (may be NULL): x_0 goes to the slow tier. */
double chain_tree_total(const chain_tree *t, int *x0_slow);

void chain_tree_free(chain_tree *t);

#endif
