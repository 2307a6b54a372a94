/* Replaying a schedule the caller already built (ebb_schedule_replay builds
 * its own): `ebb plan` creates one to read its budget and replays that one,
 * so a costly constructor (h-revolve's programme) runs once. */
#ifndef EBB_REVOLVE_REPLAY_H
#define EBB_REVOLVE_REPLAY_H

#include "ebb/schedule.h"

/* As ebb_schedule_replay, on `s`, which must be fresh (no action taken) and
 * stays the caller's; `steps` is where an online schedule's forward stops
 * (ignored for the others). */
ebb_status ebb_schedule_replay_own(ebb_schedule *s, int64_t steps, ebb_schedule_stats *stats,
                                   ebb_action_visitor visit, void *user);

#endif
