/*
 * The cost of an action stream under given per-tier write and read costs, so
 * that strategies can be compared on one scale: forward steps x 1 + reverse
 * steps x reverse + per tier (stores + transfers into it) x write + (restores
 * + transfers out of it) x read. The counts come from the replay validator.
 */
#ifndef EBB_REVOLVE_STREAM_COST_H
#define EBB_REVOLVE_STREAM_COST_H

#include "ebb/schedule.h"

typedef struct ebb_stream_costs {
    double write[EBB_TIER_COUNT]; /* one store into the tier */
    double read[EBB_TIER_COUNT];  /* one restore out of the tier */
    double reverse;               /* one reverse step; a forward step costs 1 */
} ebb_stream_costs;

/* Cost of a validated stream's counts. EBB_ERR_INVALID_ARG on NULL. */
ebb_status ebb_stream_cost(const ebb_schedule_stats *stats, const ebb_stream_costs *costs,
                           double *cost);

/* Replays a whole schedule through a validator sized by its tier budget,
 * fills *stats and *cost (either may be NULL), and destroys nothing: the
 * caller owns `schedule`. EBB_ERR_SCHEDULE when the stream is invalid. */
ebb_status ebb_stream_cost_replay(ebb_schedule *schedule, const ebb_stream_costs *costs,
                                  ebb_schedule_stats *stats, double *cost);

#endif
