/*
 * Where online checkpointing keeps its checkpoints while n is unknown.
 *
 * Stopping at x_n with checkpoints 0 = p_0 < ... < p_k, the reverse costs
 * n + sum_q T(p_{q+1} - p_q, C - q), the last interval ending at x_{n-1}
 * (x_{n-1} itself is at hand after TURN, so a checkpoint there is wasted).
 * With beta(C, rho) < n <= beta(C, rho+1) that equals offline Revolve
 * exactly when all C checkpoints are below n-1 and every interval q has
 * a length in [beta(C-q, rho-1), beta(C-q, rho)]. The placement keeps as
 * close to that as an online rule can (docs/online.md):
 *
 *  - anchors: the only layout optimal at the end of the range, n =
 *    beta(C, rho+1), has its checkpoints at beta(C, rho+1) - beta(C-q, rho+1).
 *    Those states are stored when reached and never dropped within the range
 *    (as in the online algorithms of Stumm and Walther, SIAM J. Sci. Comput.
 *    32(2), 2010, which build the same end layouts for rho = 1, 2);
 *  - pace: between anchors a state is stored once the last interval reaches
 *    rho + 1 steps (rho + 2 beyond beta(C, 3), where the longer pace costs
 *    less), never just before an anchor;
 *  - drop: the stored state takes the slot of the non-anchor checkpoint whose
 *    removal leaves the cheapest reverse for the stop rho steps later, the
 *    first stop at which the new checkpoint is of use; equals are told apart
 *    by the same measure one paced store further on.
 *
 * State is O(C); a store costs O(C) binomial evaluations, any other step O(1).
 */
#ifndef EBB_SCHEDULES_ONLINE_PLACE_H
#define EBB_SCHEDULES_ONLINE_PLACE_H

#include <stdint.h>

#include "ebb/error.h"

typedef struct ebb_online_place {
    int32_t slots;        /* C */
    int32_t count;        /* checkpoints kept */
    int64_t *pos;         /* their states, increasing */
    int32_t *slot;        /* their slots */
    uint8_t *anchor;      /* kept to the end of the current range */
    uint8_t *busy;        /* slot in use */
    int64_t *prefix;      /* scratch: reverse cost of the first intervals */
    int64_t *suffix;      /* scratch: cost of the later ones, one index lower */
    int64_t *cand;        /* scratch: cost of each drop */
    __int128 *next;       /* scratch: cost of the next store after each drop */
    __int128 *wide;       /* scratch: 7 (C + 2) sums for that look-ahead */
    int64_t rho;          /* beta(C, rho) < m + 1 <= range_end */
    int64_t range_end;    /* beta(C, rho + 1) */
    int32_t next_q;       /* index of the next anchor of this range */
    int64_t next_anchor;  /* its state, -1 when none is left */
} ebb_online_place;

/* What the placement did with the live state. */
typedef struct ebb_online_move {
    int stored;        /* x_m was kept, in slot `slot` */
    int32_t slot;
    int dropped;       /* to make room, x_drop_pos left slot drop_slot first */
    int64_t drop_pos;
    int32_t drop_slot;
} ebb_online_move;

/* Allocates the O(C) arrays for `slots` >= 1 slots. */
ebb_status ebb_online_place_alloc(ebb_online_place *p, int32_t slots);
void ebb_online_place_free(ebb_online_place *p);

/* Decides about the live state x_m; call with m = 0, 1, 2, ... in turn. */
void ebb_online_place_step(ebb_online_place *p, int64_t m, ebb_online_move *move);

#endif
