/*
 * The strategies' constructors, which the dispatcher (schedule.c) calls.
 * Strategy files include this for their own prototype and build on
 * schedule_base.h; nothing in schedule_base.c calls up into them.
 */
#ifndef EBB_SCHEDULES_SCHEDULE_INTERNAL_H
#define EBB_SCHEDULES_SCHEDULE_INTERNAL_H

#include "schedules/schedule_base.h"

/* Strategy constructors: check options, allocate, fill s->tier_slots. */
ebb_status ebb_store_all_create(const ebb_schedule_options *o, ebb_schedule **out);
ebb_status ebb_periodic_create(const ebb_schedule_options *o, ebb_schedule **out);
/* Periodic's generator over intervals of any lengths: checkpoints at
 * pos[0] = 0 < pos[1] < ... < pos[count-1] < o->steps, each interval
 * recomputed once in the reverse sweep keeping its inner states. */
ebb_status ebb_intervals_create(const ebb_schedule_options *o, const int64_t *pos, int64_t count,
                                ebb_schedule **out);
ebb_status ebb_revolve_create(const ebb_schedule_options *o, ebb_schedule **out);
ebb_status ebb_online_create(const ebb_schedule_options *o, ebb_schedule **out);
ebb_status ebb_multistage_create(const ebb_schedule_options *o, ebb_schedule **out);
ebb_status ebb_disk_revolve_create(const ebb_schedule_options *o, ebb_schedule **out);

/* The binomial schedule over `levels` slots, the lowest `slow_levels` of
 * them in the slow tier (revolve: 0; multistage: D). */
ebb_status ebb_binomial_create(const ebb_schedule_options *o, int64_t levels, int32_t slow_levels,
                               ebb_schedule **out);

#endif
