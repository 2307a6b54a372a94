/*
 * The cost of an action stream under given per-tier write and read costs, so
 * that strategies can be compared on one scale: forward steps x 1 + reverse
 * steps x reverse + per tier (stores + transfers into it) x write + (restores
 * + transfers out of it) x read. The counts come from the replay validator.
 */
#ifndef EBB_SCHEDULES_STREAM_COST_H
#define EBB_SCHEDULES_STREAM_COST_H

#include "ebb/schedule.h"

/* ebb_stream_costs and ebb_stream_cost are public (ebb/schedule.h). */

/* Replays a whole schedule through a validator sized by its tier budget,
 * fills *stats and *cost (either may be NULL), and destroys nothing: the
 * caller owns `schedule`. EBB_ERR_SCHEDULE when the stream is invalid. */
ebb_status ebb_stream_cost_replay(ebb_schedule *schedule, const ebb_stream_costs *costs,
                                  ebb_schedule_stats *stats, double *cost);

#endif
