/*
 * Reversing one interval [start, end) of a longer sweep with the chain
 * program (ebb/chain.h) over the interval's forward costs, its states all
 * of one size: x_start is stored already (or live: start_stored 0), the
 * adjoint is at x_end, and `levels` slots (the one for x_start among them)
 * are free for it.
 *
 * The chain schedule of the interval's L steps differs from the interval's
 * reversal only in its first sweep: it stores x_0, runs on to x_L and turns,
 * where the interval restores x_start and runs to x_{end-1} only. Its
 * reverse cost is the interval's plus the one forward step to x_L, the same
 * for every schedule, so the chain's optimum is the interval's. The stream
 * is rewritten on the fly: x_0's store becomes the restore of x_start (its
 * store into slot_of[0] where x_start is live), the
 * advance to x_L stops one step short and the turn goes, steps are shifted
 * by start and the chain's slots named by the caller's.
 */
#ifndef EBB_SCHEDULES_CHAIN_INTERVAL_H
#define EBB_SCHEDULES_CHAIN_INTERVAL_H

#include <stdint.h>

#include "ebb/chain.h"
#include "schedules/schedule_base.h"

typedef struct chain_interval {
    ebb_schedule *chain;   /* the interval's chain schedule; NULL when done or unused */
    int64_t start, steps;  /* the interval [start, start + steps) */
    int tier;              /* the slots' tier */
    int32_t x0_slot;       /* the chain's slot of its x_0: -1 until its store */
    int start_stored;      /* x_start is in slot_of[0] (else live, to be stored there) */
    int32_t *slot_of;      /* the caller's slots, levels: slot_of[0] holds x_start */
    int32_t levels;
    ebb_action buf[EBB_GROUP_MAX]; /* the chain's actions not yet rewritten */
    size_t head, len;
} chain_interval;

/* Whether the chain program reverses an interval of `steps` steps with
 * `levels` slots: with two steps or one slot it and the binomial schedule
 * are one, and a chain has at most EBB_CHAIN_MAX_STEPS steps. */
static inline int chain_interval_takes(int64_t steps, int32_t levels)
{
    return steps >= 3 && steps <= EBB_CHAIN_MAX_STEPS && levels >= 2;
}

/* Starts reversing [start, start + steps) with the chain program over
 * costs[0 .. steps-1] (the interval's forward costs), the slots slot_of
 * (levels entries, copied; NULL: slots 0 .. levels - 1; slot_of[0] holds
 * x_start, or takes it where start_stored is 0 and x_start is the live
 * state) of `tier`. Returns
 * EBB_ERR_NO_MEMORY (saying so) when the schedule cannot be made; the
 * caller then reverses the interval otherwise. steps >= 2, levels >= 1. */
ebb_status chain_interval_begin(chain_interval *ci, const double *costs, int64_t start,
                                int64_t steps, int tier, const int32_t *slot_of, int32_t levels,
                                int start_stored);

/* 1 once the interval is reversed and its slots freed (or none begun). */
static inline int chain_interval_done(const chain_interval *ci)
{
    return ci->chain == NULL;
}

/* Writes the interval's next actions while out <= limit (at most
 * EBB_GROUP_MAX a call of the chain's schedule) and the interval is not
 * done; returns the new end of out. */
ebb_action *chain_interval_fill(chain_interval *ci, ebb_action *out, const ebb_action *limit);

void chain_interval_free(chain_interval *ci);

#endif
